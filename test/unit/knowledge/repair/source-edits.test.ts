/**
 * A repair's source edit as data (issue 30: "the patch as a diff"): the edit the diagnosis applies to a file given
 * with --file is the edit the engine's shell line makes in the sandbox. Each rule that edits sources (removed glibc
 * APIs and headers, removed Python names) is run both ways over the same sources — its prelude by bash, sed and
 * python3, its `edits` by source-edits.ts — and the results must be equal.
 */
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { diagnoseLog, type Diagnosis } from '../../../../src/knowledge/diagnose/diagnosis.js';
import { loadLegacyApis } from '../../../../src/knowledge/diagnose/legacy-apis.js';
import type { Finding } from '../../../../src/knowledge/diagnose/types.js';
import { defaultPythonMigrations } from '../../../../src/knowledge/repair/python-migrations.js';
import type { Repair, RepairInput } from '../../../../src/knowledge/repair/repair.js';
import { GLIBC_RULES } from '../../../../src/knowledge/repair/rules/glibc.js';
import { migrationRepair } from '../../../../src/knowledge/repair/rules/legacy-apis.js';
import { migrationRepair as pythonMigrationRepair } from '../../../../src/knowledge/repair/rules/python.js';
import type { RuleContext } from '../../../../src/knowledge/repair/rules/rule.js';
import {
  applyEdit,
  applyEdits,
  editApplies,
  editsDiff,
  type SourceEdit,
} from '../../../../src/knowledge/repair/source-edits.js';

const C_SOURCE = [
  '#include <stdio.h>',
  '  #  include <sys/sysctl.h>',
  '#include <xlocale.h>',
  '#include <stropts.h>',
  '',
  'void report(int e, int sig) {',
  '  printf("%s %s\\n", sys_errlist[e], _sys_errlist[e + 1]);',
  '  printf("%s\\n", sys_siglist[sig]);',
  '  kill(0, SIGUNUSED); /* not MYSIGUNUSED */',
  '}',
  '',
].join('\n');

const PY_SOURCE = [
  'import collections',
  'import numpy as np',
  '    from collections import Mapping',
  'from collections import OrderedDict',
  'import scipy.misc',
  'from scipy.misc import comb, logsumexp as lse  # moved',
  'from scipy.misc import comb, imread',
  '',
  'def f(x):',
  '    if isinstance(x, collections.Sequence):',
  '        return np.float(x[0]) + numpy.int(1) + np.float64(2)',
  '    return np.bool_(x)',
  '',
  'def g(n):',
  '    return scipy.misc.factorial(n) / scipy.misc.comb(n, 2) + lse([n, 1])',
  '',
].join('\n');

