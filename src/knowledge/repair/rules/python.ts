/**
 * Rules for Python deployments: an API a newer NumPy or Python removed is migrated as documented
 * (`verifiers/python-migrations.yaml`, applied as a patch with its reason and source); a package index that
 * cannot satisfy the requirements (no wheel for this Python, a conflict, an unreachable index pip tried
 * anyway) makes the Python setup take Debian's packages instead; an interpreter the code is too old for, or
 * a runtime the distribution does not ship, is said in words — there is no mechanical fix for those.
 */
import { PYTHON_DEPS_FROM } from '../../../deploy/types.js';
import type { Repair, RepairInput } from '../repair.js';
import {
  defaultPythonMigrations,
  migrationAsEdit,
  migrationEdit,
  migrationsFor,
  type PythonMigration,
} from '../python-migrations.js';
import { cap, type Rule } from './rule.js';

/**
 * What `module.name` becomes, for a person: the first migration whose replacement is plain text with the new
 * name in it (`collections.abc.{new}` → collections.abc.Mapping), else the new name alone (an import line's
 * replacement has groups of the pattern in it).
 */
function becomes(name: string, found: readonly PythonMigration[]): string {
  const plain = found.find((m) => !m.replacement.includes('\\'));
  const target = (plain ?? found[0]!).names[name] ?? name;
  return plain ? plain.replacement.split('{new}').join(target) : target;
}

/** A repair that applies the documented migrations of one removed name. */
export function migrationRepair(module: string, name: string, table: readonly PythonMigration[]): Repair[] {
  const found = migrationsFor(module, name, table);
  if (found.length === 0) return [];
  const first = found[0]!;
  const reason = `${first.why} (${first.since}; ${first.source}): ${module}.${name} → ${becomes(name, found)}, applied to every Python file`;
  return [
    {
      rule: 'migrate-removed-python-api',
      key: `migrate:${found.map((m) => m.id).join('+')}`,
      reason,
      prelude: [migrationEdit(found)],
      patches: [{ file: `*.py files using removed ${module} names`, reason }],
      edits: found.map(migrationAsEdit),
    },
  ];
}

/** Whether the failed recipe is a deploy setup with the Python setup in it (it reads PYTHON_DEPS_FROM). */
function pythonDeploy(input: RepairInput): boolean {
  return (
    input.recipe.system === 'deploy' && input.recipe.steps.some((s) => s.command.includes(PYTHON_DEPS_FROM))
  );
}

export const PYTHON_RULES: Rule[] = [
  {
    ids: ['python-removed-attribute', 'python-cannot-import-name'],
    propose(f) {
      const module = cap(f, 'module');
      const name = cap(f, 'attribute');
      return module && name ? migrationRepair(module, name, defaultPythonMigrations()) : [];
    },
  },
  {
    ids: ['pip-no-version', 'pip-resolution-impossible'],
    needsTree:
      "a deployment's repair: the deploy recipe's Python dependencies switch to Debian's python3-* packages",
    propose(f, input) {
      if (!pythonDeploy(input) || input.fixes.env[PYTHON_DEPS_FROM] === 'debian') return [];
      const what = cap(f, 'requirement');
      return [
        {
          rule: 'python-deps-from-debian',
          key: `env:${PYTHON_DEPS_FROM}=debian`,
          reason: `pip cannot satisfy ${what ?? 'the requirements'} (${f.message}): the Python dependencies come from Debian's python3-* packages instead, which may be other versions than the manifest asks for (the setup prints each one against its constraint)`,
          env: { [PYTHON_DEPS_FROM]: 'debian' },
        },
      ];
    },
  },
];
