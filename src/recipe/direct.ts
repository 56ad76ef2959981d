/**
 * Direct compilation, the recipe when there is no build system: it depends on the repository's sources
 * (which files define `main`), not on a build file, so it is code rather than a catalog entry.
 */
import path from 'node:path';
import { shq } from '../base/shell.js';
import type { RepoInfo } from '../repo/types.js';
import type { Recipe, RecipeStep } from './model.js';

/** At most this many programs are compiled (one step each). */
const MAX_PROGRAMS = 20;

/**
 * Every C/C++ file that defines `main` is compiled with the other sources of its directory that do not.
 * Undefined when no source defines `main`.
 */
export function directCompileRecipe(repo: RepoInfo): Recipe | undefined {
  if (repo.mainSources.length === 0) return undefined;
  const steps: RecipeStep[] = [];
  const outputs = new Set<string>();
  for (const main of repo.mainSources.slice(0, MAX_PROGRAMS)) {
    const dir = path.posix.dirname(main);
    const ext = path.posix.extname(main);
    const cxx = /^\.(cc|cpp|cxx|c\+\+|C)$/.test(ext);
    let out = path.posix.join(dir, path.posix.basename(main, ext));
    if (outputs.has(out)) out = `${out}_${ext.slice(1)}`;
    outputs.add(out);
    const prefix = dir === '.' ? '' : `${shq(dir)}/`;
    const globs = (cxx ? ['*.c', '*.cc', '*.cpp', '*.cxx'] : ['*.c']).map((g) => prefix + g).join(' ');
    const skip = repo.mainSources
      .filter((m) => path.posix.dirname(m) === dir)
      .map(shq)
      .join('|');
    const compiler = cxx ? 'g++' : 'gcc';
    steps.push({
      purpose: 'build',
      command:
        `srcs=(); for f in ${globs}; do [ -e "$f" ] || continue; case "$f" in ${skip}) continue;; esac; srcs+=("$f"); done; ` +
        `${compiler} -O2 -I${shq(dir)} -o ${shq(out)} ${shq(main)} "\${srcs[@]}" -lm -lpthread`,
    });
  }
  return {
    id: 'direct',
    system: 'direct',
    label: 'direct compilation',
    evidence: `no build system; ${repo.mainSources.length} source file(s) define main()`,
    dir: '',
    tools: [
      { command: 'gcc', pkg: 'build-essential' },
      { command: 'g++', pkg: 'build-essential' },
    ],
    steps,
  };
}
