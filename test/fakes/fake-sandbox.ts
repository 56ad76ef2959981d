import type { ExecOptions, ExecResult, Sandbox } from '../../src/sandbox/types.js';

/** A sandbox whose commands are answered by a function: for loop and strategy tests without a real one. */
export class FakeSandbox implements Sandbox {
  readonly kind = 'host' as const;
  readonly id = 'fake';
  readonly workdir = '/workspace';
  /** A subclass may give a real folder (the runBuild unit test builds into one). */
  readonly hostWorkdir: string = '/nonexistent';
  readonly image = 'fake';
  readonly scripts: string[] = [];
  disposed = false;

  constructor(
    private readonly answer: (script: string, n: number, options: ExecOptions) => Partial<ExecResult>,
  ) {}

  exec(script: string, options: ExecOptions): Promise<ExecResult> {
    this.scripts.push(script);
    const partial = this.answer(script, this.scripts.length - 1, options);
    return Promise.resolve({
      exitCode: 0,
      timedOut: false,
      cancelled: false,
      durationMs: 1,
      output: '',
      truncated: false,
      totalBytes: 0,
      ...partial,
    });
  }

  describeLocation(): string {
    return 'nowhere';
  }

  dispose(): Promise<void> {
    this.disposed = true;
    return Promise.resolve();
  }
}
