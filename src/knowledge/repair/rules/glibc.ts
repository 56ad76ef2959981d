/**
 * Rules for what newer glibc releases removed: `<sys/sysctl.h>`, `<xlocale.h>` and `<stropts.h>` (their
 * includes are rewritten in the sources, recorded as patches) and Sun RPC (libtirpc takes its place).
 */
import type { Repair } from '../repair.js';
import { C_FAMILY, C_FAMILY_EXTENSIONS } from './legacy-apis.js';
import { flags, withFreshDir, type Rule } from './rule.js';

/** glibc ≥ 2.32 removed <sys/sysctl.h>; ≥ 2.26 removed <xlocale.h>; <stropts.h> is gone too. */
function guardHeader(header: string, replacement: string, why: string): Repair {
  const re = header.replace(/[./]/g, (c) => `\\${c}`);
  const pattern = `^[[:space:]]*#[[:space:]]*include[[:space:]]*<${re}>`;
  return {
    rule: 'guard-removed-glibc-header',
    key: `header:${header}`,
    reason: why,
    prelude: [
      `{ grep -rlE ${C_FAMILY} '${pattern}' . || true; } | while read -r f; do sed -i -E 's|${pattern}|${replacement}|' "$f"; done`,
    ],
    patches: [{ file: `files including <${header}>`, reason: why }],
    edits: [{ extensions: C_FAMILY_EXTENSIONS, pattern, replacement, style: 'sed' }],
  };
}

export const GLIBC_RULES: Rule[] = [
  {
    ids: ['glibc-sysctl-removed'],
    propose: () => [
      guardHeader(
        'sys/sysctl.h',
        '/* <sys/sysctl.h> removed: glibc 2.32 dropped it */',
        'glibc 2.32 removed <sys/sysctl.h>; Linux code does not need it, so the include is dropped',
      ),
    ],
  },
  {
    ids: ['glibc-xlocale-removed'],
    propose: () => [
      guardHeader(
        'xlocale.h',
        '#include <locale.h>',
        'glibc 2.26 removed <xlocale.h>; its declarations live in <locale.h>',
      ),
    ],
  },
  {
    ids: ['glibc-stropts-removed'],
    propose: () => [
      guardHeader(
        'stropts.h',
        '/* <stropts.h> removed: glibc 2.30 dropped STREAMS */',
        'glibc 2.30 removed <stropts.h> (STREAMS); Linux never implemented it, so the include is dropped',
      ),
    ],
  },
  {
    ids: ['glibc-rpc-removed'],
    propose: (f, input) => [
      {
        ...withFreshDir(
          flags(
            'use-libtirpc',
            `${f.message}: glibc dropped Sun RPC; libtirpc provides it`,
            '-I/usr/include/tirpc',
            '-I/usr/include/tirpc',
          ),
          input.recipe,
        ),
        packages: ['libtirpc-dev'],
        env: {
          BB_EXTRA_CFLAGS: '-I/usr/include/tirpc',
          BB_EXTRA_CXXFLAGS: '-I/usr/include/tirpc',
          LIBS: '-ltirpc',
          LDLIBS: '-ltirpc',
        },
      },
    ],
  },
];
