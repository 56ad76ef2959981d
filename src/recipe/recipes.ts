import path from 'node:path';

import { shq } from '../base/shell.js';
import type { BuildSystem, BuildSystemKind, RepoInfo } from '../repo/types.js';

/** One way to build the repository: a sequence of shell steps run from the repository root. */
export interface Recipe {
  id: string;
  /** The build system the recipe drives; `direct` for direct compilation without one. */
  system: BuildSystemKind | 'direct';
  /**
   * The out-of-tree build directory, relative to the repository root (`build`, `src/builddir`), for the
   * systems that build out of tree (cmake, meson); absent for in-tree builds.
   */
  buildDir?: string;
  /** Short label, e.g. `cmake (src/)`. */
  label: string;
  /** Why this recipe: the evidence from inspection. */
  evidence: string;
  /** Directory (relative to the repository root) where the build happens, '' for the root. */
  dir: string;
  /** Commands that make the recipe's tools available (idempotent: only installs what is missing). */
  tools: ToolNeed[];
  steps: RecipeStep[];
}

export interface RecipeStep {
  purpose: 'dependencies' | 'patch' | 'generate' | 'configure' | 'build';
  command: string;
}

/** A command the recipe needs and the Debian/Ubuntu package that provides it. */
export interface ToolNeed {
  command: string;
  pkg: string;
}

/** Extra state the repair knowledge adds on top of a recipe. */
export interface RecipeFixes {
  /** Packages to install before the recipe runs. */
  packages: string[];
  /** Shell commands run before the recipe (e.g. `git config --global --add safe.directory '*'`). */
  prelude: string[];
  /** Variables exported before the recipe (e.g. CFLAGS with -fcommon). */
  env: Record<string, string>;
  /** Extra arguments for the configure step (e.g. `-DBUILD_TESTING=OFF`). */
  configureArgs: string[];
}

export function emptyFixes(): RecipeFixes {
  return { packages: [], prelude: [], env: {}, configureArgs: [] };
}

const CC_TOOLS: ToolNeed[] = [
  { command: 'cc', pkg: 'build-essential' },
  { command: 'make', pkg: 'make' },
];

function inDir(dir: string, command: string): string {
  return dir === '' ? command : `cd ${shq(dir)} && ${command}`;
}

const JOBS = '-j"${BB_JOBS:-$(nproc)}"';

