/**
 * Removed APIs (`verifiers/legacy-apis.yaml`, loaded by diagnose/legacy-apis.ts): an entry whose documented
 * migration is mechanical carries a patch, applied here to the C and C++ sources and recorded as a patch
 * with the entry's reason and source. Entries without one get no rule: the root cause explains them, and
 * the strategy leaves them to the model strategies.
 */
import {
  legacyMessage,
  legacySignatureId,
  loadLegacyApis,
  type LegacyApi,
} from '../../diagnose/legacy-apis.js';
import type { Repair } from '../repair.js';
import type { Rule } from './rule.js';

const C_FAMILY = ['*.[ch]', '*.cc', '*.cpp', '*.cxx', '*.c++', '*.hpp', '*.hh', '*.hxx', '*.ipp']
  .map((g) => `--include='${g}'`)
  .join(' ');

/** The shell line that applies an entry's patch: every C/C++ file using the API, edited in place. */
export function migrationLine(api: LegacyApi): string {
  const patch = api.patch!;
  const include = patch.include
    ? `; grep -q '^[[:space:]]*#[[:space:]]*include[[:space:]]*<${patch.include}>' "$f" || sed -i '1i #include <${patch.include}>' "$f"`
    : '';
  return (
    `{ grep -rlE ${C_FAMILY} -e '${patch.replace}' . || true; } | ` +
    `while read -r f; do sed -i -E 's#${patch.replace}#${patch.with}#g' "$f"${include}; done`
  );
}

/** The repair for an entry with a mechanical migration. */
export function migrationRepair(api: LegacyApi): Repair {
  const reason = `${legacyMessage(api)}: ${api.migration} (${api.source})`;
  return {
    rule: 'migrate-removed-api',
    key: `legacy:${api.id}`,
    reason,
    prelude: [migrationLine(api)],
    patches: [{ file: `files using ${api.api}`, reason }],
  };
}

export const LEGACY_API_RULES: Rule[] = loadLegacyApis()
  .filter((api) => api.patch !== undefined)
  .map((api) => ({ ids: [legacySignatureId(api.id)], propose: () => [migrationRepair(api)] }));
