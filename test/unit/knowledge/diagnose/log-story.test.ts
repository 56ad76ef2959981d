/**
 * A log's story, not its loudest line (issue 30): the root cause is the earliest line that explains the later
 * ones, and the later ones are said to be its symptoms — a warning that predicts the error (an incompatible
 * library skipped before `cannot find -lgcc`; an implicit declaration before the undefined reference to the same
 * function) — while a warning that explains nothing later never becomes the root cause.
 */
import { describe, expect, it } from '@jest/globals';
import { diagnoseLog, type Diagnosis } from '../../../../src/knowledge/diagnose/diagnosis.js';
import { analyzeLog } from '../../../../src/knowledge/diagnose/log-parser.js';
import { compileCatalog } from '../../../../src/knowledge/diagnose/signatures.js';

const found = (d: Diagnosis): Extract<Diagnosis, { found: true }> => {
  if (!d.found) throw new Error(`found nothing: ${d.kind}: ${d.reason}`);
  return d;
};

const IMPLICIT_THEN_UNDEFINED = [
  'gcc -O2 -Wall -c roots.c',
  "roots.c: In function 'main':",
  "roots.c:5:20: warning: implicit declaration of function 'cbrt' [-Wimplicit-function-declaration]",
  '    5 |   printf("%f\\n", cbrt(x));',
  '      |                    ^~~~',
  'gcc -o roots roots.o',
  "/usr/bin/ld: roots.o: in function `main':",
  "roots.c:(.text+0x2a): undefined reference to `cbrt'",
  'collect2: error: ld returned 1 exit status',
  'make: *** [Makefile:4: roots] Error 1',
].join('\n');

describe('the root cause is the line that explains the later ones', () => {
  it('an implicit declaration before the undefined reference to the same function is the root cause', async () => {
    const d = found(await diagnoseLog(IMPLICIT_THEN_UNDEFINED));
    expect(d.rootCause.id).toBe('implicit-declaration-warning');
    expect(d.rootCause.symptoms?.map((s) => s.line)).toEqual([8]);
    // the fix is the one the engine applies for the undefined reference: link the library
    expect(d.fix?.rule).toBe('link-toolchain-library');
    expect(d.fix?.commands?.join('\n')).toContain('LDLIBS="$LDLIBS -lm"');
  });

  it('an undefined reference to another function leaves the warning out of the story', () => {
    const log = IMPLICIT_THEN_UNDEFINED.replace("reference to `cbrt'", "reference to `pthread_create'");
    expect(analyzeLog(log).rootCause?.id).toBe('undefined-reference');
  });

  it('an implicit declaration alone, in a build that failed for another reason, is never the root cause', () => {
    const log = [
      "util.c:12:3: warning: implicit declaration of function 'legacy_init' [-Wimplicit-function-declaration]",
      'main.c:3:10: fatal error: zlib.h: No such file or directory',
      'compilation terminated.',
      'make: *** [Makefile:7: main.o] Error 1',
    ].join('\n');
    expect(analyzeLog(log).rootCause?.id).toBe('missing-header');
  });

  it('the warning is found even when the undefined reference comes many lines later (it has settled by then)', () => {
    const filler = Array.from({ length: 200 }, (_, i) => `gcc -O2 -c file${i}.c`);
    const lines = IMPLICIT_THEN_UNDEFINED.split('\n');
    const log = [...lines.slice(0, 5), ...filler, ...lines.slice(5)].join('\n');
    const analysis = analyzeLog(log);
    expect(analysis.rootCause?.id).toBe('implicit-declaration-warning');
    expect(analysis.findings.find((f) => f.id === 'undefined-reference')?.followUp).toBe(true);
  });

  it('a skipped 64-bit libgcc before `cannot find -lgcc` is the root cause, the missing library its symptom', async () => {
    const d = found(
      await diagnoseLog(
        [
          'gcc -m32 -o sum32 sum32.c',
          '/usr/bin/ld: skipping incompatible /usr/lib/gcc/x86_64-linux-gnu/12/libgcc.a when searching for -lgcc',
          '/usr/bin/ld: cannot find -lgcc: No such file or directory',
          'collect2: error: ld returned 1 exit status',
        ].join('\n'),
      ),
    );
    expect(d.rootCause.id).toBe('multilib-toolchain-skipped');
    expect(d.rootCause.symptoms?.map((s) => s.line)).toEqual([3]);
    expect(d.fix?.packages).toContain('gcc-multilib');
  });
});

describe('a failed fetch before a missing file', () => {
  const fetchThenUnpack = (failure: string): string =>
    [
      '$ scripts/install-samtools.sh',
      '+ wget https://example.org/releases/samtools-1.9.tar.bz2',
      '--2020-10-13 18:53:12--  https://example.org/releases/samtools-1.9.tar.bz2',
      'Connecting to example.org (example.org)|93.184.216.34|:443... connected.',
      failure,
      '+ tar xjf samtools-1.9.tar.bz2',
      'tar (child): samtools-1.9.tar.bz2: Cannot open: No such file or directory',
      'tar (child): Error is not recoverable: exiting now',
      'make: *** [Makefile:12: deps] Error 2',
      '##[error]Process completed with exit code 2.',
    ].join('\n');

  it('a URL that is gone (404) is the root cause, the archive that never came its symptom', async () => {
    const d = found(await diagnoseLog(fetchThenUnpack('2020-10-13 18:53:12 ERROR 404: Not Found.')));
    expect(d.rootCause.id).toBe('download-not-found');
    expect(d.rootCause.symptoms?.map((s) => s.line)).toEqual([7]);
  });

  it('a transient failure (429) makes the whole failure flaky: not a build problem', async () => {
    const d = await diagnoseLog(fetchThenUnpack('2020-10-13 18:53:12 ERROR 429: too many requests.'));
    expect(d).toMatchObject({ found: false, kind: 'flaky-network' });
  });

  it('without a failed fetch before it, the missing archive is the root cause', () => {
    const log = fetchThenUnpack('HTTP request sent, awaiting response... 200 OK');
    expect(analyzeLog(log).rootCause?.id).toBe('archive-cannot-open');
  });
});

describe('the catalog checks symptomOf', () => {
  const base = {
    category: 'link-error' as const,
    keywords: ['x'],
    message: 'm',
    repair: { owner: 'model' as const, why: 'w' },
  };
  it('refuses a symptomOf naming a signature that is not latent, or a capture one of them lacks', () => {
    const spec = (latent: boolean, capture: string) => ({
      version: 1,
      signatures: [
        { ...base, id: 'cause', pattern: 'w (?<symbol>\\w+)', captures: { symbol: 's' }, latent },
        {
          ...base,
          id: 'effect',
          pattern: 'e (?<symbol>\\w+)',
          captures: { symbol: 's' },
          symptomOf: { id: 'cause', capture },
        },
      ],
    });
    expect(() => compileCatalog(spec(false, 'symbol'))).toThrow(
      /symptomOf "cause" is not a latent signature/,
    );
    expect(() => compileCatalog(spec(true, 'name'))).toThrow(/capture "name" is not a capture of "effect"/);
    expect(() => compileCatalog(spec(true, 'symbol'))).not.toThrow();
  });
});
