/**
 * What apt would say of a package in a fresh sandbox, answered on this machine in microseconds: whether it is
 * installed in the image, and whether it has a candidate in the image's package lists. Every look-up used to
 * end in `apt-cache policy` run inside the sandbox, one command (about 90 ms) per look-up even when the
 * host-side Contents index (contents-index.ts) had found the files; the pre-install plan of the first turn
 * made one for a project whose only declared header is <stdio.h>.
 *
 * The answers come from a sorted file per stack of layers, cached beside the toolchain layer: one
 * `name<TAB>candidate<TAB>installed` line per package apt has a candidate for or dpkg has installed (`(none)`
 * when not). It is dumped once, by apt itself (`apt-cache dumpavail`, `dpkg-query`), in a sandbox no command
 * of a repository has run in yet, so a build cannot change what later builds are told; it is checked line by
 * line before it is kept. The answers hold only while the sandbox still has the image's package database and
 * lists (`Sandbox.packageLists.asImage()`): once a command installed a package, the look-ups go back to
 * asking apt inside the sandbox.
 */
import { rename, rm } from 'node:fs/promises';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import type { Sandbox } from '../../sandbox/types.js';
import { PACKAGE_NAME } from './needs.js';
import type { PolicyEntry } from './package-index.js';
import { SortedLines } from './sorted-lines.js';

/** apt's answer for package names without a command, or undefined when it cannot be given (`PackageState.policy`). */
export type PolicyAnswer = (names: readonly string[]) => Map<string, PolicyEntry> | undefined;

/** Bump when the line format changes: a file of another version is dumped again. */
export const PACKAGE_STATE_VERSION = 1;

/** The file for a stack of layers (`Sandbox.packageLists.stack`), in the layer's cache folder. */
export function packageStateFile(lists: { cacheDir: string; stack: string }): string {
  return path.join(lists.cacheDir, `package-state-v${PACKAGE_STATE_VERSION}-${lists.stack}.tsv`);
}

/**
 * The dump, run inside the sandbox: every package with a candidate (`dumpavail` prints exactly the candidate
 * versions) and every installed one, merged into one sorted line per package.
 */
export const PACKAGE_STATE_SCRIPT = [
  'set -o pipefail',
  'export LC_ALL=C',
  '{',
  `  apt-cache dumpavail | awk '/^Package: / { p = $2 } /^Version: / && p != "" { print p "\\tc\\t" $2; p = "" }'`,
  `  dpkg-query -W -f='\${db:Status-Status}\\t\${Package}\\t\${Version}\\n' | awk -F'\\t' '$1 == "installed" { print $2 "\\ti\\t" $3 }'`,
  '} | sort | awk -F\'\\t\' \'function out() { if (n != "") print n "\\t" c "\\t" i }',
  '  $1 != n { out(); n = $1; c = "(none)"; i = "(none)" }',
  '  $2 == "c" { c = $3 } $2 == "i" { i = $3 }',
  "  END { out() }'",
].join('\n');

/** One line of the file: a package name, its candidate version and its installed one. */
const LINE = /^([a-z0-9][a-z0-9+.-]*)\t(\S+)\t(\S+)$/;

/**
 * The dump's output checked: every line a package and two versions, sorted bytewise, at least one package
 * installed (a base system always has some) and one with a candidate (an image without package lists would
 * otherwise say that nothing can be installed) — else undefined.
 */
export function checkedPackageState(text: string): string | undefined {
  const lines = text.split('\n').filter((l) => l !== '');
  let installed = false;
  let candidate = false;
  let previous = '';
  for (const line of lines) {
    const m = LINE.exec(line);
    if (!m || line <= previous) return undefined;
    if (m[2] !== '(none)') candidate = true;
    if (m[3] !== '(none)') installed = true;
    previous = line;
  }
  return installed && candidate ? `${lines.join('\n')}\n` : undefined;
}

/**
 * Makes the package state file for the sandbox's stack of layers when it is missing. Call it only on a sandbox
 * no repository command has run in (the run's sandbox as it is opened): the dump is the image's, never a build's.
 * True when the file is there afterwards; a sandbox without package lists on this machine, or a dump that
 * fails or does not check, leaves none (the look-ups then ask apt inside, as before).
 */
export async function ensurePackageState(
  sandbox: Pick<Sandbox, 'exec' | 'packageLists'>,
  signal?: AbortSignal,
): Promise<boolean> {
  const lists = sandbox.packageLists;
  if (!lists) return false;
  const file = packageStateFile(lists);
  if (existsSync(file)) return true;
  if (!lists.asImage()) return false;
  const log = `${file}.${process.pid}.log`;
  try {
    const result = await sandbox.exec(PACKAGE_STATE_SCRIPT, {
      timeoutMs: 120_000,
      offline: true,
      logPath: log,
      ...(signal ? { signal } : {}),
    });
    if (result.exitCode !== 0 || result.timedOut || result.cancelled) return false;
    const checked = checkedPackageState(readFileSync(log, 'utf8'));
    if (checked === undefined) return false;
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, checked);
    await rename(tmp, file);
    return true;
  } catch {
    return false;
  } finally {
    await rm(log, { force: true });
  }
}

/** The state file opened for look-ups. */
export class PackageState {
  private constructor(private readonly lines: SortedLines) {}

  static open(file: string): PackageState | undefined {
    const lines = SortedLines.open(file);
    return lines ? new PackageState(lines) : undefined;
  }

  close(): void {
    this.lines.close();
  }

  /**
   * What `apt-cache policy` would say of each name, as the look-up script's parser gives it: an entry with the
   * installed and candidate versions for a package apt knows, none for a name it does not know.
   */
  policy(names: readonly string[]): Map<string, PolicyEntry> {
    const out = new Map<string, PolicyEntry>();
    for (const name of new Set(names)) {
      if (!PACKAGE_NAME.test(name)) continue;
      for (const line of this.lines.startingWith(`${name}\t`)) {
        const m = LINE.exec(line);
        if (!m) continue;
        const entry: PolicyEntry = {};
        if (m[3] !== '(none)') entry.installed = m[3];
        if (m[2] !== '(none)') entry.candidate = m[2];
        out.set(name, entry);
      }
    }
    return out;
  }
}
