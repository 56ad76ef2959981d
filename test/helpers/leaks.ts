import { readFileSync, readdirSync } from 'node:fs';

/** Mount points on this machine below `dir` (there must be none once a sandbox is gone). */
export function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((mount) => mount.startsWith(dir));
}

/** Pids of processes whose command line contains `needle`, other than this one. */
export function processesMatching(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(needle)) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}
