import type { Action, Strategy, TurnContext } from '../types.js';

/**
 * The GHCC-style rule, kept for comparison: `./configure && make`, else `cmake` in `build/`, else `make`,
 * at the repository root, once. Tools the rule needs are installed when the image lacks them.
 */
export const BASELINE_SCRIPT = `set -eo pipefail
export DEBIAN_FRONTEND=noninteractive
if ! command -v cc >/dev/null || ! command -v make >/dev/null || ! command -v cmake >/dev/null; then
  apt-get update -q && apt-get install -y -q --no-install-recommends build-essential cmake
fi
if [ -f configure ]; then
  sh ./configure && make -j"$(nproc)"
elif [ -f CMakeLists.txt ]; then
  mkdir -p build && cd build && cmake .. && make -j"$(nproc)"
elif [ -f Makefile ] || [ -f makefile ] || [ -f GNUmakefile ]; then
  make -j"$(nproc)"
else
  echo 'baseline: no configure, CMakeLists.txt or Makefile at the repository root' >&2
  exit 1
fi
`;

export class BaselineStrategy implements Strategy {
  readonly name = 'baseline';

  next(context: TurnContext): Promise<Action> {
    if (context.history.length === 0) {
      return Promise.resolve({
        kind: 'run',
        script: BASELINE_SCRIPT,
        purpose: 'configure && make | cmake | make',
        reason: 'the GHCC baseline rule',
      });
    }
    const last = context.history[context.history.length - 1]?.observation;
    return Promise.resolve({
      kind: 'finish',
      claim: last?.verdict.metrics.completion ? 'partial' : 'impossible',
      reason: last?.rootCause
        ? `the baseline rule failed: ${last.rootCause.message}`
        : last && last.exec.exitCode !== 0
          ? `the baseline rule failed: ${lastLine(last.output) || `exit ${last.exec.exitCode}`}`
          : 'the baseline rule did not produce the expected binaries',
    });
  }
}

/** The last non-empty line of a script's output (the baseline's own message, when it found nothing to run). */
function lastLine(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('+'));
  return (lines[lines.length - 1] ?? '').slice(0, 300);
}
