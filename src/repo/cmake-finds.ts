/**
 * The libraries and headers a CMake project looks for itself, with `find_library` and `find_path` (in its
 * CMakeLists.txt files and its own modules, `cmake/FindFoo.cmake`), that its default configuration needs:
 * those found with `REQUIRED`, and those whose variable a target links or includes outside any `if()` (an
 * absent one is `…-NOTFOUND` there, and CMake stops: "Please set them or make sure they are set and tested
 * correctly"). One pass over each file's commands, linear in its size; a find under `if()`, or inside a
 * `function()`/`macro()` body, is an option's and is left out, as is a name built from a variable.
 */

/** One CMake command: its name (lower case, and as written), its arguments without comments, its line. */
export interface CmakeCommand {
  name: string;
  written: string;
  args: string;
  line: number;
  /** Inside `if()`/`foreach()`/`while()` or a `function()`/`macro()` body. */
  nested: boolean;
}

export interface CmakeFind {
  kind: 'library' | 'header';
  /** The first name the call looks for (`NAMES sodium libsodium` → `sodium`; `sodium.h`). */
  name: string;
  variable: string;
  file: string;
  line: number;
  text: string;
  required: boolean;
}

const OPENERS = new Set(['if', 'foreach', 'while', 'function', 'macro', 'block']);
const CLOSERS = new Set(['endif', 'endforeach', 'endwhile', 'endfunction', 'endmacro', 'endblock']);
/** Commands whose use of a variable makes an unset one fatal at configure or generate time. */
const USES = new Set([
  'target_link_libraries',
  'target_include_directories',
  'include_directories',
  'link_libraries',
]);
/** Keywords of find_library/find_path after which names stop. */
const FIND_KEYWORDS =
  /^(?:NAMES|NAMES_PER_DIR|HINTS|PATHS|PATH_SUFFIXES|DOC|REQUIRED|NO_\w+|ONLY_CMAKE_FIND_ROOT_PATH|CMAKE_FIND_ROOT_PATH_BOTH|VALIDATOR|ENV|REGISTRY_VIEW|NO_CACHE|OPTIONAL)$/;

/** The commands of a CMake file in order, comments dropped, in one pass. */
export function cmakeCommands(text: string): CmakeCommand[] {
  const out: CmakeCommand[] = [];
  let depth = 0;
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === '#') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (!/[A-Za-z_]/.test(c)) {
      i++;
      continue;
    }
    let j = i;
    while (j < n && /[A-Za-z0-9_]/.test(text[j]!)) j++;
    const written = text.slice(i, j);
    const name = written.toLowerCase();
    let k = j;
    while (k < n && (text[k] === ' ' || text[k] === '\t')) k++;
    if (text[k] !== '(') {
      i = j;
      continue;
    }
    const start = line;
    let nesting = 1;
    let m = k + 1;
    let quoted = false;
    for (; m < n && nesting > 0; m++) {
      const d = text[m]!;
      if (d === '\n') line++;
      else if (d === '"' && text[m - 1] !== '\\') quoted = !quoted;
      else if (!quoted && d === '#' && !/[^\s(]/.test(text[m - 1] ?? ' ')) {
        while (m + 1 < n && text[m + 1] !== '\n') m++;
      } else if (!quoted && d === '(') nesting++;
      else if (!quoted && d === ')') nesting--;
    }
    const args = withoutComments(text.slice(k + 1, nesting === 0 ? m - 1 : m));
    if (CLOSERS.has(name)) depth = Math.max(0, depth - 1);
    else if (name !== 'else' && name !== 'elseif')
      out.push({ name, written, args, line: start, nested: depth > 0 || OPENERS.has(name) });
    if (OPENERS.has(name)) depth++;
    i = m;
  }
  return out;
}

/** A command's arguments without their `# …` comments. */
function withoutComments(args: string): string {
  return args.replace(/(^|[\s(])#[^\n]*/g, '$1');
}

/** A command on one line, as written. */
export function cmakeCallText(command: CmakeCommand): string {
  return `${command.written}(${command.args.replace(/\s+/g, ' ').trim()})`;
}

/** The words of a command's arguments (quotes dropped). */
function words(args: string): string[] {
  return args
    .split(/\s+/)
    .map((w) => w.replace(/^"|"$/g, ''))
    .filter(Boolean);
}

/**
 * The finds of a project's CMake files (`files`: path → text), each marked required as the file header says.
 */
export function cmakeFinds(files: ReadonlyMap<string, string>): CmakeFind[] {
  const finds: (CmakeFind & { nested: boolean })[] = [];
  const used = new Set<string>();
  for (const [file, text] of files) {
    for (const command of cmakeCommands(text)) {
      if (USES.has(command.name) && !command.nested) {
        for (const m of command.args.matchAll(/\$\{([A-Za-z0-9_]+)\}/g)) used.add(m[1]!);
      }
      if (command.name !== 'find_library' && command.name !== 'find_path') continue;
      const [variable, ...rest] = words(command.args);
      if (!variable || !/^[A-Za-z0-9_]+$/.test(variable)) continue;
      const namesAt = rest.indexOf('NAMES');
      const listed = namesAt >= 0 ? rest.slice(namesAt + 1) : rest.slice(0, 1);
      // The names end at the first keyword.
      const end = listed.findIndex((w) => FIND_KEYWORDS.test(w));
      const candidates = end < 0 ? listed : listed.slice(0, end);
      const name = candidates.find((w) => !w.includes('$'));
      if (!name || !/^[A-Za-z0-9_.+/-]+$/.test(name)) continue;
      const library = command.name === 'find_library';
      finds.push({
        kind: library ? 'library' : 'header',
        // find_library takes the name without its prefix (`sodium`); `libsodium` is the same library.
        name: library ? name.replace(/^lib(?=.)/, '').replace(/\.(?:so|a)$/, '') : name,
        variable,
        file,
        line: command.line,
        text: cmakeCallText(command).slice(0, 160),
        required: rest.includes('REQUIRED'),
        nested: command.nested,
      });
    }
  }
  return finds
    .filter((f) => !f.nested || f.required)
    .map(({ nested: _nested, ...f }) => ({ ...f, required: f.required || used.has(f.variable) }));
}
