/**
 * Rules for autotools: an undefined autoconf macro (install the package with its .m4 file, then
 * regenerate `configure`), generated files that are missing or stale (`autoreconf -fi`), and a
 * `config.guess` too old to know the machine.
 */
import path from 'node:path';
import { readFileUnder } from '../../../base/safe-fs.js';
import { inDir, shq } from '../../../base/shell.js';
import type { Recipe } from '../../../recipe/model.js';
import { firstMatch, type RepairTables } from '../tables.js';
import type { Repair } from '../repair.js';
import {
  AUTORECONF_PACKAGES,
  RULE_LIMITS,
  cap,
  installFor,
  regenerate,
  regenerating,
  type Rule,
} from './rule.js';

/** `2.72` vs `2.71.1`: negative when a is older. */
export function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The recipe directory's configure.ac (or the older configure.in), relative to the root, with its text. */
async function readConfigureAc(
  root: string,
  recipe: Recipe,
): Promise<{ file: string; text: string } | undefined> {
  for (const name of ['configure.ac', 'configure.in']) {
    const file = path.posix.join(recipe.dir || '.', name).replace(/^\.\//, '');
    try {
      const text = (
        await readFileUnder(root, file, { follow: 'inside', maxBytes: RULE_LIMITS.cmakeListsBytes })
      ).toString('utf8');
      return { file, text };
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** Macros of the table's releases up to `required` that the text calls (they need that newer Autoconf). */
export function newerMacrosUsed(text: string, required: string, tables: RepairTables): string[] {
  const used: string[] = [];
  for (const entry of tables.autoconfNewMacros) {
    if (compareVersions(entry.version, required) > 0) continue;
    for (const macro of entry.macros) if (new RegExp(`\\b${macro}\\b`).test(text)) used.push(macro);
  }
  return used;
}

/**
 * `AC_PREREQ(2.72)` on an Autoconf 2.71: the prerequisite is lowered to the installed version, as a patch,
 * when configure.ac calls no macro of the newer releases (a table with its sources); otherwise nothing is
 * proposed, since only a newer Autoconf can build it. The installed version is read in the sandbox.
 */
async function lowerAcPrereq(
  required: string,
  recipe: Recipe,
  root: string,
  tables: RepairTables,
): Promise<Repair[]> {
  const found = await readConfigureAc(root, recipe);
  const regenerated = regenerate(recipe);
  if (!found || !regenerated || !/\bAC_PREREQ\s*\(/.test(found.text)) return [];
  if (newerMacrosUsed(found.text, required, tables).length > 0) return [];
  const reason = `AC_PREREQ asks for Autoconf ${required}, newer than the installed one, and ${found.file} uses no macro that Autoconf ${required} introduced: the prerequisite is lowered to the installed version`;
  const file = path.posix.basename(found.file);
  const edit = [
    "bb_ac_version=$(autoconf --version | sed -n '1s/.* \\([0-9][0-9.]*\\)$/\\1/p')",
    `if [ -n "$bb_ac_version" ]; then sed -i -E 's/AC_PREREQ\\(\\[?[0-9][0-9.a-z]*\\]?\\)/AC_PREREQ(['"$bb_ac_version"'])/' ${shq(file)}; fi`,
  ].join('; ');
  return [
    {
      rule: 'lower-ac-prereq',
      key: `ac-prereq:${found.file}`,
      reason,
      prelude: [`( ${inDir(recipe.dir, edit)} )`],
      patches: [{ file: found.file, reason }],
      recipe: regenerated,
    },
  ];
}

/** The files automake's GNU strictness (its default) requires at the top of the package. */
const GNU_STRICTNESS_FILES = ['NEWS', 'README', 'AUTHORS', 'ChangeLog'];

export const AUTOTOOLS_RULES: Rule[] = [
  {
    // autoreconf runs autopoint, gtkdocize, intltoolize, libtoolize or gettextize, and one is not installed.
    ids: ['autotools-helper-cant-exec'],
    async propose(f, input, { services: s }) {
      const command = cap(f, 'command');
      if (!command) return [];
      const found = await installFor(
        'install-autotools-helper',
        [{ kind: 'command', name: path.posix.basename(command) }],
        `autoreconf runs ${command}, which is not installed`,
        s,
      );
      return found.map((r) => ({ ...r, ...regenerating(input.recipe) }));
    },
  },
  {
    ids: ['autoconf-version-required'],
    needsTree:
      'lowering AC_PREREQ is safe only when configure.ac uses no macro of the newer Autoconf, read from the tree',
    async propose(f, input, { tables }) {
      const required = cap(f, 'version');
      if (!required) return [];
      return lowerAcPrereq(required, input.recipe, input.repo.root, tables);
    },
  },
  {
    ids: ['autoconf-undefined-macro', 'configure-unexpanded-macro'],
    async propose(f, input, { services: s, tables }) {
      const macro = cap(f, 'macro') ?? '';
      const regenerated = regenerating(input.recipe);
      // autoreconf -fi needs the whole set; the macro's own package is added to it
      const withTools = (packages: readonly string[]): string[] => [
        ...new Set([...AUTORECONF_PACKAGES, ...packages]),
      ];
      const packages = firstMatch(tables.autoconfMacros, macro);
      if (!packages) {
        const found = await installFor(
          'install-autoconf-macros',
          [{ kind: 'm4-macro', name: macro }],
          `autoconf macro ${macro} is undefined`,
          s,
        );
        return found.map((r) => ({
          ...r,
          ...(r.packages ? { packages: withTools(r.packages) } : {}),
          ...regenerated,
        }));
      }
      return [
        {
          rule: 'install-autoconf-macros',
          key: `pkg:${packages.join(',')}`,
          reason: `autoconf macro ${macro} is undefined; ${packages.join(' ')} ships it, then configure is regenerated with autoreconf -fi`,
          packages: withTools(packages),
          ...regenerated,
        },
      ];
    },
  },
  {
    ids: ['automake-missing-aux-file', 'libtool-version-mismatch', 'configure-missing'],
    propose(f, input) {
      const file = path.posix.basename(cap(f, 'file') ?? '');
      // automake's GNU strictness asks for the GNU documentation files; empty ones satisfy it (what
      // `AM_INIT_AUTOMAKE([foreign])` would have said), and a person sees them in the patch
      if (GNU_STRICTNESS_FILES.includes(file)) {
        const reason = `${f.message}: automake's default GNU strictness requires ${GNU_STRICTNESS_FILES.join(', ')}; the missing ones are created empty`;
        return [
          {
            rule: 'gnu-strictness-files',
            key: 'gnu-strictness-files',
            reason,
            packages: [...AUTORECONF_PACKAGES],
            prelude: [
              inDir(
                input.recipe.dir,
                `for f in ${GNU_STRICTNESS_FILES.join(' ')}; do [ -e "$f" ] || : > "$f"; done`,
              ),
            ],
            patches: [{ file: GNU_STRICTNESS_FILES.join(', '), reason }],
            ...(regenerate(input.recipe) ? { recipe: regenerate(input.recipe) } : {}),
          },
        ];
      }
      return [
        {
          rule: 'autoreconf',
          key: 'autoreconf',
          reason: `${f.message}: the generated autotools files are missing or stale, so they are regenerated with autoreconf -fi`,
          packages: [...AUTORECONF_PACKAGES],
          ...regenerating(input.recipe),
        },
      ];
    },
  },
  {
    ids: ['autoconf-unexpanded-macro'],
    propose(f, input) {
      const macro = cap(f, 'macro') ?? 'an autoconf macro';
      return [
        {
          rule: 'autotools-bootstrap',
          key: 'autoreconf-bootstrap',
          reason: `configure was generated without the macros that define ${macro} (not bootstrapped, or generated without automake, libtool or pkg-config installed): autoreconf -fi regenerates it with them`,
          packages: [...AUTORECONF_PACKAGES],
          ...regenerating(input.recipe),
        },
      ];
    },
  },
  {
    ids: ['config-guess-outdated'],
    propose: () => [
      {
        rule: 'update-config-guess',
        key: 'config-guess',
        reason:
          'config.guess/config.sub are too old to know this machine; the current ones from autotools-dev replace them',
        packages: ['autotools-dev'],
        prelude: [
          'find . -name .git -prune -o \\( -name config.guess -o -name config.sub \\) -type f -print | while read -r f; do cp "/usr/share/misc/$(basename "$f")" "$f"; done',
        ],
        patches: [
          { file: 'config.guess, config.sub', reason: 'updated to the current autotools-dev versions' },
        ],
      },
    ],
  },
];
