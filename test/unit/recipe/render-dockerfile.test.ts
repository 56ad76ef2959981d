import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { fullSequenceRecipe, minimiseRecipe } from '../../../src/finalize/minimise.js';
import { renderBuildSh } from '../../../src/recipe/render-buildsh.js';
import { DOCKER_WRAPPERS, renderDockerfile } from '../../../src/recipe/render-dockerfile.js';
import { parseDockerfile } from '../../helpers/dockerfile.js';
import { scriptRecipe, turn } from '../finalize/helpers.js';

const META = { repo: 'demo', version: '9.9.9', baseImage: 'debian:bookworm' };

describe('renderDockerfile', () => {
  it('is FROM the sandbox image, installs the packages, copies the repository, applies patches and RUNs each step', () => {
    const recipe = minimiseRecipe(
      [
        turn(0, {
          passed: true,
          recipe: scriptRecipe({
            packages: ['zlib1g-dev'],
            tools: [{ command: 'qmake', pkg: 'qtbase5-dev qt5-qmake' }],
            prelude: ["git config --global --add safe.directory '*'"],
            env: { BB_EXTRA_CFLAGS: '-fcommon', TRICKY: 'a "b" $c \\d' },
            steps: [
              { purpose: 'configure', command: 'qmake app.pro' },
              { purpose: 'build', command: 'make -j"${BB_JOBS:-$(nproc)}"' },
            ],
          }),
        }),
      ],
      { patches: ['patches/0001-fix.patch', 'patches/0002-more.patch'] },
    )!;
    const text = renderDockerfile(recipe, META);
    const parsed = parseDockerfile(text);
    expect(parsed.errors).toEqual([]);
    const names = parsed.instructions.map((i) => i.name);
    expect(names.slice(0, 6)).toEqual(['ARG', 'FROM', 'ARG', 'SHELL', 'ENV', 'RUN']);
    expect(parsed.instructions.find((i) => i.name === 'ARG')!.args).toBe('BASE_IMAGE=debian:bookworm');
    expect(text).toContain('for p in qtbase5-dev qt5-qmake zlib1g-dev patch; do');
    expect(names).toContain('COPY');
    const runs = parsed.instructions.filter((i) => i.name === 'RUN').map((i) => i.args);
    expect(runs).toContain('qmake app.pro');
    expect(runs).toContain('make -j"${BB_JOBS:-$(nproc)}"');
    expect(runs.some((r) => r.includes('patches/0001-fix.patch patches/0002-more.patch'))).toBe(true);
    expect(text).toContain('ENV TRICKY="a \\"b\\" \\$c \\\\d"');
    expect(text).toContain('ENV PATH=/opt/buildbench/bin:$PATH');
    // Packages are installed before the COPY, the steps run after it.
    const copy = parsed.instructions.findIndex((i) => i.name === 'COPY');
    expect(parsed.instructions.findIndex((i) => i.args.startsWith('missing=""'))).toBeLessThan(copy);
    expect(parsed.instructions.findIndex((i) => i.args === 'qmake app.pro')).toBeGreaterThan(copy);
  });

  it('RUNs build.sh for a full sequence and for multi-line steps', () => {
    const full = fullSequenceRecipe([turn(0, { exitCode: 1 }), turn(1, { passed: true })])!;
    const text = renderDockerfile(full, META);
    expect(parseDockerfile(text).errors).toEqual([]);
    expect(text).toContain('RUN bash "$RECIPE_DIR/build.sh" /src');
    expect(text).not.toContain('patch -p1');
    const multi = minimiseRecipe([turn(0, { passed: true, script: 'a\nb' })])!;
    expect(renderDockerfile(multi, META)).toContain('RUN bash "$RECIPE_DIR/build.sh" /src');
  });

  it("writes the compiler wrappers with build.sh's copy of the shell library function", () => {
    const recipe = minimiseRecipe([
      turn(0, {
        passed: true,
        recipe: scriptRecipe({
          env: { BB_EXTRA_CFLAGS: '-fcommon' },
          steps: [{ purpose: 'build', command: 'make' }],
        }),
      }),
    ])!;
    const text = renderDockerfile(recipe, META);
    const runs = parseDockerfile(text)
      .instructions.filter((i) => i.name === 'RUN')
      .map((i) => i.args);
    expect(runs).toContain(DOCKER_WRAPPERS);
    expect(text).toContain('ENV BB_WRAPPER_DIR=/opt/buildbench/bin');
    // Run that RUN line as the image would, against the build.sh of the same recipe.
    const dir = mkdtempSync(path.join(tmpdir(), 'bb-docker-'));
    mkdirSync(path.join(dir, '.buildbench'));
    writeFileSync(path.join(dir, '.buildbench', 'build.sh'), renderBuildSh(recipe, META));
    const bin = path.join(dir, 'fake-bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'cc'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(bin, 'cc'), 0o755);
    const wrappers = path.join(dir, 'wrappers');
    const result = spawnSync('bash', ['-o', 'pipefail', '-c', DOCKER_WRAPPERS], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: `${bin}:/usr/bin:/bin`,
        RECIPE_DIR: '.buildbench',
        BB_WRAPPER_DIR: wrappers,
        BB_EXTRA_CFLAGS: '-fcommon',
      },
    });
    expect(result.status).toBe(0);
    expect(readFileSync(path.join(wrappers, 'cc'), 'utf8')).toBe(
      `#!/bin/sh\nexec ${path.join(bin, 'cc')} "$@" -fcommon\n`,
    );
    rmSync(dir, { recursive: true, force: true });
  });
});
