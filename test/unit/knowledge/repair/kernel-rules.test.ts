/**
 * Linux kernel build failures (issue 15): real-looking Kbuild logs → the root cause the layer-1 parser
 * finds → the repair the rules propose, with a package index that knows what apt-file would say.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { analyzeLog } from '../../../../src/knowledge/diagnose/log-parser.js';
import type { Need } from '../../../../src/knowledge/repair/needs.js';
import type { RepairInput, StrategyServices } from '../../../../src/knowledge/repair/repair.js';
import { RuleKnowledge } from '../../../../src/knowledge/repair/rules/index.js';
import { isKernelTree } from '../../../../src/knowledge/repair/rules/kernel.js';
import { recipeFor } from '../../../../src/recipe/catalog.js';
import { emptyFixes } from '../../../../src/recipe/model.js';
import { repoInfo, system } from '../../../fakes/repo-info.js';

/** What apt-file answers in a Debian bookworm sandbox for the kernel's needs. */
const INDEX: Record<string, string> = {
  'command:flex': 'flex',
  'command:bison': 'bison',
  'command:bc': 'bc',
  'command:cpio': 'cpio',
  'header:gelf.h': 'libelf-dev',
  'header:libelf.h': 'libelf-dev',
  'header:openssl/opensslv.h': 'libssl-dev',
};

function services(asked: Need[] = []): StrategyServices {
  return {
    resolvePackages: (needs) => {
      asked.push(...needs);
      return Promise.resolve(
        needs.map((need) => {
          const pkg = INDEX[`${need.kind}:${need.name}`];
          return {
            need,
            package: pkg,
            candidates: pkg ? [pkg] : [],
            via: pkg ? ('apt-file' as const) : ('none' as const),
            installed: false,
          };
        }),
      );
    },
  };
}

