/**
 * A finished run's recipe as a `Dockerfile`, from the same recipe as build.sh: FROM the sandbox's base
 * image, the packages, the repository, the patches, then one RUN per step (or build.sh when a step does
 * not fit on one RUN line).
 */
import { shq } from '../base/shell.js';
import { needsCompilerWrappers, type FinalRecipe, type StepPurpose } from './model.js';
import { PURPOSE_COMMENT, type RenderMeta } from './render-buildsh.js';

/** The packages the recipe installs, for a Dockerfile that starts from a bare image (tools included). */
export function allPackages(recipe: FinalRecipe): string[] {
  const tools = recipe.tools.flatMap((t) => t.pkg.split(/\s+/).filter(Boolean));
  return [...new Set([...tools, ...recipe.packages, ...(recipe.patches.length > 0 ? ['patch'] : [])])];
}

export interface DockerfileMeta extends RenderMeta {
  /** The image the sandbox ran on (`debian:bookworm` for the rootfs backend). */
  baseImage: string;
}

/** Docker expands `$VAR` in ENV values; a double-quoted value with `\`, `"` and `$` escaped is taken literally. */
function dockerEnvValue(value: string): string {
  return `"${value.replace(/[\\"$]/g, (c) => `\\${c}`)}"`;
}

function dockerSafe(command: string): boolean {
  return !command.includes('\n') && !command.trimEnd().endsWith('\\');
}

/**
 * The compiler wrappers in a Dockerfile: the RUN sources `bb_compiler_wrappers` out of build.sh (which
 * inlines it from shell/bb-lib.sh whenever the environment has extra compiler flags, as here), so the
 * image runs the same copy as build.sh and the turn scripts.
 */
export const DOCKER_WRAPPERS =
  'source <(sed -n \'/^bb_compiler_wrappers() {$/,/^}$/p\' "$RECIPE_DIR/build.sh") && bb_compiler_wrappers';

/**
 * The recipe's folder in the repository: where the pull request commits RUNBOOK.md, build.sh, the Dockerfile
 * and patches/, where the Dockerfile's RECIPE_DIR points by default, and what RUNBOOK.md tells a person to
 * copy the recipe to. One name everywhere; not `.buildbench`, the verifiers' and the replay's scratch folder
 * in working copies.
 */
export const RECIPE_DIR_NAME = 'buildbench';

/** Joins shell fragments into one RUN with Docker line continuations. */
function run(parts: string[]): string {
  return `RUN ${parts.join(' \\\n    ')}`;
}

/**
 * A Dockerfile that builds the repository the way the recipe does: FROM the sandbox's base image, apt-get
 * the packages, COPY the repository, apply patches/, RUN the steps. The build context is the repository
 * root with the recipe in its `buildbench/` folder (RECIPE_DIR_NAME; ARG RECIPE_DIR changes it). Free-form
 * and full-sequence recipes RUN build.sh instead of separate steps.
 */
export function renderDockerfile(recipe: FinalRecipe, meta: DockerfileMeta): string {
  const packages = allPackages(recipe);
  const perStep =
    recipe.mode === 'minimal' &&
    recipe.steps.every((s) => dockerSafe(s.command)) &&
    recipe.prelude.every(dockerSafe) &&
    Object.values(recipe.env).every((v) => !v.includes('\n'));
  const out = [
    `# Builds ${meta.repo}. Written by buildbench ${meta.version} from the same recipe as build.sh (see RUNBOOK.md).`,
    `# Build context: the repository root, with the folder holding this file in it as ${RECIPE_DIR_NAME}/`,
    `# (where buildbench's pull request puts it; otherwise: cp -r <this folder> <repo>/${RECIPE_DIR_NAME}):`,
    `#   docker build -f <repo>/${RECIPE_DIR_NAME}/Dockerfile <repo>`,
    `ARG BASE_IMAGE=${meta.baseImage}`,
    'FROM ${BASE_IMAGE}',
    `ARG RECIPE_DIR=${RECIPE_DIR_NAME}`,
    'SHELL ["/bin/bash", "-o", "pipefail", "-c"]',
    'ENV DEBIAN_FRONTEND=noninteractive',
  ];
  if (packages.length > 0) {
    out.push(
      '',
      `# ${PURPOSE_COMMENT.dependencies} (only what the image lacks)`,
      run([
        'missing=""; for p in ' + packages.map(shq).join(' ') + '; do',
        'dpkg-query -W -f=\'${Status}\' "$p" 2>/dev/null | grep -q \' installed$\' || missing="$missing $p";',
        'done;',
        'if [ -n "$missing" ]; then',
        'apt-get update -q && apt-get install -y -q --no-install-recommends $missing && rm -rf /var/lib/apt/lists/*;',
        'fi',
      ]),
    );
  }
  out.push('', '# the repository, as it was checked out', 'WORKDIR /src', 'COPY . /src');
  if (!perStep) {
    out.push(
      '',
      recipe.mode === 'full'
        ? '# the scripts of the original run, in order (they make their own source edits)'
        : '# the recipe has multi-line steps: build.sh runs them (and applies the patches)',
      'RUN bash "$RECIPE_DIR/build.sh" /src',
    );
    return out.join('\n') + '\n';
  }
  if (recipe.patches.length > 0) {
    out.push(
      '',
      `# ${PURPOSE_COMMENT.patch}`,
      run([`for p in ${recipe.patches.map(shq).join(' ')}; do`, 'patch -p1 -f < "$RECIPE_DIR/$p";', 'done']),
    );
  }
  if (recipe.prelude.length > 0) {
    out.push('', '# preparation the repairs added');
    for (const line of recipe.prelude) out.push(`RUN ${line}`);
  }
  const env = Object.entries(recipe.env);
  out.push('', '# environment: variables the steps read', 'ENV BB_ROOT=/src');
  for (const [key, value] of env) out.push(`ENV ${key}=${dockerEnvValue(value)}`);
  if (needsCompilerWrappers(recipe.env)) {
    out.push(
      "# extra compiler flags reach every build system through wrappers first on PATH: build.sh's copy of the",
      '# shell library function bb_compiler_wrappers writes them',
      'ENV BB_WRAPPER_DIR=/opt/buildbench/bin',
      `RUN ${DOCKER_WRAPPERS}`,
      'ENV PATH=/opt/buildbench/bin:$PATH',
    );
  }
  let last: StepPurpose | undefined;
  for (const step of recipe.steps) {
    if (step.purpose !== last) out.push('', `# ${PURPOSE_COMMENT[step.purpose]}`);
    last = step.purpose;
    out.push(`RUN ${step.command}`);
  }
  return out.join('\n') + '\n';
}
