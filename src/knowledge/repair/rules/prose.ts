/**
 * Rules for errors written in words rather than in a form a signature captures: a project's own CMake
 * `message(FATAL_ERROR …)` and a `configure: error:` line. The names they state (a library, a program, a
 * pkg-config module, a header) are looked up in the package index; nothing is installed for a name the index
 * does not know.
 */
import type { Finding } from '../../diagnose/types.js';
import type { Need } from '../needs.js';
import type { Repair, StrategyServices } from '../repair.js';
import { defaultRepairTables } from '../tables.js';
import { cap, installFor, type Rule, type RuleFn } from './rule.js';

/** Names an error states in words, by what they are said to be. */
export interface ProseNames {
  libraries: string[];
  programs: string[];
  /** Named without saying what they are (`"yacc not found"`): a program or a library. */
  either: string[];
}

/**
 * The library and program names an error message states in words, for messages no signature knows:
 * "cannot find required curses/ncurses library", "the zlib library is required", "library foo not found",
 * "Neither flex, win_flex nor lex was found", a bare '"yacc not found"'. `notNames` are the words that are
 * never a name (default: `not_names` in `verifiers/repairs.yaml`).
 */
export function namesInProse(
  text: string,
  notNames: ReadonlySet<string> = defaultRepairTables().notNames,
): ProseNames {
  const out: ProseNames = { libraries: [], programs: [], either: [] };
  const add = (list: string[], raw: string): void => {
    for (const part of raw.split(/\/|,|\s+or\s+|\s+nor\s+/)) {
      const name = part.trim().replace(/^["'`]+|["'`.]+$/g, '');
      if (/^[A-Za-z][\w+.-]*$/.test(name) && !notNames.has(name.toLowerCase()) && !list.includes(name))
        list.push(name);
    }
  };
  const t = text.trim();
  for (const m of t.matchAll(
    /([A-Za-z][\w+.-]*(?:\s*\/\s*[A-Za-z][\w+.-]*)*)\s+(?:librar(?:y|ies)|development (?:files|headers|package)|headers)\b/gi,
  ))
    add(out.libraries, m[1]!);
  for (const m of t.matchAll(
    /\blibrar(?:y|ies)\s+["'`]?([A-Za-z][\w+.-]*)["'`]?\s+(?:(?:is|was)\s+)?(?:not found|required|missing)/gi,
  ))
    add(out.libraries, m[1]!);
  const neither = /\bNeither\s+(.+?)\s+nor\s+([\w+.-]+)\s+(?:was|were|is|are|could be)?\s*found/i.exec(t);
  if (neither) add(out.programs, `${neither[1]!} nor ${neither[2]!}`);
  const bare =
    /^["'`]?([A-Za-z][\w+.-]*)["'`]?\s+(?:(?:is|was)\s+)?(?:not found|required|missing)["'`.]*$/i.exec(t);
  if (bare) add(out.either, bare[1]!);
  return out;
}

/**
 * Package-index look-ups for named things, most specific first. A library's pkg-config module comes first,
 * as `libX` before `X` (udev.pc is systemd's rules folder, libudev.pc the library), then its linker name
 * (a bare `libX.so` can be another project's: the zlib library is zlib.pc, not some libzlib.so), then a header.
 */
function proseNeeds(names: ProseNames): Need[] {
  const library = (name: string): Need[] => {
    const lower = name.toLowerCase();
    const bare = lower.replace(/^lib(?=[a-z])/, '');
    return [
      { kind: 'pkgconfig', name: `lib${bare}` },
      { kind: 'pkgconfig', name: bare },
      { kind: 'library', name: bare },
      { kind: 'header', name: `${bare}.h` },
    ];
  };
  return [
    ...names.programs.map((name): Need => ({ kind: 'command', name })),
    ...names.either.flatMap((name) => [{ kind: 'command' as const, name }, ...library(name)]),
    ...names.libraries.flatMap(library),
  ];
}

/** Installs what an error names in words (see namesInProse); no repair when it names nothing the index knows. */
function installNamed(
  text: string,
  where: string,
  s: StrategyServices,
  notNames: ReadonlySet<string>,
): Promise<Repair[]> | Repair[] {
  const names = namesInProse(text, notNames);
  const all = [...names.programs, ...names.either, ...names.libraries];
  if (all.length === 0) return [];
  return installFor(
    'install-named-dependency',
    proseNeeds(names),
    `${where} names ${all.join(' or ')} as missing`,
    s,
    names.libraries.length + names.either.length > 0 ? ['pkg-config'] : [],
  );
}

/** The text of a CMake `message(FATAL_ERROR …)`: the indented lines under `CMake Error at …:N (message):`. */
function cmakeMessageText(finding: Finding): string {
  const lines = finding.excerpt.split('\n');
  const at = lines.findIndex((l) => /^CMake Error\b/.test(l));
  if (at < 0) return '';
  const body: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!/^\s+\S/.test(line)) break;
    body.push(line.trim());
  }
  return body.join(' ');
}

/** `configure: error: …`: a pkg-config module, a header, a library, a program, or whatever it names in words. */
const configureError: RuleFn = async (f, _i, { services: s, tables }) => {
  const reason = cap(f, 'reason') ?? '';
  const pkgReq = /Package requirements \(([^)\s]+)/.exec(reason) ?? /No package '([^']+)' found/.exec(reason);
  if (pkgReq)
    return installFor(
      'install-pkgconfig-package',
      [{ kind: 'pkgconfig', name: pkgReq[1]! }],
      `configure needs pkg-config module ${pkgReq[1]}`,
      s,
      ['pkg-config'],
    );
  const header = /([\w/+-]+\.h)\b/.exec(reason);
  if (header)
    return installFor(
      'install-header-package',
      [{ kind: 'header', name: header[1]! }],
      `configure cannot find ${header[1]}`,
      s,
    );
  const lib =
    /\blib(?:rary)?\s*'?-?l?([A-Za-z][\w+-]*)'?\s+(?:is\s+)?(?:not found|required|missing)/i.exec(reason) ??
    /cannot find (?:the )?(?:library )?-?l?([A-Za-z][\w+-]+)/i.exec(reason);
  if (lib && !tables.notNames.has(lib[1]!.toLowerCase())) {
    const name = lib[1]!.replace(/^lib/, '');
    const repairs = await installFor(
      'install-library-package',
      [
        { kind: 'library', name },
        { kind: 'pkgconfig', name },
      ],
      `configure cannot find library ${name}`,
      s,
    );
    if (repairs.length > 0) return repairs;
  }
  const program =
    /(?:program|command|tool)\s+'?([\w+-]+)'?\s+(?:not found|is required|missing)/i.exec(reason) ??
    /(?:no|cannot find) '?([\w+-]+)'? (?:program|command)/i.exec(reason);
  if (program)
    return installFor(
      'install-command-package',
      [{ kind: 'command', name: program[1]! }],
      `configure needs the program ${program[1]}`,
      s,
    );
  return installNamed(reason, 'configure', s, tables.notNames);
};

export const PROSE_RULES: Rule[] = [
  {
    ids: ['cmake-error'],
    propose(f, _i, { services: s, tables }) {
      // Only a project's own message: CMake's own errors (find_package, missing files) have their signatures.
      if (cap(f, 'command') !== 'message') return [];
      const text = cmakeMessageText(f);
      return text ? installNamed(text, 'the CMake message', s, tables.notNames) : [];
    },
  },
  { ids: ['configure-error'], propose: configureError },
];
