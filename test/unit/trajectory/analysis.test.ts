import { describe, it, expect } from '@jest/globals';

import { ConfigError } from '../../../src/base/errors.js';
import { renderScript } from '../../../src/recipe/render-turn.js';
import type { Recipe, RecipeFixes } from '../../../src/recipe/model.js';
import {
  analyzeTrajectory,
  classifyCommand,
  classifyRecovery,
  parsePhaseTable,
  PHASES,
  RECOVERIES,
  selfStopsOf,
  type AnalysisTurn,
} from '../../../src/trajectory/analysis.js';
import { splitScript } from '../../../src/trajectory/shell-split.js';

const turn = (n: number, script: string, exitCode: number | null = 0, timedOut = false): AnalysisTurn => ({
  turn: n,
  script,
  exitCode,
  timedOut,
});

describe('classifyCommand', () => {
  it.each([
    ['ls -la', 'inspect'],
    ['cat CMakeLists.txt', 'inspect'],
    ['grep -rn foo src', 'inspect'],
    ['find . -name "*.pc"', 'inspect'],
    ['pkg-config --list-all', 'inspect'],
    ['cmake --help', 'inspect'],
    ['./configure --help', 'inspect'],
    ['gcc --version', 'inspect'],
    ['sudo apt-get install -y libssl-dev', 'install'],
    ['DEBIAN_FRONTEND=noninteractive apt-get -y install zlib1g-dev', 'install'],
    ['python3 -m pip install meson', 'install'],
    ['npm ci', 'install'],
    ["bb_apt_install 'libfoo-dev'", 'install'],
    ["bb_need_tools 'cmake=cmake'", 'install'],
    ['cmake -S . -B build -DCMAKE_BUILD_TYPE=Release', 'configure'],
    ['cmake ..', 'configure'],
    ['./configure --prefix=/usr', 'configure'],
    ['../configure', 'configure'],
    ['meson setup build', 'configure'],
    ['autoreconf -fi', 'configure'],
    ['./bootstrap.sh', 'configure'],
    ['make -j4', 'build'],
    ['CFLAGS=-fcommon make', 'build'],
    ['timeout 600 make -C build', 'build'],
    ['ninja -C build', 'build'],
    ['cmake --build build -j"$(nproc)"', 'build'],
    ['cargo build --release', 'build'],
    ['gcc -O2 -o hello hello.c', 'build'],
    ['patch -p1 < fix.diff', 'patch'],
    ['git apply fix.patch', 'patch'],
    ['sed -i "s/-Werror//" Makefile', 'patch'],
    ['cat > src/config.h <<EOF', 'patch'],
    ['echo "#define X 1" >> config.h', 'patch'],
    ['ctest --output-on-failure', 'test'],
    ['make check', 'test'],
    ['make -C build test', 'test'],
    ['./build/jq --version', 'test'],
    ['./hello', 'test'],
    ['cd build', 'other'],
    ['mkdir -p build', 'other'],
    ["echo '### buildbench: build'", 'other'],
    ['echo x > /dev/null', 'other'],
    ['tee build.log', 'other'],
    ['BB_ROOT="$PWD"', 'other'],
  ])('%s → %s', (command, phase) => {
    expect(classifyCommand(command)).toBe(phase);
  });
});

describe('parsePhaseTable', () => {
  it('names the file and the field of a bad rule', () => {
    expect(() => parsePhaseTable('rules:\n  - phase: compile\n    when: make\n', 'p.yaml')).toThrow(
      new ConfigError('p.yaml: rules[0].phase: expected one of ' + PHASES.join(', ')),
    );
    expect(() => parsePhaseTable('rules:\n  - phase: build\n    when: "(("\n', 'p.yaml')).toThrow(
      /p\.yaml: rules\[0\]\.when: expected a valid regular expression/,
    );
    expect(() => parsePhaseTable('wrappers: 3\nrules: []\n', 'p.yaml')).toThrow(
      /p\.yaml: wrappers: expected a list/,
    );
  });

  it('is what classifyCommand uses', () => {
    const table = parsePhaseTable("rules:\n  - phase: test\n    when: '^make'\n", 't.yaml');
    expect(classifyCommand('make -j4', table)).toBe('test');
    expect(classifyCommand('ninja', table)).toBe('other');
  });
});

