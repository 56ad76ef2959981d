/**
 * Expected targets from CMakeLists.txt files. This folder is a small CMake interpreter, enough to name
 * what `cmake --build` makes on Linux: `lexer` reads commands, `expand` resolves `${VAR}`, `condition`
 * evaluates if() in three-valued logic, `scope` holds the explicit interpreter state, `interpreter` runs
 * control flow (if, foreach, function/macro, include) and `commands` is the table of everything else.
 * This file walks the directories and turns what was defined into `InferredTarget`s with roles and notes.
 */

import { dirOf, roleOfDir, roleOfName } from '../../paths.js';
import { makeTarget, type InferredTarget } from '../common.js';
import { constantTruth } from './condition.js';
import { runCommands } from './interpreter.js';
import { parseCMake } from './lexer.js';
import { newBuild, openScope, type RawTarget } from './scope.js';

/** Parents first: by depth, then by path. */
function byDepth(a: string, b: string): number {
  const da = a.split('/').length;
  const db = b.split('/').length;
  return da - db || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Expected targets of a CMake build made of `files` (path → text, paths relative to the repository root).
 * Directories are read parents first; a subdirectory sees its parent's variables as they were at its
 * add_subdirectory(). function()/macro() definitions are run when called, foreach() over lists is
 * unrolled. Targets in branches that are off on Linux by default, behind EXCLUDE_FROM_ALL, or in
 * subdirectories added that way get the role `excluded`.
 */
export function cmakeTargets(
  files: ReadonlyMap<string, string>,
  modules: ReadonlyMap<string, string> = new Map(),
): InferredTarget[] {
  const build = newBuild(modules);
  for (const file of [...files.keys()].sort(byDepth)) {
    const dir = dirOf(file);
    const scope = openScope(build, file, dir);
    runCommands(scope, parseCMake(files.get(file) ?? ''));
    build.finalScopes.set(dir, { vars: scope.vars, state: scope.inherited, excluded: scope.dirExcluded });
  }
  return build.raw.map((t) =>
    finish(t, build.properties.get(t.logical), (key) => build.unresolvedProps.has(`${t.logical}\0${key}`)),
  );
}

function finish(
  t: RawTarget,
  props: Map<string, string> | undefined,
  unresolvedProp: (key: string) => boolean,
): InferredTarget {
  const get = (key: string): string | undefined => props?.get(key);
  const kindKey =
    t.kind === 'executable'
      ? 'RUNTIME_OUTPUT_NAME'
      : t.kind === 'static_library'
        ? 'ARCHIVE_OUTPUT_NAME'
        : 'LIBRARY_OUTPUT_NAME';
  const outputKey =
    get(kindKey) !== undefined ? kindKey : get('OUTPUT_NAME') !== undefined ? 'OUTPUT_NAME' : undefined;
  const base = (outputKey && get(outputKey)) || t.logical;
  const isExe = t.kind === 'executable';
  const prefix = get('PREFIX') ?? (isExe ? '' : 'lib');
  const suffix = get('SUFFIX') ?? (isExe ? '' : t.kind === 'static_library' ? '.a' : '.so');
  const name = `${prefix}${base}${suffix}`;

  const notes: string[] = [];
  let confidence = 0.9;
  if (t.state === 'unknown') {
    confidence *= 0.7;
    notes.push('inside a condition that depends on the configuration');
  }
  if (t.defaultKind === 'static') {
    notes.push('add_library without a type: static unless BUILD_SHARED_LIBS is ON');
    confidence *= 0.95;
  } else if (t.defaultKind === 'shared') {
    notes.push('add_library without a type: shared because BUILD_SHARED_LIBS is ON');
  } else if (t.defaultKind === 'unknown') {
    notes.push('add_library without a type and BUILD_SHARED_LIBS depends on the configuration');
    confidence *= 0.7;
  }
  const unresolved =
    t.unresolved ||
    (outputKey !== undefined && unresolvedProp(outputKey)) ||
    unresolvedProp('PREFIX') ||
    unresolvedProp('SUFFIX');
  if (unresolved || name.includes('$')) {
    confidence = Math.min(confidence, 0.3);
    notes.push('the name has variables that could not be resolved');
  }
  const excludedProp = get('EXCLUDE_FROM_ALL');
  const excluded =
    t.excludedFromAll ||
    t.state === 'off' ||
    (excludedProp !== undefined && constantTruth(excludedProp) === 'on');
  if (excluded) {
    confidence = Math.min(confidence, 0.2);
    notes.push(
      t.state === 'off'
        ? 'not configured by default on Linux'
        : 'excluded from the default build (EXCLUDE_FROM_ALL)',
    );
  }
  return makeTarget('cmake', {
    name,
    kind: t.kind,
    file: t.file,
    line: t.line,
    confidence,
    logicalName: t.logical,
    role: excluded
      ? 'excluded'
      : (roleOfName(t.logical) ?? roleOfName(name) ?? roleOfDir(t.sourceDir) ?? roleOfDir(t.dir) ?? 'main'),
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  });
}
