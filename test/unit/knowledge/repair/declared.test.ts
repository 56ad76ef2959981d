import { describe, expect, it } from '@jest/globals';

import { planPreinstall } from '../../../../src/knowledge/repair/declared.js';
import type { Need, Resolution } from '../../../../src/knowledge/repair/needs.js';
import type { BuildDeclaration } from '../../../../src/repo/declared-deps.js';

const decl = (kind: BuildDeclaration['kind'], name: string, required = true, line = 1): BuildDeclaration => ({
  kind,
  name,
  required,
  source: `meson.build:${line}`,
  text: `dependency('${name}')`,
});

/** A resolver over a fixed table, counting its calls. */
function resolver(table: Record<string, Partial<Resolution>>) {
  const calls: Need[][] = [];
  return {
    calls,
    resolvePackages: (needs: Need[]) => {
      calls.push(needs);
      return Promise.resolve(
        needs.map((need): Resolution => ({
          need,
          candidates: [],
          via: 'apt-file',
          ...table[`${need.kind}:${need.name}`],
        })),
      );
    },
  };
}

describe('planPreinstall', () => {
  it('installs the package the knowledge base says ships an undefined autoconf macro, and drops unknown macros', async () => {
    const r = resolver({});
    const statuses: string[][] = [];
    const plan = await planPreinstall(
      [
        decl('m4-macro', 'AM_PATH_GPG_ERROR', true, 6),
        decl('m4-macro', 'AX_CHECK_COMPILE_FLAG', true, 4),
        decl('m4-macro', 'MY_LOCAL_MACRO'),
      ],
      {
        ...r,
        packageStatus: (names) => {
          statuses.push(names);
          return Promise.resolve(
            new Map<string, 'installed' | 'available'>([
              ['libgpg-error-dev', 'available'],
              ['autoconf-archive', 'installed'],
            ]),
          );
        },
      },
    );
    expect(r.calls).toEqual([]); // no file look-up: the table names the packages
    expect(statuses).toEqual([['libgpg-error-dev', 'autoconf-archive']]);
    expect(plan.packages).toEqual([
      { package: 'libgpg-error-dev', declarations: ["meson.build:6: dependency('AM_PATH_GPG_ERROR')"] },
    ]);
    expect(plan.skipped).toEqual([]);
  });

  it('resolves every required declaration in one call and records where each package came from', async () => {
    const r = resolver({
      'pkgconfig:zlib': { package: 'zlib1g-dev' },
      'header:zlib.h': { package: 'zlib1g-dev' },
      'pkgconfig:jansson': { package: 'libjansson-dev' },
      'header:stdio.h': { package: 'libc6-dev', installed: true },
      'cmake:Threads': { noPackageNeeded: true, via: 'fallback' },
      'pkgconfig:nosuch': { via: 'none', note: 'no package in the index ships nosuch.pc' },
    });
    const plan = await planPreinstall(
      [
        decl('pkgconfig', 'zlib', true, 2),
        decl('header', 'zlib.h', true, 3),
        decl('pkgconfig', 'jansson', true, 4),
        decl('header', 'stdio.h'),
        decl('cmake', 'Threads'),
        decl('pkgconfig', 'nosuch'),
        decl('pkgconfig', 'liblzma', false, 9),
      ],
      r,
    );
    expect(r.calls).toHaveLength(1);
    expect(r.calls[0]!.map((n) => n.name)).toEqual([
      'zlib',
      'zlib.h',
      'jansson',
      'stdio.h',
      'Threads',
      'nosuch',
    ]);
    expect(plan.packages).toEqual([
      {
        package: 'zlib1g-dev',
        declarations: ["meson.build:2: dependency('zlib')", "meson.build:3: dependency('zlib.h')"],
      },
      { package: 'libjansson-dev', declarations: ["meson.build:4: dependency('jansson')"] },
    ]);
    expect(plan.skipped).toEqual([
      {
        declaration: "meson.build:9: dependency('liblzma')",
        why: 'optional: the default build goes on without it',
      },
      { declaration: "meson.build:1: dependency('nosuch')", why: 'no package in the index ships nosuch.pc' },
    ]);
  });

  it('installs the packages a doc names only when apt knows them and they are not installed', async () => {
    const plan = await planPreinstall(
      [decl('package', 'libfoo-dev'), decl('package', 'cmake'), decl('package', 'libgone-dev')],
      {
        packageStatus: (names) => {
          expect(names).toEqual(['libfoo-dev', 'cmake', 'libgone-dev']);
          return Promise.resolve(
            new Map<string, 'installed' | 'available'>([
              ['libfoo-dev', 'available'],
              ['cmake', 'installed'],
            ]),
          );
        },
      },
    );
    expect(plan.packages.map((p) => p.package)).toEqual(['libfoo-dev']);
    expect(plan.skipped.map((s) => s.why)).toEqual(['apt does not know libgone-dev']);
  });

  it('installs the first alternative of a group that resolves, and nothing for one already installed', async () => {
    const r = resolver({
      'pkgconfig:tinfow': { via: 'none', note: 'no package in the index ships tinfow.pc' },
      'pkgconfig:ncursesw': { package: 'libncurses-dev' },
      'pkgconfig:ncurses': { package: 'libncurses-dev' },
      'pkgconfig:libevent_core': { package: 'libevent-dev', installed: true },
      'pkgconfig:libevent': { package: 'libevent-dev' },
    });
    const g = (name: string, group: string, line: number): BuildDeclaration => ({
      ...decl('pkgconfig', name, true, line),
      group,
    });
    const plan = await planPreinstall(
      [
        g('tinfow', 'found_ncurses', 1),
        g('ncursesw', 'found_ncurses', 2),
        g('ncurses', 'found_ncurses', 3),
        g('libevent_core', 'found_libevent', 4),
        g('libevent', 'found_libevent', 5),
      ],
      r,
    );
    expect(plan.packages).toEqual([
      { package: 'libncurses-dev', declarations: ["meson.build:2: dependency('ncursesw')"] },
    ]);
    expect(plan.skipped.map((x) => x.why)).toEqual([
      'no package in the index ships tinfow.pc',
      'an alternative of ncursesw (meson.build:2), which settles the same check',
      'an alternative of libevent_core (meson.build:4), which settles the same check',
    ]);
  });

  it("puts a declared header's package include root on CPATH, and no root when a copy is on the default path", async () => {
    const r = resolver({
      'header:Eigen/Core': { package: 'libeigen3-dev', paths: ['/usr/include/eigen3/Eigen/Core'] },
      'header:json/json.h': {
        package: 'libjsoncpp-dev',
        installed: true,
        paths: ['/usr/include/jsoncpp/json/json.h'],
      },
      'header:zlib.h': { package: 'zlib1g-dev', paths: ['/usr/include/zlib.h'] },
      'header:ncurses.h': {
        package: 'libncurses-dev',
        paths: ['/usr/include/ncurses.h', '/usr/include/ncursesw/ncurses.h'],
      },
      'header:two/roots.h': {
        package: 'libtwo-dev',
        paths: ['/usr/include/a/two/roots.h', '/usr/include/b/two/roots.h'],
      },
      'header:deep/h.h': { package: 'libdeep-dev', paths: ['/usr/lib/deep/include/deep/h.h'] },
    });
    const plan = await planPreinstall(
      [
        decl('header', 'Eigen/Core', true, 1),
        decl('header', 'json/json.h', true, 2),
        decl('header', 'zlib.h', true, 3),
        decl('header', 'ncurses.h', true, 4),
        decl('header', 'two/roots.h', true, 5),
        decl('header', 'deep/h.h', true, 6),
        decl('header', 'Eigen/Dense', false, 7),
      ],
      r,
    );
    expect(plan.includeDirs).toEqual([
      { dir: '/usr/include/eigen3', declarations: ["meson.build:1: dependency('Eigen/Core')"] },
      { dir: '/usr/include/jsoncpp', declarations: ["meson.build:2: dependency('json/json.h')"] },
    ]);
    // An installed package is not installed again, but its root is still needed.
    expect(plan.packages.map((p) => p.package)).not.toContain('libjsoncpp-dev');
    const none = await planPreinstall([decl('header', 'zlib.h')], r);
    expect(none.includeDirs).toBeUndefined();
  });

  it('installs nothing without a resolver and says so', async () => {
    const plan = await planPreinstall([decl('pkgconfig', 'zlib')], {});
    expect(plan.packages).toEqual([]);
    expect(plan.skipped).toEqual([
      { declaration: "meson.build:1: dependency('zlib')", why: 'no package resolver' },
    ]);
  });
});
