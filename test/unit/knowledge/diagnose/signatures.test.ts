import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../../../../src/base/errors.js';
import {
  CATEGORY_TIER,
  FINDING_CATEGORIES,
  defaultSignatureCatalog,
  parseSignatureCatalog,
  renderMessage,
} from '../../../../src/knowledge/diagnose/signatures.js';
import { NOISE_LINES, SIGNATURE_CASES } from './signature-cases.js';

const catalog = defaultSignatureCatalog();

function matchWithContext(line: string, before: string[] = []) {
  return catalog.match(line, (k) => before[before.length - k]);
}

describe('signature catalog (verifiers/signatures.yaml)', () => {
  it('loads with at least 45 signatures covering every category', () => {
    expect(catalog.signatures.length).toBeGreaterThanOrEqual(45);
    const categories = new Set(catalog.signatures.map((s) => s.category));
    for (const category of FINDING_CATEGORIES) expect(categories).toContain(category);
  });

  it('documents every signature: keywords, message, hint, captures', () => {
    for (const s of catalog.signatures) {
      expect(s.keywords.length).toBeGreaterThan(0);
      expect(s.message.length).toBeGreaterThan(0);
      expect(s.hint).toBeDefined();
      expect(Object.keys(s.captureDocs).sort()).toEqual([...s.captureNames].sort());
    }
  });

  it('marks every build-failed signature as a follow-up', () => {
    for (const s of catalog.signatures.filter((x) => x.category === 'build-failed'))
      expect(s.followUp).toBe(true);
  });

  it('has a test line for every signature', () => {
    const tested = new Set(SIGNATURE_CASES.map((c) => c.id));
    const untested = catalog.signatures.map((s) => s.id).filter((id) => !tested.has(id));
    expect(untested).toEqual([]);
  });
});

describe('signatures on real-world log lines', () => {
  it.each(SIGNATURE_CASES.map((c) => [c.id, c.line, c] as const))('%s: %s', (id, line, c) => {
    const m = matchWithContext(line, c.before);
    expect(m?.signature.id).toBe(id);
    expect(m?.captures).toMatchObject(c.captures ?? {});
    // Captures are only ever strings the pattern (or a look-back) declared.
    for (const name of Object.keys(m?.captures ?? {})) expect(m?.signature.captureNames).toContain(name);
  });

  it.each(NOISE_LINES.map((l) => [l]))('matches nothing on noise: %j', (line) => {
    expect(catalog.match(line)?.signature.id).toBeUndefined();
  });

  it('prefers the specific signature on a line that several match', () => {
    expect(catalog.match('g++: fatal error: Killed signal terminated program cc1plus')?.signature.id).toBe(
      'oom-killed-compiler',
    );
    expect(
      catalog.match('a.c:1:10: fatal error: sys/sysctl.h: No such file or directory')?.signature.id,
    ).toBe('glibc-sysctl-removed');
    expect(catalog.match('collect2: error: ld returned 1 exit status')?.signature.id).toBe('linker-failed');
    expect(
      catalog.match("terminate called after throwing an instance of 'std::bad_alloc'")?.signature.id,
    ).toBe('bad-alloc');
  });

  it('accepts GCC curly quotes and plain quotes alike', () => {
    const curly = catalog.match('x.cpp:3:5: error: ‘uint8_t’ does not name a type');
    const plain = catalog.match("x.cpp:3:5: error: 'uint8_t' does not name a type");
    expect(curly?.captures.type).toBe('uint8_t');
    expect(plain?.captures.type).toBe('uint8_t');
  });

  it('keeps every pattern fast on adversarial 4 KiB lines', () => {
    const nasty = [
      'a'.repeat(4096),
      ' '.repeat(4096),
      ':'.repeat(4096),
      'error: '.repeat(585),
      `fatal error: ${'x/'.repeat(2040)}`,
      `${'/'.repeat(2000)} Permission denied ${'a:'.repeat(1000)}`,
      `undefined reference to \`${'a'.repeat(4000)}`,
      `multiple definition of '${"'".repeat(4000)}`,
      `configure: error: ${'checking for '.repeat(300)}`,
      `${'1:'.repeat(2000)} error: x`,
      `relocation R_X ${'against '.repeat(500)}`,
      `Failed to connect to ${'a'.repeat(4000)}`,
      `ERROR: Program ['${'a'.repeat(4000)}`,
      `error: expected ${' before'.repeat(580)}`,
    ];
    for (const s of catalog.signatures) {
      for (const line of nasty) {
        const start = process.hrtime.bigint();
        s.regex.exec(line);
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        if (ms > 50)
          throw new Error(`${s.id} took ${ms.toFixed(1)} ms on ${JSON.stringify(line.slice(0, 40))}...`);
      }
    }
  });
});

