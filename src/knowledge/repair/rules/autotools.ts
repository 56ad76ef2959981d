/**
 * Rules for autotools: an undefined autoconf macro (install the package with its .m4 file, then
 * regenerate `configure`), generated files that are missing or stale (`autoreconf -fi`), and a
 * `config.guess` too old to know the machine.
 */
import { firstMatch } from '../tables.js';
import { cap, installFor, regenerate, type Rule } from './rule.js';

export const AUTOTOOLS_RULES: Rule[] = [
  {
    ids: ['autoconf-undefined-macro', 'configure-unexpanded-macro'],
    async propose(f, input, { services: s, tables }) {
      const macro = cap(f, 'macro') ?? '';
      const recipe = regenerate(input.recipe);
      const packages = firstMatch(tables.autoconfMacros, macro);
      if (!packages) {
        const found = await installFor(
          'install-autoconf-macros',
          [{ kind: 'm4-macro', name: macro }],
          `autoconf macro ${macro} is undefined`,
          s,
        );
        return found.map((r) => ({ ...r, recipe }));
      }
      return [
        {
          rule: 'install-autoconf-macros',
          key: `pkg:${packages.join(',')}`,
          reason: `autoconf macro ${macro} is undefined; ${packages.join(' ')} ships it, then configure is regenerated`,
          packages: [...packages],
          recipe,
        },
      ];
    },
  },
  {
    ids: [
      'automake-missing-aux-file',
      'autoconf-version-required',
      'libtool-version-mismatch',
      'configure-missing',
    ],
    propose(f, input) {
      const recipe = regenerate(input.recipe);
      if (!recipe) return [];
      return [
        {
          rule: 'autoreconf',
          key: 'autoreconf',
          reason: `${f.message}: the generated autotools files are missing or stale, so they are regenerated with autoreconf -fi`,
          packages: ['autoconf', 'automake', 'libtool'],
          recipe,
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
