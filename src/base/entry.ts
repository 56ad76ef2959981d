/** Whether a module is the process's entry point (`node file.js`, `tsx file.ts`, through a symlinked bin). */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** True when `moduleUrl` (a module's `import.meta.url`) is the script this process was started with. */
export function isProcessEntry(moduleUrl: string, argv: readonly string[] = process.argv): boolean {
  const entry = argv[1];
  if (entry === undefined) return false;
  let file = entry;
  try {
    file = realpathSync(entry);
  } catch {
    // not a file on disk (yet): compare as given
  }
  return moduleUrl === pathToFileURL(file).href;
}
