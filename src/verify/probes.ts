/**
 * Functional probes, cheap and optional:
 * - **run**: a produced executable starts. It is run inside the sandbox with `--version` (then `--help` when
 *   that exits non-zero), stdin from /dev/null, at most ~5 s each. A crash fails it: killed by a signal
 *   (exit status ≥ 128, other than being stopped at the time limit), or a crash report in its output
 *   (segmentation fault, abort, sanitizer reports, glibc heap or stack-smashing errors). So does not
 *   starting at all (a shared library the loader cannot find, an exec format error). An ordinary non-zero
 *   exit is fine — many programs reject `--version`; running until the time limit is fine too (a server).
 * - **debug info**: a produced binary has a `.debug_info` section (or the older compressed `.zdebug_info`),
 *   read from the ELF section headers here — no readelf needed. For `ar` archives the member objects are
 *   looked at. Asked for when a debug build was requested (a spec's `probes.debug_info`).
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle } from 'node:fs/promises';
import path from 'node:path';

import { openUnder, readFileUnder } from '../base/safe-fs.js';
import type { Sandbox } from '../sandbox/types.js';
import { shellQuote } from '../base/shell.js';
import { makeScratchDir, removeScratch, SCRATCH_DIR } from './layer2.js';
import type { Artifact } from './types.js';

// ---------------------------------------------------------------------------------------------------------
// ELF section headers

export interface ElfSection {
  name: string;
  type: number;
  flags: number;
  offset: number;
  size: number;
}

const SHT_NOBITS = 8;
const SHF_COMPRESSED = 0x800;
const SHN_XINDEX = 0xffff;
const MAX_SECTIONS = 65536;
const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/** Reads `length` bytes at `offset` (relative to the start of the ELF image); shorter at the end of the data. */
export type ByteReader = (offset: number, length: number) => Promise<Buffer>;

function word(buf: Buffer, at: number, is64: boolean, little: boolean): number {
  if (!is64) return little ? buf.readUInt32LE(at) : buf.readUInt32BE(at);
  const value = little ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at);
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

/**
 * The sections of an ELF image, with names from the section-name string table; undefined when the bytes are
 * not ELF or the section table is damaged. Handles 32/64-bit, both byte orders, and the extended numbering
 * used when there are 0xff00 sections or more (count and string-table index kept in section 0).
 */