/** The recipe for one detected build system, or undefined when there is none for Linux. */
export function recipeFor(system: BuildSystem): Recipe | undefined {
  const dir = system.dir;
  const where = dir === '' ? '' : ` (${dir}/)`;
  const base = { dir, system: system.kind, evidence: `${system.file} found` };
  switch (system.kind) {
    case 'cmake': {
      const build = dir === '' ? 'build' : `${dir}/build`;
      return {
        ...base,
        buildDir: build,
        id: `cmake:${dir}`,
        label: `cmake${where}`,
        tools: [...CC_TOOLS, { command: 'cmake', pkg: 'cmake' }],
        steps: [
          { purpose: 'configure', command: `cmake -S ${shq(dir || '.')} -B ${shq(build)} @CONFIGURE_ARGS@` },
          { purpose: 'build', command: `cmake --build ${shq(build)} ${JOBS}` },
        ],
      };
    }
    case 'autotools': {
      const steps: RecipeStep[] = [];
      const autogen = typeof system.details.hasAutogen === 'string' ? system.details.hasAutogen : undefined;
      if (system.details.hasConfigure !== true) {
        steps.push({
          purpose: 'generate',
          command: inDir(dir, autogen ? `NOCONFIGURE=1 sh ./${autogen}` : 'autoreconf -fi'),
        });
      }
      steps.push({ purpose: 'configure', command: inDir(dir, 'sh ./configure @CONFIGURE_ARGS@') });
      steps.push({ purpose: 'build', command: inDir(dir, `make ${JOBS}`) });
      return {
        ...base,
        id: `autotools:${dir}`,
        label: `autotools${where}`,
        tools: [
          ...CC_TOOLS,
          { command: 'autoreconf', pkg: 'autoconf' },
          { command: 'automake', pkg: 'automake' },
          { command: 'libtoolize', pkg: 'libtool' },
          { command: 'pkg-config', pkg: 'pkg-config' },
        ],
        steps,
      };
    }
    case 'configure':
      return {
        ...base,
        id: `configure:${dir}`,
        label: `configure + make${where}`,
        tools: CC_TOOLS,
        steps: [
          { purpose: 'configure', command: inDir(dir, 'sh ./configure @CONFIGURE_ARGS@') },
          { purpose: 'build', command: inDir(dir, `make ${JOBS}`) },
        ],
      };
    case 'make':
      return {
        ...base,
        id: `make:${dir}`,
        label: `make${where}`,
        tools: CC_TOOLS,
        steps: [{ purpose: 'build', command: inDir(dir, `make ${JOBS}`) }],
      };
    case 'meson': {
      const build = dir === '' ? 'builddir' : `${dir}/builddir`;
      return {
        ...base,
        buildDir: build,
        id: `meson:${dir}`,
        label: `meson${where}`,
        tools: [
          ...CC_TOOLS,
          { command: 'meson', pkg: 'meson' },
          { command: 'ninja', pkg: 'ninja-build' },
          { command: 'pkg-config', pkg: 'pkg-config' },
        ],
        steps: [
          {
            purpose: 'configure',
            command: `{ [ -d ${shq(build)} ] && meson setup --reconfigure ${shq(build)} ${shq(dir || '.')} @CONFIGURE_ARGS@; } || meson setup ${shq(build)} ${shq(dir || '.')} @CONFIGURE_ARGS@`,
          },
          { purpose: 'build', command: `ninja -C ${shq(build)}` },
        ],
      };
    }
    case 'qmake':
      return {
        ...base,
        id: `qmake:${dir}`,
        label: `qmake${where}`,
        tools: [...CC_TOOLS, { command: 'qmake', pkg: 'qtbase5-dev qt5-qmake' }],
        steps: [
          {
            purpose: 'configure',
            command: inDir(dir, `qmake ${shq(path.posix.basename(system.file))} @CONFIGURE_ARGS@`),
          },
          { purpose: 'build', command: inDir(dir, `make ${JOBS}`) },
        ],
      };
    case 'scons':
      return {
        ...base,
        id: `scons:${dir}`,
        label: `scons${where}`,
        tools: [...CC_TOOLS, { command: 'scons', pkg: 'scons' }],
        steps: [{ purpose: 'build', command: inDir(dir, `scons ${JOBS}`) }],
      };
    case 'cargo':
      return {
        ...base,
        id: `cargo:${dir}`,
        label: `cargo${where}`,
        tools: [...CC_TOOLS, { command: 'cargo', pkg: 'cargo' }],
        steps: [{ purpose: 'build', command: inDir(dir, 'cargo build --release') }],
      };
    case 'setup.py':
      return {
        ...base,
        id: `setup.py:${dir}`,
        label: `python build_ext${where}`,
        tools: [...CC_TOOLS, { command: 'python3', pkg: 'python3-dev python3-setuptools' }],
        steps: [{ purpose: 'build', command: inDir(dir, 'python3 setup.py build_ext --inplace') }],
      };
    case 'script': {
      const script = path.posix.basename(system.file);
      return {
        ...base,
        id: `script:${system.file}`,
        label: `./${system.file}`,
        tools: CC_TOOLS,
        steps: [{ purpose: 'build', command: inDir(dir, `bash ./${shq(script)}`) }],
      };
    }
    case 'bazel':
      return {
        ...base,
        id: `bazel:${dir}`,
        label: `bazel${where}`,
        tools: [...CC_TOOLS, { command: 'bazel', pkg: 'bazel-bootstrap' }],
        steps: [{ purpose: 'build', command: inDir(dir, 'bazel build //...') }],
      };
    case 'msbuild':
    case 'xcode':
      return undefined;
  }
}

/**
 * Direct compilation when there is no build system: every C/C++ file that defines `main` is compiled with
 * the other sources of its directory that do not.
 */