const dir = mkdtempSync(path.join(tmpdir(), 'bb-kernel-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A folder that looks like a kernel tree (Kbuild and scripts/kconfig at the top). */
function kernelTree(): string {
  const root = mkdtempSync(path.join(dir, 'linux-'));
  writeFileSync(path.join(root, 'Kbuild'), '# Kbuild\n');
  mkdirSync(path.join(root, 'scripts', 'kconfig'), { recursive: true });
  return root;
}

function input(log: string, root = '/nonexistent'): RepairInput {
  const analysis = analyzeLog(log);
  if (!analysis.rootCause) throw new Error(`no root cause in: ${log}`);
  return {
    rootCause: analysis.rootCause,
    findings: analysis.findings,
    recipe: recipeFor(system('make', ''))!,
    fixes: emptyFixes(),
    repo: repoInfo({ root }),
    output: log,
  };
}

const knowledge = new RuleKnowledge();

/** The root cause's id and the first repair's rule and packages. */
async function firstRepair(log: string, root?: string) {
  const i = input(log, root);
  const [repair] = await knowledge.propose(i, services());
  return { id: i.rootCause.id, rule: repair?.rule, packages: repair?.packages };
}

const MAKE_127 = (target: string): string => `make[2]: *** [${target}] Error 127`;

describe('kernel build failures and their repairs', () => {
  it.each([
    [
      'flex',
      [
        '  LEX     scripts/kconfig/lexer.lex.c',
        '/bin/sh: 1: flex: not found',
        MAKE_127('scripts/Makefile.host:9: scripts/kconfig/lexer.lex.c'),
      ],
      'command-not-found-sh',
      'install-command-package',
      ['flex'],
    ],
    [
      'bison',
      [
        '  YACC    scripts/kconfig/parser.tab.[ch]',
        '/bin/sh: 1: bison: not found',
        MAKE_127('scripts/Makefile.host:17: scripts/kconfig/parser.tab.h'),
      ],
      'command-not-found-sh',
      'install-command-package',
      ['bison'],
    ],
    [
      'bc',
      [
        '  BC      include/generated/timeconst.h',
        '/bin/sh: 1: bc: not found',
        'make[1]: *** [Kbuild:24: include/generated/timeconst.h] Error 127',
      ],
      'command-not-found-sh',
      'install-command-package',
      ['bc'],
    ],
    [
      'cpio',
      [
        '  GEN     kernel/kheaders_data.tar.xz',
        '***',
        "*** 'cpio' could not be found.",
        '***',
        'make[2]: *** [kernel/Makefile:158: kernel/kheaders_data.tar.xz] Error 1',
      ],
      'kernel-command-not-found',
      'install-command-package',
      ['cpio'],
    ],
    [
      'cpio (Linux 6.1)',
      [
        '  GEN     kernel/kheaders_data.tar.xz',
        './kernel/gen_kheaders.sh: line 69: cpio: command not found',
        'make[2]: *** [kernel/Makefile:158: kernel/kheaders_data.tar.xz] Error 127',
      ],
      'command-not-found',
      'install-command-package',
      ['cpio'],
    ],
    [
      'libelf for the ORC unwinder',
      [
        'Makefile:1238: *** "Cannot generate ORC metadata for CONFIG_UNWINDER_ORC=y, please install libelf-dev, libelf-devel or elfutils-libelf-devel".  Stop.',
      ],
      'kernel-needs-package',
      'install-kernel-package',
      ['libelf-dev'],
    ],
    [
      'libelf for objtool (gelf.h)',
      [
        '  CC      /workspace/tools/objtool/libsubcmd/exec-cmd.o',
        'In file included from check.c:16:',
        'tools/objtool/include/objtool/elf.h:10:10: fatal error: gelf.h: No such file or directory',
        '   10 | #include <gelf.h>',
        'compilation terminated.',
        'make[4]: *** [tools/build/Makefile.build:97: /workspace/tools/objtool/check.o] Error 1',
      ],
      'kernel-tool-missing-libelf',
      'install-header-package',
      ['libelf-dev'],
    ],
    [
      'libssl (openssl/opensslv.h)',
      [
        '  HOSTCC  scripts/sign-file',
        'scripts/sign-file.c:25:10: fatal error: openssl/opensslv.h: No such file or directory',
        '   25 | #include <openssl/opensslv.h>',
        'compilation terminated.',
        'make[1]: *** [scripts/Makefile.host:104: scripts/sign-file] Error 1',
      ],
      'missing-header',
      'install-header-package',
      ['libssl-dev'],
    ],
  ])('%s', async (_what, lines, id, rule, packages) => {
    expect(await firstRepair(lines.join('\n'))).toEqual({ id, rule, packages });
  });

  it("answers -Werror in a kernel tree the kernel's way first, then with the compiler wrappers", async () => {
    const log = [
      '  CC      arch/x86/kernel/cpu/mce/core.o',
      "arch/x86/kernel/cpu/mce/core.c:1234:9: error: 'memcpy' reading 16 bytes from a region of size 0 [-Werror=stringop-overread]",
      'cc1: all warnings being treated as errors',
      'make[5]: *** [scripts/Makefile.build:250: arch/x86/kernel/cpu/mce/core.o] Error 1',
    ].join('\n');
    const tree = kernelTree();
    const [kernel, generic] = await knowledge.propose(input(log, tree), services());
    expect(kernel).toMatchObject({
      rule: 'kernel-no-werror',
      env: { KCFLAGS: '-Wno-error', HOSTCFLAGS: '-Wno-error' },
      prelude: [expect.stringContaining('scripts/config --file .config --disable WERROR')],
    });
    expect(generic).toMatchObject({ rule: 'drop-werror' });
    // the same log in a tree that is not a kernel: only the generic repair
    const [only, ...rest] = await knowledge.propose(input(log), services());
    expect([only?.rule, rest.map((r) => r.rule)]).toEqual(['drop-werror', []]);
  });

  it('knows a kernel tree by its files (never through a link) or by the task', async () => {
    expect(await isKernelTree({ repo: repoInfo({ root: kernelTree() }) })).toBe(true);
    const linked = mkdtempSync(path.join(dir, 'linked-'));
    symlinkSync(path.join(kernelTree(), 'Kbuild'), path.join(linked, 'Kbuild'));
    mkdirSync(path.join(linked, 'scripts', 'kconfig'), { recursive: true });
    expect(await isKernelTree({ repo: repoInfo({ root: linked }) })).toBe(false);
    expect(
      await isKernelTree({
        repo: repoInfo({ root: '/nonexistent' }),
        goal: {
          target: { command: 'true', cwd: '', timeoutMs: 1000, evidence: {} },
          requires: [],
          registries: { mode: 'auto', mirrors: {} },
          guest: { kind: 'kernel', image: 'arch/x86/boot/bzImage', pattern: 'x', withinMs: 1000 },
        },
      }),
    ).toBe(true);
  });

  it('never installs a package name a log line made up', async () => {
    const i = input('Cannot generate ORC metadata for CONFIG_UNWINDER_ORC=y, please install libelf-dev');
    const forged = { ...i.rootCause, captures: { package: 'libelf-dev; rm -rf /' } };
    const repairs = await knowledge.propose({ ...i, rootCause: forged, findings: [forged] }, services());
    expect(repairs).toEqual([]);
  });
});