describe('parseSignatureCatalog', () => {
  const minimal = (extra: string) => `version: 1
signatures:
  - id: demo
    category: compile-error
    pattern: 'boom (?<what>\\w+)'
    keywords: [boom]
    captures: { what: the thing }
    message: 'boom {what}'
${extra}`;

  it('compiles a minimal catalog with defaults', () => {
    const c = parseSignatureCatalog(minimal(''));
    const s = c.byId.get('demo');
    expect(s?.priority).toBe(50);
    expect(s?.tier).toBe(CATEGORY_TIER['compile-error']);
    expect(c.match('it went boom loudly')?.captures).toEqual({ what: 'loudly' });
    expect(c.match('it went bang')).toBeUndefined();
  });

  it.each([
    ['a bad regex', minimal('').replace("'boom (?<what>\\w+)'", "'boom (?<what>'")],
    ['an undocumented capture', minimal('').replace('captures: { what: the thing }', 'captures: {}')],
    [
      'a documented capture the pattern lacks',
      minimal('').replace('{ what: the thing }', '{ what: x, other: y }'),
    ],
    ['an unknown category', minimal('').replace('compile-error', 'kaboom')],
    ['a message placeholder that is no capture', minimal('').replace("'boom {what}'", "'boom {nope}'")],
    ['missing keywords', minimal('').replace('    keywords: [boom]\n', '')],
    ['the g flag', minimal('    flags: g')],
    ['an unknown field', minimal('    colour: red')],
    [
      'a duplicate id',
      `${minimal('')}  - id: demo\n    category: oom\n    pattern: x\n    keywords: [x]\n    message: x\n`,
    ],
    ['a bad followUpAfter', minimal('    followUpAfter: [nothing-like-this]')],
    ['an unknown macro', minimal('').replace("'boom (?<what>\\w+)'", "'{{nope}} (?<what>\\w+)'")],
    ['a wrong version', minimal('').replace('version: 1', 'version: 2')],
    ['not YAML', 'signatures: [unclosed'],
  ])('rejects %s with a ConfigError', (_what, text) => {
    expect(() => parseSignatureCatalog(text)).toThrow(ConfigError);
  });

  it('expands macros and runs look-backs nearest first', () => {
    const c = parseSignatureCatalog(`version: 1
macros: { word: '[a-z]+' }
signatures:
  - id: tail
    category: configure-error
    pattern: 'failed: (?<reason>{{word}})'
    keywords: ['failed:']
    lookbehind:
      - { pattern: 'step (?<step>\\d+)', lines: 3 }
    captures: { reason: why, step: which step }
    message: 'step {step|?} failed: {reason}'
`);
    const before = ['step 1', 'step 2', 'noise'];
    const m = c.match('failed: disk', (k) => before[before.length - k]);
    expect(m?.captures).toEqual({ reason: 'disk', step: '2' });
    expect(c.maxLookbehind).toBe(3);
  });

  it('takes the earliest line of a look-back with pick: earliest, never reading more than `lines` lines', () => {
    const c = parseSignatureCatalog(`version: 1
signatures:
  - id: tail
    category: configure-error
    pattern: 'failed: (?<reason>\\w+)'
    keywords: ['failed:']
    lookbehind:
      - { pattern: 'step (?<step>\\d+)', lines: 3, pick: earliest }
    captures: { reason: why, step: which step }
    message: 'step {step|?} failed: {reason}'
`);
    const before = ['step 0', 'step 1', 'step 2', 'noise'];
    const read: number[] = [];
    const m = c.match('failed: disk', (k) => {
      read.push(k);
      return before[before.length - k];
    });
    expect(m?.captures).toEqual({ reason: 'disk', step: '1' });
    expect(read).toEqual([1, 2, 3]);
    expect(() =>
      parseSignatureCatalog(
        `version: 1\nsignatures:\n  - { id: x, category: oom, pattern: x, keywords: [x], message: x, lookbehind: [{ pattern: y, lines: 2, pick: last }] }\n`,
      ),
    ).toThrow(ConfigError);
  });

  it('lets `unless:` veto a line the pattern matches (what a lookahead said)', () => {
    const c = parseSignatureCatalog(`version: 1
signatures:
  - id: common
    category: link-error
    pattern: 'multiple definition of (?<symbol>\\w+)'
    unless: '\\((?:\\.text|\\.data)'
    keywords: ['multiple definition of']
    captures: { symbol: the symbol }
    message: 'multiple definition of {symbol}'
`);
    expect(c.match('a.o: multiple definition of counter')?.captures).toEqual({ symbol: 'counter' });
    expect(c.match('a.o:(.text+0x0): multiple definition of main')).toBeUndefined();
    expect(
      catalog.match(
        "/usr/bin/ld: b.o:(.data+0x0): multiple definition of `x'; a.o:(.data+0x0): first defined here",
      )?.signature.id,
    ).toBe('multiple-definition');
  });
});

describe('renderMessage', () => {
  it('fills captures, fallbacks and optional prefixes', () => {
    expect(renderMessage('missing header {header}', { header: 'zlib.h' })).toBe('missing header zlib.h');
    expect(renderMessage('no CMakeLists.txt in {path|the source directory}', {})).toBe(
      'no CMakeLists.txt in the source directory',
    );
    expect(renderMessage('DNS lookup failed{host? for }', { host: 'x.org' })).toBe(
      'DNS lookup failed for x.org',
    );
    expect(renderMessage('DNS lookup failed{host? for }', {})).toBe('DNS lookup failed');
  });

  it('keeps messages short', () => {
    const text = renderMessage('error: {e}', { e: 'x'.repeat(1000) });
    expect(text.length).toBeLessThanOrEqual(300);
  });
});