export function directCompileRecipe(repo: RepoInfo): Recipe | undefined {
  if (repo.mainSources.length === 0) return undefined;
  const steps: RecipeStep[] = [];
  const outputs = new Set<string>();
  for (const main of repo.mainSources.slice(0, 20)) {
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

/** Recipes in order of evidence: every Linux build system inspection found, then direct compilation. */
export function candidateRecipes(repo: RepoInfo): Recipe[] {
  const recipes: Recipe[] = [];
  const ids = new Set<string>();
  for (const system of repo.buildSystems) {
    const recipe = recipeFor(system);
    if (recipe && !ids.has(recipe.id)) {
      ids.add(recipe.id);
      recipes.push(recipe);
    }
  }
  const direct = directCompileRecipe(repo);
  if (direct && (recipes.length === 0 || repo.buildSystems.every((s) => !s.linux))) recipes.push(direct);
  return recipes;
}

/** Shell helper at the top of every script: installs the packages of missing commands, nothing else. */
const PREAMBLE = `set -eo pipefail
export DEBIAN_FRONTEND=noninteractive
bb_apt_install() {
  apt-get install -y -q --no-install-recommends "$@" || { apt-get update -q && apt-get install -y -q --no-install-recommends "$@"; }
}
# Extra compiler flags (toolchain-drift repairs) reach every build system through wrappers first on PATH;
# they come after the build's own flags, so -Wno-error and -fcommon win.
bb_compiler_wrappers() {
  [ -n "\${BB_EXTRA_CFLAGS:-}\${BB_EXTRA_CXXFLAGS:-}" ] || return 0
  mkdir -p /opt/buildbench/bin
  local tool real flags launcher
  for tool in cc gcc c++ g++; do
    real=$(PATH=\${PATH#/opt/buildbench/bin:} command -v "$tool" || true)
    [ -n "$real" ] || continue
    # Behind a ccache link, call ccache with the compiler itself: ccache would find this wrapper on PATH.
    launcher=
    case "$real" in /usr/lib/ccache/*)
      launcher="$(command -v ccache) "
      real=$(p=\${PATH#/opt/buildbench/bin:}; PATH=\${p//\\/usr\\/lib\\/ccache:/} command -v "$tool" || true) ;;
    esac
    [ -n "$real" ] || continue
    case "$tool" in c++|g++) flags="\${BB_EXTRA_CXXFLAGS:-}";; *) flags="\${BB_EXTRA_CFLAGS:-}";; esac
    printf '#!/bin/sh\nexec %s%s "$@" %s\n' "$launcher" "$real" "$flags" > "/opt/buildbench/bin/$tool"
    chmod +x "/opt/buildbench/bin/$tool"
  done
  export PATH="/opt/buildbench/bin:$PATH"
}
# When this build started in this tree: files older than the stamp came with the checkout (a repair that
# changes compiler flags deletes the object files compiled after it; see repair-rules.ts).
BB_STAMP="/tmp/buildbench-start-$(printf '%s' "$PWD" | cksum | cut -d ' ' -f 1)"
[ -e "$BB_STAMP" ] || touch "$BB_STAMP" 2>/dev/null || true
export BB_STAMP
# A make recipe that fails deletes its half-written target (GNU make's .DELETE_ON_ERROR, in every make run),
# so a later script does not take a truncated generated file (\`gen > file.h\` with gen missing) for up to date.
bb_delete_on_error() {
  case " \${MAKEFLAGS:-} " in *" --eval=.DELETE_ON_ERROR: "*) return 0;; esac
  if make --eval=.DELETE_ON_ERROR: --version >/dev/null 2>&1; then
    export MAKEFLAGS="\${MAKEFLAGS:+$MAKEFLAGS }--eval=.DELETE_ON_ERROR:"
  fi
}
bb_need_tools() {
  local missing="" pair
  for pair in "$@"; do command -v "\${pair%%=*}" >/dev/null 2>&1 || missing="$missing \${pair#*=}"; done
  if [ -n "$missing" ]; then
    [ -n "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e '^lock$' -e '^partial$' || true)" ] || apt-get update -q
    # shellcheck disable=SC2086
    bb_apt_install $missing
  fi
}`;

/** Renders a recipe with its fixes as one self-contained bash script run from the repository root. */
export function renderScript(recipe: Recipe, fixes: RecipeFixes): string {
  const out: string[] = [PREAMBLE, ''];
  const tools = recipe.tools.map((t) => shq(`${t.command}=${t.pkg}`)).join(' ');
  out.push(`echo '### buildbench: tools'`, `bb_need_tools ${tools}`, 'bb_delete_on_error');
  if (fixes.packages.length > 0) {
    out.push(`echo '### buildbench: dependencies'`, `bb_apt_install ${fixes.packages.map(shq).join(' ')}`);
  }
  for (const line of fixes.prelude) out.push(line);
  for (const [key, value] of Object.entries(fixes.env)) out.push(`export ${key}=${shq(value)}`);
  if (fixes.env.BB_EXTRA_CFLAGS || fixes.env.BB_EXTRA_CXXFLAGS) out.push('bb_compiler_wrappers');
  const configureArgs = fixes.configureArgs.map(shq).join(' ');
  const root = 'BB_ROOT="$PWD"';
  out.push(root);
  for (const step of recipe.steps) {
    out.push(`echo '### buildbench: ${step.purpose}'`);
    out.push(`(${step.command.replaceAll('@CONFIGURE_ARGS@', configureArgs).trimEnd()})`);
  }
  return out.join('\n') + '\n';
}
