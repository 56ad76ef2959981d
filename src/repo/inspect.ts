/**
 * src/repo/ — step 1 of a run: what the repository is, before anything is executed. It owns the tree walk
 * (`walk`, never following symlinks, small reads only), build-system detection and ordering
 * (`build-systems`), build docs, CI files, Dockerfiles and submodules (`docs`, `meta`), language counts
 * and `main` sources (`languages`), and the expected targets read from build files (`targets` over the
 * per-system readers in `parsers/`: cmake/ is a small CMake interpreter, the others are line readers).
 * `paths` holds the path helpers and the one table of vendored, test and example directory words that
 * scoring (verify/policy) also uses. It is on floor 1 and imports only base/; its result is `RepoInfo`.
 * This file is the entry point: `inspectRepo` runs those stages over one checkout.
 */

import { promises as fs } from 'node:fs';
import path from 'node:path';

import { ConfigError } from '../base/errors.js';
import { detectBuildSystems } from './build-systems.js';
import { readDeclaredDependencies } from './declared-deps.js';
import { detectEcosystems } from './ecosystems/index.js';
import { findDocs } from './docs.js';
import { documentedCompileTargets, mainSourceTargets } from './direct-targets.js';
import { documentedChoice, findDocumentedBuild, preferDocumented } from './documented.js';
import { countLanguages, findMainSources } from './languages.js';
import { findCiFiles, findDockerfiles, readSubmodules } from './meta.js';
import { isVendoredPath, isWithin } from './paths.js';
import { inferTargets } from './targets.js';
import type { BuildSystemKind, ExpectedTarget, RepoInfo } from './types.js';
import { walkTree } from './walk.js';

export interface InspectOptions {
  /** Stop walking after this many entries (default 200 000). */
  maxEntries?: number;
}

/**
 * Inspects a checkout: build systems (ordered, the first is the one to try), build docs, CI files,
 * Dockerfiles, submodules, languages, C/C++ files defining `main`, and the targets the build files name.
 * Reads only small files and never follows symbolic links; odd files are skipped, not fatal.
 * Throws ConfigError only when `root` is not a directory.
 */
export async function inspectRepo(root: string, options: InspectOptions = {}): Promise<RepoInfo> {
  const abs = path.resolve(root);
  const stat = await fs.stat(abs).catch(() => undefined);
  if (!stat?.isDirectory()) {
    throw new ConfigError(
      `cannot inspect ${abs}: not a directory`,
      'pass the path of a checked-out repository',
    );
  }
  const tree = await walkTree(
    abs,
    options.maxEntries !== undefined ? { maxEntries: options.maxEntries } : {},
  );
  const submodules = await readSubmodules(abs);
  const submodulePaths = submodules.map((s) => s.path);
  const ownFiles = tree.files.filter(
    (f) => !isVendoredPath(f) && !submodulePaths.some((d) => isWithin(f, d)),
  );

  const [detected, docs, mainSources, ecosystems] = await Promise.all([
    detectBuildSystems(abs, tree, { submodules: submodulePaths }),
    findDocs(abs, tree.files),
    findMainSources(abs, ownFiles),
    detectEcosystems(abs, ownFiles),
  ]);
  const ciFiles = findCiFiles(tree.files);
  // The build system the documentation uses is tried first (and is the one targets are read for).
  const documented = await findDocumentedBuild(abs, docs, ciFiles);
  const choice = documentedChoice(documented, detected);
  const buildSystems = preferDocumented(detected, choice);
  const expectedTargets = await inferTargets(abs, tree.files, {
    exclude: submodulePaths,
    ...(buildSystems[0] !== undefined ? { primary: buildSystems[0].kind } : {}),
  });

  if (!buildSystems.some((s) => s.linux)) {
    // No build system: the documented compile lines say what is made, else every file defining main().
    const compiled = documentedCompileTargets(documented.blocks);
    expectedTargets.push(...(compiled.length > 0 ? compiled : mainSourceTargets(mainSources)));
  }
  const info: RepoInfo = {
    root: abs,
    name: path.basename(abs),
    fileCount: tree.files.length,
    buildSystems,
    docs,
    ciFiles,
    dockerfiles: findDockerfiles(tree.files),
    submodules,
    languages: countLanguages(tree.files),
    mainSources,
    expectedTargets,
    ecosystems,
    declaredDeps: await readDeclaredDependencies(abs, { files: ownFiles, buildSystems, docs }),
  };
  if (documented.blocks.length > 0 || documented.prosePackages.length > 0) info.documented = documented;
  if (choice) info.buildSystemChoice = choice;
  if (tree.truncated) info.truncated = true;
  return info;
}

/**
 * The targets a build driven by `system` makes, read from the checkout at `root` the way inspectRepo reads them
 * for its first build system: when a run falls back to another build system, its expectation comes from the
 * system that ran (issue 31). `root` is the untouched checkout, never a tree a build has written into.
 */
export async function targetsForSystem(
  root: string,
  system: BuildSystemKind,
  submodules: readonly string[],
): Promise<ExpectedTarget[]> {
  const tree = await walkTree(root);
  return inferTargets(root, tree.files, { exclude: [...submodules], primary: system });
}
