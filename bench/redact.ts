/**
 * Redaction cost on a ~100 MB build log (the layer-1 bench's generator): the line-buffered stream redactor
 * alone (64 KiB chunks, the secret values of this process's environment plus ten more), and a command
 * printing the log in a host sandbox through the output policy (redacted, bounded log) against the same
 * command through `runProcess` writing its log raw, as every backend did before. Run alone:
 * `npx tsx bench/redact.ts`.
 */
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

import { chunk, lcg, type BenchResult } from './logparse.js';
import { runProcess } from '../src/base/process.js';
import { execWithPolicy } from '../src/sandbox/output-policy.js';
import type { ExecOptions, ExecResult } from '../src/sandbox/types.js';
import { collectSecretValues, createRedactor, createStreamRedactor } from '../src/trajectory/redact.js';

const MB = 1024 * 1024;

export async function benchRedact(options: { megabytes?: number } = {}): Promise<BenchResult[]> {
  const megabytes = options.megabytes ?? 100;
  const dir = await mkdtemp(path.join(tmpdir(), 'buildbench-redact-'));
  try {
    const file = path.join(dir, 'build.log');
    const next = lcg(42);
    const handle = await open(file, 'w');
    const pieces: string[] = [];
    let bytes = 0;
    let lines = 0;
    while (bytes < megabytes * MB) {
      const { text, lines: n } = chunk(next, lines, MB);
      lines += n;
      pieces.push(text);
      await handle.write(text);
      bytes += Buffer.byteLength(text);
    }
    await handle.close();
    const secrets = [
      ...collectSecretValues(process.env),
      ...Array.from({ length: 10 }, (_v, i) => `bench-secret-value-${i}-0123456789abcdef`),
    ];
    const redact = createRedactor(secrets);

    // The stream redactor alone, in 64 KiB chunks.
    const all = pieces.join('');
    const stream = createStreamRedactor(redact);
    let outChars = 0;
    const t0 = performance.now();
    for (let i = 0; i < all.length; i += 64 * 1024)
      outChars += stream.push(all.slice(i, i + 64 * 1024)).length;
    outChars += stream.end().length;
    const streamSeconds = (performance.now() - t0) / 1000;
    if (outChars !== all.length) throw new Error('the redactor changed a log that holds no secret');

    // `cat` of the log in a process: raw log (before) against the policy's redacted, bounded log (after).
    const run = (options: ExecOptions): Promise<ExecResult> =>
      runProcess('cat', [file], {
        timeoutMs: 600_000,
        ...(options.logPath ? { logPath: options.logPath } : {}),
        ...(options.onOutput ? { onOutput: options.onOutput } : {}),
      });
    const t1 = performance.now();
    await run({ timeoutMs: 600_000, logPath: path.join(dir, 'raw.log') });
    const rawSeconds = (performance.now() - t1) / 1000;
    const t2 = performance.now();
    const policed = await execWithPolicy(
      { exec: (_s, o) => run(o) },
      'cat',
      { timeoutMs: 600_000, logPath: path.join(dir, 'policed.log') },
      {
        openRedactor: () => createStreamRedactor(redact),
        redact,
      },
    );
    const policedSeconds = (performance.now() - t2) / 1000;
    const size = (await stat(file)).size;
    return [
      { name: 'redact stream: log size', value: Math.round(size / MB), unit: 'MB' },
      { name: 'redact stream: secrets known', value: secrets.length, unit: 'values' },
      {
        name: 'redact stream: throughput',
        value: Number((size / MB / streamSeconds).toFixed(1)),
        unit: 'MB/s',
      },
      { name: 'exec 100 MB output, raw log (before)', value: Number(rawSeconds.toFixed(2)), unit: 's' },
      {
        name: 'exec 100 MB output, redacted + bounded log (after)',
        value: Number(policedSeconds.toFixed(2)),
        unit: 's',
      },
      {
        name: 'exec 100 MB output: log file kept (after)',
        value: Number(((await stat(path.join(dir, 'policed.log'))).size / MB).toFixed(1)),
        unit: 'MB',
      },
      {
        name: 'exec 100 MB output: log truncated (after)',
        value: policed.logTruncated ? 1 : 0,
        unit: 'bool',
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await benchRedact())
    console.log(`${r.name.padEnd(62)} ${String(r.value).padStart(12)} ${r.unit}`);
}
