/**
 * The CLI's help texts: `buildbench --help`, `build --help`, `report --help`. Kept apart from the commands so that
 * `--version` and `--help` load nothing else (issue 32: a command imports what it uses when it uses it).
 */
import { VERSION } from '../base/version.js';

/** The build command's options, environment and exit status: the end of USAGE, and all of `build --help`. */
export const BUILD_OPTIONS = `build options:
  --out <dir>          where results go (default: ./buildbench-out/<repo>)
  --sandbox <kind>     auto | rootfs | docker | host (default: auto — docker if an engine answers, else rootfs)
  --image <image>      docker image for --sandbox docker (default: ubuntu:22.04)
  --strategy <name>    rules | baseline | llm | hybrid (default: rules; hybrid when --model is given)
  --max-turns <n>      at most n scripts (default: 10)
  --timeout <time>     wall-clock budget for the whole run, e.g. 900, 20m, 1h (default: 1h)
  --turn-timeout <t>   wall-clock cap for one script (default: 30m)
  --idle-timeout <t>   a script that prints nothing this long is ended and the run is 'stalled'
                       (default: 10m; 0 or off: never)
  --progress-interval <t>  while a script runs, a line this often with its elapsed time, its log's size
                       and last line, and the log file to follow (default: 15s; 0 or off: none)
  --expect <names>     comma-separated binaries that must be built, e.g. foo,libfoo.so
                       (default: inferred from the build files)
  --model <p:model>    a model for the llm/hybrid strategies: openai:<model> (any OpenAI-compatible
                       server via --base-url) or anthropic:<model>
  --api-key <key>      the model's key (default: OPENAI_API_KEY / ANTHROPIC_API_KEY)
  --base-url <url>     the model server (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's)
  --max-tokens <n>     token budget for the whole run (input + output)
  --max-cost <usd>     dollar budget for the whole run
  --prices <file>      a price table (YAML) replacing the shipped one
  --keep               keep the sandbox's build tree for inspection (its location is printed)
  --no-preinstall      do nothing before the first script: neither install the dependencies the build files
                       declare nor apply the repairs the tree predicts (an include of a header the C library
                       removed); the repair loop then finds each after a failure (for before/after measurements)
  --always-replay      replay build.sh in a new fresh sandbox even when the first turn, the first script of
                       the run's fresh sandbox, passed and is build.sh byte for byte (default: that turn is
                       the replay; a second, independent build catches one that is not repeatable)
  --build-cache <dir>  package downloads and ccache shared by rootfs and docker sandboxes, or 'off'
                       (default: BUILDBENCH_BUILD_CACHE, else <cache>/build-cache)
  --network <mode>     isolated | host | none: the build's network (default: isolated — its own network
                       namespace with user-mode networking: package mirrors yes, this machine's loopback no)
  --memory <size|off>  memory limit of the sandbox, e.g. 8G (default: 3/4 of this machine's memory)
  --pids <n|off>       most processes at once in the sandbox (default: 16384)
  --spec <file.yml>    a layer-2 verifier spec: commands run in the final environment and what they
                       must show (exit code, files, output, a port, GPU); hidden: true runs it after the end
  --secret-env <names> variables of this environment whose values are secrets, e.g. DATABASE_URL,DEPLOY_KEY
                       (repeatable; also BUILDBENCH_SECRET_ENV): redacted from every output file like
                       *_TOKEN, *_KEY, *SECRET* and *PASSWORD* variables are
  --max-log-size <n>   each log keeps its first and last half of n bytes, e.g. 512K, 20M (default: 20M)
  --json               print result.json on stdout instead of a summary

Environment:
  BUILDBENCH_CACHE_DIR  cache for the rootfs base and toolchain layer (default: ~/.cache/buildbench)
  BUILDBENCH_WORK_DIR   where per-build sandboxes live (default: <cache>/work)
  BUILDBENCH_BUILD_CACHE  the build cache folder, or 'off' (default: <cache>/build-cache)
  BUILDBENCH_MIRROR     Debian mirror for the rootfs base (default: http://deb.debian.org/debian)
  BUILDBENCH_DOCKER_TOOLCHAIN  'off': the docker sandbox runs --image as it is, without the toolchain
                       image made once over it (default: on)
  BUILDBENCH_SECRET_ENV comma-separated variable names whose values are secrets (as --secret-env)

Exit status: 0 success, 1 partial or failed build, 2 usage or configuration error, 3 sandbox error
(the sandbox could not be started or failed, not the build), 130 cancelled.
Results: <out>/result.json, trajectory.jsonl, logs/turn-NN.log, artifacts/.
`;

export const USAGE = `buildbench ${VERSION} — builds other people's software in a sandbox and proves the result

Usage:
  buildbench build <path|git-url> [options]
  buildbench deploy <path|git-url> --task <deploy-task.yml> [options]
                                   make a paper's target experiment run; a hidden verifier judges it (see deploy --help)
  buildbench report <out-dir>      re-render RUNBOOK.md and print the summary from result.json + trajectory.jsonl
  buildbench verify <out-dir|build-tree> [--spec file.yml] [--expect names] [--sandbox auto|rootfs|host|none] [--json]
                                   re-run the verifiers on a kept (--keep) or hand-made build; exit 0 all pass, 1 not
  buildbench bench <task files or dirs…> [--runs N] [--concurrency C] [--out DIR] [--resume] [--repos-dir DIR]
                                   run a benchmark suite into a bench folder with a leaderboard (see bench --help)
  buildbench matrix <task files or dirs…> [--runs N] [--chunk 256] [--labels gpu=self-hosted,gpu]…
                                   print the GitHub Actions matrix of a benchmark (JSON; see matrix --help)
  buildbench leaderboard <dirs…> [--out DIR]
                                   (re)render leaderboard.md, .json and .svg from result folders
  buildbench compare <A> <B> [--json] [--fail-if strict-dropped|flexible-dropped|any-loss]
                                   per-task wins, losses and ties of B against A; exit 1 when --fail-if holds
  buildbench diagnose <log file|-> [--json] [--file path…]
                                   root cause and fix of a failed build log, no sandbox; exit 1 nothing build-related
  buildbench --help | --version
  buildbench <command> --help      one command's options

${BUILD_OPTIONS}`;

/** `buildbench build --help`. */
export const BUILD_HELP = `usage: buildbench build <path|git-url> [options]

Builds the repository at <path> (or a clone of <git-url>) in a fresh sandbox, repairs what fails, proves the
result with verifiers and writes result.json, RUNBOOK.md, build.sh, a Dockerfile and patches to --out.

${BUILD_OPTIONS}`;

/** `buildbench report --help`. */
export const REPORT_HELP = `usage: buildbench report <out-dir>

Re-renders RUNBOOK.md in <out-dir> from its result.json and trajectory.jsonl and prints the summary
\`buildbench build\` printed. Runs nothing: no sandbox, no model.

Exit status: 0 done, 2 usage error or an unreadable result.json.
`;
