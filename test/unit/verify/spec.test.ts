import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  loadSpec,
  parseSpec,
  parseSpecDuration,
  prepareSpec,
  SPEC_KEYS,
  SpecError,
} from '../../../src/verify/spec.js';

const FIXTURES = path.resolve('test/fixtures/specs');

function issuesOf(text: string): string[] {
  try {
    parseSpec(text, 'spec.yml');
  } catch (error) {
    if (error instanceof SpecError) return error.message.split('\n');
    throw error;
  }
  throw new Error('expected the spec to be rejected');
}

describe('layer-2 spec', () => {
  it('reads every kind of check, with defaults filled in', async () => {
    const spec = await loadSpec(path.join(FIXTURES, 'valid.yml'));
    expect(spec).toMatchObject({
      name: 'hello-serves',
      hidden: false,
      probes: { run: true, debugInfo: false },
    });
    const [greets, serves, boots] = spec.checks;
    expect(greets).toMatchObject({
      name: 'greets',
      command: './build/hello --name world > out.txt',
      cwd: '.',
      timeoutMs: 90_000,
      env: { GREETING: 'hi', COUNT: '3' },
      line: 6,
      expect: {
        exitCode: [0, 1],
        files: [
          { path: 'out.txt', nonEmpty: false, newerThanStart: false },
          { path: 'build/hello', nonEmpty: true, newerThanStart: false },
        ],
        stdout: ['hello, world'],
        stderrNot: ['error:', 'warning:'],
      },
    });
    // a server keeps running: its exit code is not checked unless asked for
    expect(serves?.expect).toMatchObject({ port: { port: 8080, host: '127.0.0.1', withinMs: 20_000 } });
    expect(serves?.expect.exitCode).toBeUndefined();
    expect(serves?.timeoutMs).toBe(60_000);
    expect(boots?.expect).toMatchObject({
      serialLog: { path: 'guest.log', pattern: 'login:', withinMs: 120_000 },
      gpu: { pattern: 'cuda:\\d' },
    });
    expect(boots?.timeoutMs).toBe(600_000);
  });

  it('names the file, the line and the field of a typo, and suggests the right name', () => {
    const file = path.join(FIXTURES, 'typo.yml');
    let error: unknown;
    try {
      parseSpec(readFileSync(file, 'utf8'), file);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SpecError);
    expect((error as SpecError).issues).toEqual([
      {
        file,
        line: 7,
        field: 'checks[0].expect.exit_cod',
        message: "unknown field (did you mean 'exit_code'?)",
      },
    ]);
    expect((error as Error).message).toBe(
      `${file}:7: checks[0].expect.exit_cod: unknown field (did you mean 'exit_code'?)`,
    );
  });

  it('reports wrong types with the line of the value', () => {
    const text = [
      'checks:', // 1
      '  - name: a', // 2
      '    command: "true"', // 3
      '  - name: b', // 4
      '    command: run', // 5
      '    expect:', // 6
      '      exit_code: zero', // 7
      '      files: [{ non_empty: yes }]', // 8
      '      stdout: "(unclosed"', // 9
      '      port: 70000', // 10
      '    timeout: soon', // 11
    ].join('\n');
    expect(issuesOf(text)).toEqual([
      "spec.yml:7: checks[1].expect.exit_code: expected an integer from 0 to 255, a list of them, or 'any'",
      'spec.yml:8: checks[1].expect.files[0].path: required field missing',
      expect.stringMatching(/^spec\.yml:9: checks\[1\]\.expect\.stdout: not a valid regular expression: /),
      'spec.yml:10: checks[1].expect.port: expected an integer from 1 to 65535',
      'spec.yml:11: checks[1].timeout: expected a duration: seconds or a value like 500ms, 30s, 2m',
    ]);
  });

  it('rejects missing commands, duplicate names, bad env names, bad versions and empty specs', () => {
    expect(issuesOf('version: 2\nchecks:\n  - name: x\n')).toEqual([
      'spec.yml:1: version: expected 1 (the only spec version)',
      'spec.yml:3: checks[0].command: required field missing',
    ]);
    expect(
      issuesOf('checks:\n  - { name: x, command: a }\n  - { name: x, command: b, env: { 1X: y } }\n'),
    ).toEqual([
      "spec.yml:3: checks[1].name: another check is already named 'x'",
      'spec.yml:3: checks[1].env.1X: variable names must match [A-Za-z_][A-Za-z0-9_]*',
    ]);
    expect(issuesOf('name: nothing\n')).toEqual([
      'spec.yml:1: checks: a spec needs at least one check or a required probe',
    ]);
    expect(issuesOf('- just a list\n')).toEqual([
      'spec.yml:1: expected a spec (a mapping of version, name, description, hidden, probes, checks)',
    ]);
  });

  it('reports YAML syntax errors with their line', () => {
    expect(issuesOf('checks:\n  - name: a\n\tcommand: x\n')).toEqual([
      'spec.yml:3: not valid YAML: Tabs are not allowed as indentation',
    ]);
    expect(issuesOf('checks:\n  - name: a\n    command: [unclosed\n')[0]).toMatch(
      /^spec\.yml:\d: not valid YAML: /,
    );
    expect(issuesOf('name: a\nname: b\nchecks: [{ command: x }]\n')).toEqual([
      'spec.yml:2: name: given twice',
    ]);
  });

  it('parses durations', () => {
    expect(parseSpecDuration(5)).toBe(5000);
    expect(parseSpecDuration('1.5')).toBe(1500);
    expect(parseSpecDuration('500ms')).toBe(500);
    expect(parseSpecDuration('1m30s')).toBe(90_000);
    expect(parseSpecDuration('2 minutes')).toBeUndefined();
    expect(parseSpecDuration(0)).toBeUndefined();
  });

  it('keeps a hidden spec out of memory until the harness loads it', async () => {
    const dir = FIXTURES;
    expect(await prepareSpec(undefined)).toEqual({});
    expect((await prepareSpec(path.join(dir, 'valid.yml'))).visible?.name).toBe('hello-serves');
    const hidden = path.join(dir, 'hidden.yml');
    expect(await prepareSpec(hidden)).toEqual({ hiddenFile: hidden });
    await expect(prepareSpec(path.join(dir, 'typo.yml'))).rejects.toThrow(/typo\.yml:7: /);
    await expect(prepareSpec(path.join(dir, 'missing.yml'))).rejects.toThrow(/--spec: cannot read/);
  });

  it('reads metrics expectations: a JSON file, a dotted key, optional bounds', () => {
    const spec = parseSpec(
      [
        'checks:',
        '  - command: ./run',
        '    expect:',
        '      metrics:',
        '        - { file: out/results.json, key: eval.top1, min: 0.7, max: 1 }',
        '        - { file: r.json, key: runs.0.loss }',
      ].join('\n'),
      'spec.yml',
    );
    expect(spec.checks[0]!.expect.metrics).toEqual([
      { file: 'out/results.json', key: 'eval.top1', min: 0.7, max: 1 },
      { file: 'r.json', key: 'runs.0.loss' },
    ]);
    expect(parseSpec('checks:\n  - command: x\n', 'spec.yml').checks[0]!.expect.metrics).toEqual([]);
  });

  it('names the file, the line and the field of a bad metrics expectation', () => {
    expect(
      issuesOf(
        [
          'checks:',
          '  - command: ./run',
          '    expect:',
          '      metrics:',
          '        - { file: r.json, key: a, min: 2, max: 1 }',
          '        - { key: a }',
          "        - { file: r.json, key: 'a..b', mx: 1 }",
          '        - { file: r.json, key: a, min: high }',
        ].join('\n'),
      ),
    ).toEqual([
      'spec.yml:5: checks[0].expect.metrics[0].min: min (2) is greater than max (1)',
      'spec.yml:6: checks[0].expect.metrics[1].file: required field missing',
      "spec.yml:7: checks[0].expect.metrics[2].mx: unknown field (did you mean 'max'?)",
      "spec.yml:7: checks[0].expect.metrics[2].key: expected a dotted path such as 'eval.accuracy' or 'runs.0.loss'",
      'spec.yml:8: checks[0].expect.metrics[3].min: expected a number',
    ]);
    expect(issuesOf('checks:\n  - command: x\n    expect:\n      metrics: { file: r.json }\n')).toEqual([
      'spec.yml:4: checks[0].expect.metrics: expected a list of { file, key, min, max }',
    ]);
  });

  it('accepts the same fields as the JSON schema in verifiers/', () => {
    const schema = JSON.parse(readFileSync('verifiers/layer2-spec.schema.json', 'utf8')) as {
      properties: Record<string, { properties?: Record<string, unknown> }>;
      $defs: Record<
        string,
        {
          properties?: Record<
            string,
            { properties?: Record<string, unknown>; oneOf?: { properties?: Record<string, unknown> }[] }
          >;
          oneOf?: { properties?: Record<string, unknown> }[];
        }
      >;
    };
    const keys = (o: Record<string, unknown> | undefined): string[] => Object.keys(o ?? {}).sort();
    const sorted = (k: readonly string[]): string[] => [...k].sort();
    expect(keys(schema.properties)).toEqual(sorted(SPEC_KEYS.top));
    expect(keys(schema.properties.probes?.properties)).toEqual(sorted(SPEC_KEYS.probes));
    const check = schema.$defs.check!.properties!;
    expect(keys(check)).toEqual(sorted(SPEC_KEYS.check));
    const expectation = check.expect!.properties as Record<
      string,
      { properties?: Record<string, unknown>; oneOf?: { properties?: Record<string, unknown> }[] }
    >;
    expect(keys(expectation)).toEqual(sorted(SPEC_KEYS.expect));
    expect(keys(expectation.serial_log!.properties)).toEqual(sorted(SPEC_KEYS.serial_log));
    expect(keys(expectation.port!.oneOf![1]!.properties)).toEqual(sorted(SPEC_KEYS.port));
    expect(keys(expectation.gpu!.oneOf![1]!.properties)).toEqual(sorted(SPEC_KEYS.gpu));
    expect(keys(schema.$defs.file!.oneOf![1]!.properties)).toEqual(sorted(SPEC_KEYS.file));
    expect(keys(schema.$defs.metric!.properties)).toEqual(sorted(SPEC_KEYS.metric));
  });
});