export async function readElfSections(read: ByteReader): Promise<ElfSection[] | undefined> {
  const head = await read(0, 64);
  if (head.length < 52 || !head.subarray(0, 4).equals(ELF_MAGIC)) return undefined;
  const is64 = head[4] === 2;
  const little = head[5] === 1;
  if ((head[4] !== 1 && head[4] !== 2) || (head[5] !== 1 && head[5] !== 2)) return undefined;
  if (is64 && head.length < 64) return undefined;
  const half = (buf: Buffer, at: number): number => (little ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
  const u32 = (buf: Buffer, at: number): number => (little ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
  const shoff = word(head, is64 ? 40 : 32, is64, little);
  const shentsize = half(head, is64 ? 58 : 46);
  let shnum = half(head, is64 ? 60 : 48);
  let shstrndx = half(head, is64 ? 62 : 50);
  const minimum = is64 ? 64 : 40;
  if (shoff === 0) return [];
  if (shentsize < minimum) return undefined;

  const parse = (
    buf: Buffer,
    at: number,
  ): Omit<ElfSection, 'name'> & { nameOffset: number; link: number } => ({
    nameOffset: u32(buf, at),
    type: u32(buf, at + 4),
    flags: word(buf, at + 8, is64, little),
    offset: word(buf, at + (is64 ? 24 : 16), is64, little),
    size: word(buf, at + (is64 ? 32 : 20), is64, little),
    link: u32(buf, at + (is64 ? 40 : 24)),
  });
  if (shnum === 0 || shstrndx === SHN_XINDEX) {
    const first = await read(shoff, shentsize);
    if (first.length < minimum) return undefined;
    const zero = parse(first, 0);
    if (shnum === 0) shnum = zero.size;
    if (shstrndx === SHN_XINDEX) shstrndx = zero.link;
  }
  if (shnum === 0) return [];
  if (shnum > MAX_SECTIONS) return undefined;
  const table = await read(shoff, shnum * shentsize);
  if (table.length < shnum * shentsize) return undefined;
  const raw = Array.from({ length: shnum }, (_, i) => parse(table, i * shentsize));
  const strtab = raw[shstrndx];
  const names =
    strtab && strtab.type !== SHT_NOBITS && strtab.size > 0 && strtab.size <= 16 * 1024 * 1024
      ? await read(strtab.offset, strtab.size)
      : Buffer.alloc(0);
  return raw.map((s) => {
    let name = '';
    if (s.nameOffset < names.length) {
      const end = names.indexOf(0, s.nameOffset);
      name = names.toString('latin1', s.nameOffset, end < 0 ? names.length : end);
    }
    return { name, type: s.type, flags: s.flags, offset: s.offset, size: s.size };
  });
}

export interface DebugInfo {
  /** Debug information is there. */
  present: boolean;
  /** One line for reports. */
  detail: string;
}

/** Whether these sections carry DWARF debug information, with a one-line explanation. */
export function debugInfoOf(sections: readonly ElfSection[]): DebugInfo {
  const info = sections.find((s) => s.name === '.debug_info' || s.name === '.zdebug_info');
  if (info && info.type !== SHT_NOBITS && info.size > 0) {
    const compressed = info.name === '.zdebug_info' || (info.flags & SHF_COMPRESSED) !== 0;
    return { present: true, detail: `${info.name} (${info.size} bytes${compressed ? ', compressed' : ''})` };
  }
  if (sections.some((s) => s.name === '.gnu_debuglink')) {
    return {
      present: false,
      detail: 'no .debug_info: stripped, with debug info split into a separate file (.gnu_debuglink)',
    };
  }
  if (sections.some((s) => s.name === '.gnu_debugaltlink' || s.name === '.debug_line')) {
    return { present: false, detail: 'no .debug_info section (only partial debug sections)' };
  }
  return { present: false, detail: 'no .debug_info section: not built with -g, or stripped' };
}

function fileReader(handle: FileHandle, base: number, limit: number): ByteReader {
  return async (offset, length) => {
    const start = base + offset;
    const end = Math.min(base + limit, start + length);
    if (offset < 0 || end <= start) return Buffer.alloc(0);
    const buffer = Buffer.alloc(end - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return buffer.subarray(0, bytesRead);
  };
}

const AR_MAGIC = '!<arch>\n';
const THIN_AR_MAGIC = '!<thin>\n';
/** Member objects of an archive looked at, at most. */
const MAX_MEMBERS = 64;

/**
 * Debug information of an ELF file or an `ar` archive of ELF objects: `rel` under `root` (or the file `root`
 * alone), never read through a symbolic link (the tree is the build's).
 */
export async function readDebugInfo(root: string, rel?: string | Buffer): Promise<DebugInfo> {
  const { handle, stats } =
    rel === undefined ? await openUnder(path.dirname(root), path.basename(root)) : await openUnder(root, rel);
  try {
    const { size } = stats;
    const magic = (await fileReader(handle, 0, size)(0, 8)).toString('latin1');
    if (magic === THIN_AR_MAGIC) {
      return { present: false, detail: 'a thin archive: its members are stored elsewhere and were not read' };
    }
    if (magic !== AR_MAGIC) {
      const sections = await readElfSections(fileReader(handle, 0, size));
      return sections
        ? debugInfoOf(sections)
        : { present: false, detail: 'not an ELF file with readable sections' };
    }
    let at = 8;
    let objects = 0;
    let withDebug = 0;
    let example = '';
    while (at + 60 <= size && objects < MAX_MEMBERS) {
      const header = (await fileReader(handle, 0, size)(at, 60)).toString('latin1');
      const name = header.slice(0, 16).trim();
      const memberSize = Number(header.slice(48, 58).trim());
      if (!Number.isFinite(memberSize) || memberSize < 0 || header.slice(58, 60) !== '`\n') break;
      const data = at + 60;
      // Symbol tables ('/', '/SYM64/', '__.SYMDEF') and the long-name table ('//') are not objects.
      if (!/^(?:\/|\/\/|\/SYM64\/|__\.SYMDEF.*)$/.test(name)) {
        const sections = await readElfSections(fileReader(handle, data, memberSize));
        if (sections) {
          objects++;
          const info = debugInfoOf(sections);
          if (info.present) {
            withDebug++;
            example ||= info.detail;
          }
        }
      }
      at = data + memberSize + (memberSize % 2);
    }
    if (objects === 0) return { present: false, detail: 'an archive without ELF members' };
    const of = `${withDebug} of ${objects}${objects === MAX_MEMBERS ? '+' : ''} member objects`;
    return withDebug > 0
      ? { present: true, detail: `${of} have debug info (${example})` }
      : { present: false, detail: `none of ${objects} member objects has a .debug_info section` };
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Run probes

export interface RunProbeAttempt {
  flag: '--version' | '--help';
  exitCode: number;
  durationMs: number;
  output: string;
}

export interface ProbeResult {
  /** The artifact's path relative to the repository root. */
  path: string;
  probe: 'run' | 'debug_info';
  passed: boolean;
  detail: string;
}

const SIGNALS: Record<number, string> = {
  4: 'SIGILL',
  5: 'SIGTRAP',
  6: 'SIGABRT',
  7: 'SIGBUS',
  8: 'SIGFPE',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  13: 'SIGPIPE',
  15: 'SIGTERM',
  31: 'SIGSYS',
};

/** Output that shows a crash even when the exit status is ordinary (sanitizers exit 1 by default). */
const CRASH_PATTERNS: RegExp[] = [
  /Segmentation fault/,
  /\(core dumped\)/,
  /^Aborted\b/m,
  /\*\*\* stack smashing detected \*\*\*/,
  /\b(?:double free or corruption|free\(\): invalid|malloc\(\): (?:corrupted|memory corruption)|corrupted size vs\. prev_size)/,
  /ERROR: (?:Address|Memory|Thread|UndefinedBehavior)Sanitizer/,
  /terminate called after throwing/,
];

/** Output that shows the program never started. */
const NOT_STARTED_PATTERNS: RegExp[] = [
  /error while loading shared libraries: [^\n]*/,
  /cannot execute binary file[^\n]*/,
  /Exec format error/,
  /version `[^']+' not found[^\n]*/,
  /No such file or directory/,
];

function firstLine(text: string, max = 120): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  const one = line.trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** Judges the attempts at starting one executable. Pure; exported for tests. */
export function judgeRunProbe(
  attempts: readonly RunProbeAttempt[],
  limitMs: number,
): { passed: boolean; detail: string } {
  if (attempts.length === 0) return { passed: false, detail: 'not run' };
  for (const a of attempts) {
    const timedOut = (a.exitCode === 124 || a.exitCode === 137) && a.durationMs + 200 >= limitMs;
    if (timedOut)
      return {
        passed: true,
        detail: `${a.flag}: still running after ${limitMs / 1000} s (stopped); it started`,
      };
    const crash = CRASH_PATTERNS.find((re) => re.test(a.output));
    if (a.exitCode >= 128 || crash) {
      const signal =
        a.exitCode >= 128 ? (SIGNALS[a.exitCode - 128] ?? `signal ${a.exitCode - 128}`) : undefined;
      const shown = crash ? firstLine(a.output.slice(a.output.search(crash))) : firstLine(a.output);
      return {
        passed: false,
        detail: `${a.flag}: crashed (${signal ? `killed by ${signal}, ` : ''}exit ${a.exitCode})${shown ? `: ${shown}` : ''}`,
      };
    }
    if (a.exitCode === 126 || a.exitCode === 127) {
      const why = NOT_STARTED_PATTERNS.map((re) => re.exec(a.output)?.[0]).find(Boolean);
      return {
        passed: false,
        detail: `${a.flag}: does not start (exit ${a.exitCode})${why ? `: ${firstLine(why)}` : ''}`,
      };
    }
  }
  const last = attempts[attempts.length - 1]!;
  const ok = attempts.find((a) => a.exitCode === 0) ?? last;
  const said = firstLine(ok.output);
  return {
    passed: true,
    detail: `${ok.flag} exited ${ok.exitCode}${ok.exitCode === 0 ? '' : ' (an ordinary exit)'}${said ? `: ${said}` : ''}`,
  };
}

export interface RunProbeOptions {
  /** Per attempt. Default 5 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The per-attempt limit of a run probe. */
const PROBE_LIMIT_MS = 5000;

/**
 * The shell functions of a run probe, with `D` the scratch folder inside the sandbox: `probe I PATH` starts
 * PATH with `--version` (then `--help` when that exits non-zero), stdin from /dev/null, each attempt bounded
 * by `limitMs`, and appends `I FLAG STATUS MS` to "$D/results" (the output in "$D/out-I--FLAG").
 */
function probeFunctions(limitMs: number): string[] {
  return [
    // NOW, in ms: bash 5 has the clock in a variable (no process per reading); an older shell asks date.
    'if [ -n "${EPOCHREALTIME:-}" ]; then',
    '  now_ms() { local t=${EPOCHREALTIME/[.,]/}; NOW=$(( 10#$t / 1000 )); }',
    'else',
    '  now_ms() { local t; t=$(date +%s%N); NOW=$(( t / 1000000 )); }',
    'fi',
    'probe() {',
    '  local i=$1 p=$2 flag rc t',
    '  for flag in --version --help; do',
    '    now_ms; t=$NOW',
    `    timeout -k 1 ${limitMs / 1000} "$p" "$flag" < /dev/null > "$D/out-$i$flag" 2>&1`,
    '    rc=$?',
    '    now_ms',
    '    printf "%s %s %s %s\\n" "$i" "$flag" "$rc" "$(( NOW - t ))" >> "$D/results"',
    '    [ "$rc" -eq 0 ] && break',
    '    [ "$rc" -ge 124 ] && break',
    '  done',
    '}',
  ];
}

/** The attempts a probe script recorded in the scratch folder `rel` (under `root`), by index. */
async function readAttempts(root: string, rel: string): Promise<Map<number, RunProbeAttempt[]>> {
  const readScratch = async (name: string, max: number): Promise<string> =>
    (await readFileUnder(root, `${rel}/${name}`, { maxBytes: max }).catch(() => Buffer.alloc(0))).toString(
      'utf8',
    );
  const recorded = await readScratch('results', 1024 * 1024);
  const attempts = new Map<number, RunProbeAttempt[]>();
  for (const line of recorded.split('\n')) {
    const [index, flag, code, ms] = line.trim().split(' ');
    if (index === undefined || (flag !== '--version' && flag !== '--help')) continue;
    const i = Number(index);
    if (!Number.isInteger(i) || i < 0) continue;
    const readOut = async (name: string): Promise<string> =>
      (await readScratch(name, 64 * 1024)).slice(0, 16 * 1024);
    // bash itself reports a crash of the program it ran ("Segmentation fault (core dumped)") on its stderr.
    const output = `${await readOut(`out-${i}${flag}`)}\n${await readOut(`shell-${i}`)}`;
    const list = attempts.get(i) ?? [];
    list.push({ flag, exitCode: Number(code), durationMs: Number(ms), output });
    attempts.set(i, list);
  }
  return attempts;
}

/**
 * Starts each executable in the sandbox (one exec for all of them) and judges it. Paths are relative to the
 * repository root.
 */
export async function probeExecutables(
  sandbox: Sandbox,
  paths: readonly string[],
  options: RunProbeOptions = {},
): Promise<ProbeResult[]> {
  if (paths.length === 0) return [];
  const limitMs = options.timeoutMs ?? PROBE_LIMIT_MS;
  // The probed programs can rearrange the tree: the scratch folder is made and read without following links.
  const scratch = await makeScratchDir(sandbox, 'probes');
  if ('notRun' in scratch) {
    return paths.map((p) => ({ path: p, probe: 'run' as const, passed: false, detail: scratch.notRun }));
  }
  const { hostDir, boxDir, rel } = scratch;
  const lines = [
    'set +e',
    `D=${shellQuote(boxDir)}`,
    // The programs start in the scratch folder: a file one writes where it stands is not the tree's.
    'cd "$D" || exit 0',
    ': > "$D/results"',
    ...probeFunctions(limitMs),
    // Side by side: each is bounded by its timeout, and the run waits for the slowest, not for their sum
    // (a tree of benchmark programs that each run for the full limit cost minutes one after another).
    ...paths.map(
      (p, i) => `probe ${i} ${shellQuote(path.posix.join(sandbox.workdir, p))} 2>> "$D/shell-$i" &`,
    ),
    'wait',
    'exit 0',
  ];
  try {
    // Offline: `--version` needs no network, and a built program run here reaches nothing.
    await sandbox.exec(lines.join('\n') + '\n', {
      offline: true,
      timeoutMs: paths.length * 2 * (limitMs + 2000) + 30_000,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const attempts = await readAttempts(sandbox.hostWorkdir, rel);
    return paths.map((p, i) => ({
      path: p,
      probe: 'run' as const,
      ...judgeRunProbe(attempts.get(i) ?? [], limitMs),
    }));
  } finally {
    await removeScratch(sandbox.hostWorkdir, hostDir);
  }
}

/** A turn's run probe as an epilogue (`probeEpilogue`), and where to read what it recorded. */
export interface ProbeEpilogue {
  /** The script, for ExecOptions.epilogue. */
  script: string;
  /** Its scratch folder, relative to the repository root (read back by `epilogueResults`). */
  rel: string;
  limitMs: number;
}

/**
 * A turn's run probe as an epilogue of its command (ExecOptions.epilogue): after a script that exited 0, the
 * same sandbox command starts the new executables it finds, so the advisory probe after the loop needs no
 * sandbox command of its own when these are the ones it would start. It looks, without following links, for
 * regular executable ELF files changed since `since` (ms since the epoch: the command's start) outside
 * .buildbench and .git, not named like a shared library; those named like an expected binary first, at most
 * `limit`. Their paths go to "$D/paths", one per index, relative to the repository root. The programs start in
 * the scratch folder (a file one writes where it stands is not the tree's). Nothing starts when less than
 * `reserveMs` is left before `deadline` (ms since the epoch: the command's limit), so a script that finished
 * just in time is never turned into a timed-out command by its probe.
 */
export function probeEpilogue(
  expected: readonly string[],
  options: { since: number; deadline?: number; limit?: number; timeoutMs?: number },
): ProbeEpilogue {
  const limitMs = options.timeoutMs ?? PROBE_LIMIT_MS;
  // The find (bounded to 10 s), both attempts of a program with their kill grace, and a margin.
  const reserveMs = 10_000 + 2 * (limitMs + 1000) + 5000;
  const latest = options.deadline !== undefined ? Math.floor(options.deadline - reserveMs) : undefined;
  const id = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const rel = path.posix.join(SCRATCH_DIR, 'probes', id);
  const names = expected.filter((n) => n !== '' && !n.includes('/') && !n.includes('\n'));
  const since = (Math.floor(options.since) / 1000).toFixed(3);
  const lines = [
    'set +e',
    ...probeFunctions(limitMs),
    ...(latest !== undefined ? ['now_ms', `[ "$NOW" -lt ${latest} ] || exit 0`] : []),
    'R=$PWD',
    `D="$R"/${shellQuote(rel)}`,
    'mkdir -p "$D" || exit 0',
    ': > "$D/results"; : > "$D/paths"',
    // A regular executable ELF file, not a link, not named like a shared library.
    'elf() {',
    '  local m',
    '  [ -f "$1" ] && [ ! -L "$1" ] && [ -x "$1" ] || return 1',
    '  case ${1##*/} in lib*.so | lib*.so.*) return 1 ;; esac',
    '  IFS= read -r -n 4 m < "$1" 2> /dev/null',
    '  [ "$m" = $\'\\177ELF\' ]',
    '}',
    `timeout -k 1 10 find . \\( -path ./.buildbench -o -path ./.git \\) -prune -o -type f -perm -u+x -newermt @${since} -print 2> /dev/null | head -n 2000 > "$D/found"`,
    `expected=(${names.map(shellQuote).join(' ')})`,
    'wanted() { local n; for n in "${expected[@]}"; do [ "${1##*/}" = "$n" ] && return 0; done; return 1; }',
    'n=0',
    'pick() {',
    '  local f=${1#./}',
    `  [ "$n" -lt ${options.limit ?? 8} ] && elf "$R/$f" || return 0`,
    '  printf "%s\\n" "$f" >> "$D/paths"',
    '  probe "$n" "$R/$f" 2>> "$D/shell-$n" &',
    '  n=$((n + 1))',
    '}',
    'cd "$D" || exit 0',
    'while IFS= read -r f; do wanted "$f" && pick "$f"; done < "$D/found"',
    'while IFS= read -r f; do wanted "$f" || pick "$f"; done < "$D/found"',
    'wait',
  ];
  return { script: lines.join('\n'), rel, limitMs };
}

/**
 * The epilogue's judgements of `paths` (relative to the repository root), in order, when it started every one
 * of them; undefined when it did not (it did not run: the script failed; or it chose others), and the caller
 * probes them itself. Its scratch folder is removed either way.
 */
export async function epilogueResults(
  root: string,
  epilogue: ProbeEpilogue,
  paths: readonly string[],
): Promise<ProbeResult[] | undefined> {
  try {
    const listed = (
      await readFileUnder(root, `${epilogue.rel}/paths`, { maxBytes: 64 * 1024 }).catch(() => undefined)
    )
      ?.toString('utf8')
      .split('\n');
    if (!listed) return undefined;
    const index = new Map<string, number>();
    listed.forEach((p, i) => {
      if (p !== '' && !index.has(p)) index.set(p, i);
    });
    if (paths.length === 0 || paths.some((p) => !index.has(p))) return undefined;
    const attempts = await readAttempts(root, epilogue.rel);
    return paths.map((p) => ({
      path: p,
      probe: 'run' as const,
      ...judgeRunProbe(attempts.get(index.get(p)!) ?? [], epilogue.limitMs),
    }));
  } finally {
    await removeScratch(root, path.join(root, epilogue.rel));
  }
}

/** Debug-info probes of binaries under `root` (read on this machine; no sandbox needed). */
export async function probeDebugInfo(root: string, artifacts: readonly Artifact[]): Promise<ProbeResult[]> {
  const out: ProbeResult[] = [];
  for (const artifact of artifacts) {
    try {
      const rel =
        artifact.pathBase64 !== undefined ? Buffer.from(artifact.pathBase64, 'base64') : artifact.path;
      const info = await readDebugInfo(root, rel);
      out.push({ path: artifact.path, probe: 'debug_info', passed: info.present, detail: info.detail });
    } catch (error) {
      out.push({
        path: artifact.path,
        probe: 'debug_info',
        passed: false,
        detail: `could not be read: ${(error as Error).message}`,
      });
    }
  }
  return out;
}

/** Which executables to start: expected ones first, then the rest, at most `limit`. */
export function executablesToProbe(
  artifacts: readonly Artifact[],
  matched: readonly string[] = [],
  limit = 8,
): string[] {
  // A name that is not UTF-8 cannot be given to the shell as its display: not started.
  const executables = artifacts
    .filter((a) => a.kind === 'executable' && a.pathBase64 === undefined)
    .map((a) => a.path);
  const wanted = new Set(matched);
  const first = executables.filter((p) => wanted.has(p));
  const rest = executables.filter((p) => !wanted.has(p));
  return [...first, ...rest].slice(0, limit);
}
