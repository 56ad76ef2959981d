/** Running git from the harness (never inside a sandbox): one helper for every folder that clones or asks git. */
import { SandboxError } from './errors.js';
import { runProcess } from './process.js';

/**
 * Runs git (stdout and stderr interleaved, no terminal prompt). A git that cannot be started is exit code
 * 127 with the reason as its output; a timeout or a cancel ends the output with a line saying so.
 */
export async function git(
  args: string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ code: number; out: string }> {
  let result;
  try {
    result = await runProcess('git', args, {
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
      timeoutMs,
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (error instanceof SandboxError) return { code: 127, out: error.message };
    throw error;
  }
  const ended = result.timedOut
    ? `\ngit timed out after ${timeoutMs / 1000} s`
    : result.cancelled
      ? '\ngit was cancelled'
      : '';
  return { code: result.exitCode, out: result.output + ended };
}

/** The line of git's output that says what went wrong (its `fatal:` line, else its last line). */
export function gitFailure(code: number, out: string): string {
  const lines = out.trim().split('\n').filter(Boolean);
  return lines.find((l) => l.startsWith('fatal:')) ?? lines.pop() ?? `git exited with ${code}`;
}