/** The file `name` with `content`, after `commands` ran over its folder with bash (as a prelude runs in a sandbox). */
function runPrelude(commands: readonly string[], name: string, content: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'bb-edits-'));
  try {
    writeFileSync(path.join(dir, name), content);
    for (const command of commands)
      execFileSync('bash', ['--norc', '-c', command], { cwd: dir, stdio: 'pipe' });
    return readFileSync(path.join(dir, name), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const finding: Finding = {
  id: 'x',
  category: 'toolchain-drift',
  message: 'x',
  captures: {},
  line: 1,
  excerpt: '',
};
const input = {} as RepairInput;
const context = {} as RuleContext;

/** Every rule's repair that edits C or C++ sources and carries its edit as data. */
async function cRepairs(): Promise<Repair[]> {
  const repairs = loadLegacyApis()
    .filter((api) => api.patch)
    .map((api) => migrationRepair(api));
  // the header guards (the Sun RPC rule reads the recipe, and edits no source)
  for (const rule of GLIBC_RULES.filter((r) => !r.ids.includes('glibc-rpc-removed')))
    repairs.push(...(await rule.propose(finding, input, context)));
  return repairs.filter((r) => r.edits?.length);
}

function pythonRepairs(): Repair[] {
  const table = defaultPythonMigrations();
  return table.flatMap((m) => pythonMigrationRepair(m.module, Object.keys(m.names)[0]!, table));
}

describe('a source edit as data is the edit the prelude makes', () => {
  it('C and C++: every removed-API migration and removed-header guard, run by sed and by the diagnosis', async () => {
    const repairs = await cRepairs();
    // sys_errlist, sys_siglist, SIGUNUSED, and the sysctl.h, xlocale.h and stropts.h guards
    expect(repairs.length).toBeGreaterThanOrEqual(6);
    for (const repair of repairs) {
      const bySed = runPrelude(repair.prelude ?? [], 'report.c', C_SOURCE);
      const [byData] = applyEdits(repair.edits!, [{ path: 'src/report.c', content: C_SOURCE }]);
      expect({ rule: repair.key, text: byData?.after }).toEqual({ rule: repair.key, text: bySed });
      expect(bySed).not.toBe(C_SOURCE);
    }
  });

  it('Python: every documented migration, run by the migration program and by the diagnosis', () => {
    const repairs = pythonRepairs();
    expect(repairs.length).toBeGreaterThanOrEqual(3);
    for (const repair of repairs) {
      const byPython = runPrelude(repair.prelude ?? [], 'model.py', PY_SOURCE);
      const [byData] = applyEdits(repair.edits!, [{ path: 'model.py', content: PY_SOURCE }]);
      expect({ rule: repair.key, text: byData?.after }).toEqual({ rule: repair.key, text: byPython });
      expect(byPython).not.toBe(PY_SOURCE);
    }
  });
});

describe('applyEdit', () => {
  const sed = (pattern: string, replacement: string, extra: Partial<SourceEdit> = {}): SourceEdit => ({
    extensions: ['.c'],
    pattern,
    replacement,
    style: 'sed',
    ...extra,
  });

  it("reads sed's replacement: \\1, & and an escaped &", () => {
    expect(applyEdit(sed('f\\(([a-z]+)\\)', 'g(\\1, &, \\&)'), 'x = f(ab);')).toBe('x = g(ab, f(ab), &);');
  });

  it('adds the include once, only to a file it changed', () => {
    const edit = sed('\\bold_call\\b', 'new_call', { include: 'string.h' });
    expect(applyEdit(edit, 'old_call();\n')).toBe('#include <string.h>\nnew_call();\n');
    expect(applyEdit(edit, '# include <string.h>\nold_call();\n')).toBe(
      '# include <string.h>\nnew_call();\n',
    );
    expect(applyEdit(edit, 'nothing here\n')).toBeUndefined();
  });

  it('is undefined for a pattern RE2 cannot run, never a throw', () => {
    expect(applyEdit(sed('(a)\\1', 'b'), 'aa')).toBeUndefined();
  });

  it('applies to the endings and the base names the edit names', () => {
    const edit = sed('x', 'y', { extensions: ['.c', '.h'], names: ['misc.c'] });
    expect(editApplies(edit, 'src/misc.c')).toBe(true);
    expect(editApplies(edit, 'src\\misc.c')).toBe(true);
    expect(editApplies(edit, 'src/other.c')).toBe(false);
    expect(editApplies({ ...edit, names: [] }, 'include/a.h')).toBe(true);
    expect(editApplies(edit, 'misc.py')).toBe(false);
  });

  it('runs in linear time on a line a stranger wrote', () => {
    const edit = sed('\\b_?sys_errlist\\[([^]]+)\\]', 'strerror(\\1)');
    const hostile = `sys_errlist[${'['.repeat(200_000)}`;
    expect(applyEdit(edit, hostile)).toBeUndefined();
  });
});

describe('the diagnosis shows the patch as a diff of the files given with --file', () => {
  const LOG = [
    'gcc -O2 -c -o misc.o misc.c',
    "misc.c: In function 'nc_perror':",
    "misc.c:6:39: error: 'sys_errlist' undeclared (first use in this function)",
    '    6 |     fprintf(stderr, "%s: %s\\n", what, sys_errlist[errno]);',
    '      |                                       ^~~~~~~~~~~',
    'misc.c:6:39: note: each undeclared identifier is reported only once for each function it appears in',
    'make: *** [Makefile:4: misc.o] Error 1',
    '',
  ].join('\n');
  const MISC = [
    '#include <stdio.h>',
    '#include <errno.h>',
    '',
    'void nc_perror(const char *what) {',
    '  if (errno)',
    '    fprintf(stderr, "%s: %s\\n", what, sys_errlist[errno]);',
    '}',
    '',
  ].join('\n');
  const fixOf = (d: Diagnosis) => (d.found ? d.fix : undefined);

  it('a removed glibc API: the include added and the call rewritten, in a unified diff', async () => {
    const fix = fixOf(await diagnoseLog(LOG, { files: [{ path: 'src/misc.c', content: MISC }] }));
    expect(fix?.kind).toBe('patch');
    expect(fix?.rule).toBe('migrate-removed-api');
    expect(fix?.summary).toContain('(changes src/misc.c)');
    expect(fix?.patch).toBe(
      [
        '--- a/src/misc.c',
        '+++ b/src/misc.c',
        '@@ -1,7 +1,8 @@',
        '+#include <string.h>',
        ' #include <stdio.h>',
        ' #include <errno.h>',
        ' ',
        ' void nc_perror(const char *what) {',
        '   if (errno)',
        '-    fprintf(stderr, "%s: %s\\n", what, sys_errlist[errno]);',
        '+    fprintf(stderr, "%s: %s\\n", what, strerror(errno));',
        ' }',
        '',
      ].join('\n'),
    );
  });

  it('without the source, or with a file the log does not name: no diff, and how to get one', async () => {
    for (const files of [[], [{ path: 'other.c', content: MISC }]]) {
      const fix = fixOf(await diagnoseLog(LOG, { files }));
      expect(fix?.kind).toBe('patch');
      expect(fix?.patch).toBeUndefined();
      expect(fix?.summary).toContain('give the sources with --file to see the change as a diff');
    }
  });

  it('renders nothing for files no edit changes', async () => {
    expect(await editsDiff([])).toBe('');
  });
});
