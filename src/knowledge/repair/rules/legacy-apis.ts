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
import type { Finding } from '../../diagnose/types.js';
import type { Repair } from '../repair.js';
import type { SourceEdit } from '../source-edits.js';
import type { Rule } from './rule.js';

/** The endings of the C and C++ sources a source edit reads (the edit as data applies to these). */
export const C_FAMILY_EXTENSIONS = ['.c', '.h', '.cc', '.cpp', '.cxx', '.c++', '.hpp', '.hh', '.hxx', '.ipp'];

/** grep's --include options for the same files: the shell line edits what the data edit would. */
export const C_FAMILY = C_FAMILY_EXTENSIONS.map((ext) => `--include='*${ext}'`).join(' ');

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

/**
 * The source files the log names for a finding of `api` (`errname.c:8:25: error: …` → `errname.c`), by base
 * name: what the patch series attributes to this repair.
 */
export function filesInLog(findings: readonly Finding[], api: LegacyApi): string[] {
  const id = legacySignatureId(api.id);
  const files = new Set<string>();
  for (const finding of findings.filter((f) => f.id === id)) {
    for (const line of finding.excerpt.split('\n')) {
      const file = /^\s*(\S+?\.(?:c|h|cc|cpp|cxx|c\+\+|hpp|hh|hxx|ipp)):\d+:/.exec(line)?.[1];
      if (file && api.keywords.some((k) => line.includes(k))) files.add(file.replace(/^.*\//, ''));
    }
  }
  return [...files].sort();
}

/** The repair for an entry with a mechanical migration; `files` are the sources the log names. */
export function migrationRepair(api: LegacyApi, files: readonly string[] = []): Repair {
  const reason = `${legacyMessage(api)}: ${api.migration} (${api.source})`;
  const named = files.length > 0 ? files.join(', ') : `files using ${api.api}`;
  return {
    rule: 'migrate-removed-api',
    key: `legacy:${api.id}`,
    reason,
    prelude: [migrationLine(api)],
    patches: [{ file: named, reason }],
    edits: [migrationEdit(api, files)],
  };
}

/** The edit `migrationLine` makes, as data: the diagnosis applies it to the files given with --file. */
export function migrationEdit(api: LegacyApi, files: readonly string[] = []): SourceEdit {
  const patch = api.patch!;
  return {
    extensions: C_FAMILY_EXTENSIONS,
    ...(files.length > 0 ? { names: [...files] } : {}),
    pattern: patch.replace,
    replacement: patch.with,
    style: 'sed',
    ...(patch.include ? { include: patch.include } : {}),
  };
}

export const LEGACY_API_RULES: Rule[] = loadLegacyApis()
  .filter((api) => api.patch !== undefined)
  .map((api) => ({
    ids: [legacySignatureId(api.id)],
    propose: (finding, input) => [migrationRepair(api, filesInLog([finding, ...input.findings], api))],
  }));