describe('analyzeTrajectory', () => {
  it('gives the phases of a rules turn (the shell library defined, not counted)', async () => {
    const recipe = {
      kind: 'cmake',
      dir: '.',
      tools: [{ command: 'cmake', pkg: 'cmake' }],
      steps: [
        { purpose: 'configure', command: 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Release @CONFIGURE_ARGS@' },
        { purpose: 'build', command: 'cmake --build build -j"$(nproc)"' },
      ],
    } as unknown as Recipe;
    const fixes: RecipeFixes = { packages: ['libssl-dev'], prelude: [], env: {}, configureArgs: [] };
    const script = renderScript(recipe, fixes);
    const split = await splitScript(script);
    expect(split.parser).toBe('sh-syntax');
    expect(split.functions).toContain('bb_apt_install');
    const analysis = await analyzeTrajectory({ turns: [turn(1, script)], claims: [], passed: true });
    expect(analysis.phases).toMatchObject({
      install: 2,
      configure: 1,
      build: 1,
      inspect: 0,
      patch: 0,
      test: 0,
    });
    expect(analysis.commands).toBe(split.commands.length);
    expect(analysis.failures).toBe(0);
  });

  it('gives the phases of a model-written script', async () => {
    const script = [
      'set -e',
      'ls -la && cat README.md | head -50',
      'apt-get update && apt-get install -y libjpeg-dev \\',
      '    libpng-dev',
      "sed -i 's/-Werror//g' src/Makefile.am",
      'autoreconf -fi && ./configure --disable-docs',
      'make -j"$(nproc)" 2>&1 | tail -20',
      './src/tool --version || echo "no version"',
    ].join('\n');
    const analysis = await analyzeTrajectory({ turns: [turn(1, script)], claims: [], passed: false });
    expect(analysis.phases).toEqual({
      inspect: 4,
      install: 2,
      configure: 2,
      build: 1,
      patch: 1,
      test: 1,
      other: 2,
    });
    expect(analysis.commands).toBe(13);
    expect(analysis.unparsed).toBe(0);
  });

  it('classifies each recovery kind after a failed turn', async () => {
    const build = 'cmake -S . -B build && cmake --build build';
    const analysis = await analyzeTrajectory({
      turns: [
        turn(1, build, 1),
        turn(2, 'ls build; cat build/CMakeFiles/CMakeError.log; grep -r ZLIB CMakeLists.txt'),
        turn(3, build, 2),
        turn(4, `apt-get install -y zlib1g-dev\n${build}`, 2),
        turn(5, `echo retry\napt-get install -y zlib1g-dev\n${build}`, null, true),
        turn(6, 'echo done'),
        turn(7, 'make', 2),
      ],
      claims: [],
      passed: false,
    });
    expect(analysis.failed).toEqual([
      { turn: 1, recovery: 'inspect' },
      { turn: 3, recovery: 'adapt' },
      { turn: 4, recovery: 'loop' },
      { turn: 5, recovery: 'other' },
      { turn: 7, recovery: 'abort' },
    ]);
    expect(analysis.failures).toBe(5);
    expect(analysis.recoveries).toEqual({ inspect: 1, adapt: 1, loop: 1, abort: 1, other: 1 });
  });

  it('answers zero turns with every phase and recovery at zero', async () => {
    const analysis = await analyzeTrajectory({ turns: [], claims: [], passed: false });
    expect(analysis).toEqual({
      commands: 0,
      phases: Object.fromEntries(PHASES.map((p) => [p, 0])),
      failures: 0,
      recoveries: Object.fromEntries(RECOVERIES.map((r) => [r, 0])),
      selfStops: { count: 0, correct: 0, wrong: 0 },
      failed: [],
      unparsed: 0,
    });
  });

  it('counts a script the parser rejects as unparsed, split by lines', async () => {
    const analysis = await analyzeTrajectory({
      turns: [turn(1, "echo 'oops\nmake")],
      claims: [],
      passed: false,
    });
    expect(analysis.unparsed).toBe(1);
    expect(analysis.commands).toBe(2);
  });
});

describe('classifyRecovery', () => {
  it('is a loop for the very same script, whatever it holds', () => {
    const same = { script: 'x', commands: [], phases: [] };
    expect(classifyRecovery(same, same)).toBe('loop');
  });

  it('is adapt for the same commands with different flags', () => {
    const failed = { script: 'a', commands: ['cmake -S . -B build'], phases: ['configure' as const] };
    const next = { script: 'b', commands: ['cmake -S . -B build -DFOO=OFF'], phases: ['configure' as const] };
    expect(classifyRecovery(failed, next)).toBe('adapt');
  });
});

describe('selfStopsOf', () => {
  it('is right for an accepted success that held, and for giving up on a run that did not pass', () => {
    expect(selfStopsOf([{ turn: 2, claim: 'success', accepted: true }], true)).toEqual({
      count: 1,
      correct: 1,
      wrong: 0,
    });
    expect(selfStopsOf([{ turn: 4, claim: 'impossible', accepted: true }], false)).toEqual({
      count: 1,
      correct: 1,
      wrong: 0,
    });
  });

  it('is wrong for a refused success, an accepted success the final checks failed, and giving up on a passing run', () => {
    const claims = [
      { turn: 1, claim: 'success', accepted: false },
      { turn: 3, claim: 'success', accepted: true },
    ];
    expect(selfStopsOf(claims, false)).toEqual({ count: 2, correct: 0, wrong: 2 });
    expect(selfStopsOf([{ turn: 2, claim: 'partial', accepted: true }], true)).toEqual({
      count: 1,
      correct: 0,
      wrong: 1,
    });
  });
});
