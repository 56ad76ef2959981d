/**
 * Micro-benchmarks: `npm run bench` (or `npx tsx bench/run.ts [--only <suite>] [--out <file>]`).
 * Runs each registered suite, prints a table (name, value, unit) and writes bench-results.json in the
 * current directory. A suite whose module is not there yet is skipped with a note; a suite that throws is
 * reported and makes the exit status 1.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

interface Suite {
  name: string;
  /** Module next to this file, without extension. */
  module: string;
  /** The exported function returning the results. */
  export: string;
}

const SUITES: Suite[] = [
  { name: 'artifacts', module: 'artifacts', export: 'benchArtifacts' },
  { name: 'sandbox', module: 'sandbox', export: 'benchSandbox' },
  { name: 'logparse', module: 'logparse', export: 'benchLogParse' },
  { name: 'diagnose', module: 'diagnose', export: 'benchDiagnose' },
  { name: 'diagnose-hostile', module: 'diagnose-hostile', export: 'benchDiagnoseHostile' },
  { name: 'redact', module: 'redact', export: 'benchRedact' },
  { name: 'rules-vs-baseline', module: 'rules-vs-baseline', export: 'benchRulesVsBaseline' },
  { name: 'llm-prompt', module: 'llm-prompt', export: 'benchLlmPrompt' },
  { name: 'hybrid-vs-llm', module: 'hybrid-vs-llm', export: 'benchHybridVsLlm' },
  { name: 'build-cache', module: 'build-cache', export: 'benchBuildCache' },
  { name: 'harness-overhead', module: 'harness-overhead', export: 'benchHarnessOverhead' },
  { name: 'package-lookup', module: 'package-lookup', export: 'benchPackageLookup' },
  { name: 'vs-hand', module: 'vs-hand', export: 'benchVsHand' },
  { name: 'sandbox-backends', module: 'sandbox-backends', export: 'benchSandboxBackends' },
  { name: 'startup', module: 'startup', export: 'benchStartup' },
];

interface SuiteReport {
  suite: string;
  status: 'ok' | 'skipped' | 'failed';
  note?: string;
  durationMs?: number;
  results: BenchResult[];
}

function usage(message: string): never {
  console.error(`bench: ${message}`);
  console.error(`usage: tsx bench/run.ts [--only <${SUITES.map((s) => s.name).join('|')}>] [--out <file>]`);
  process.exit(2);
}

function parseArgs(rawArgs: string[]): { only: Set<string> | undefined; out: string } {
  // `--only=x` is `--only x`.
  const argv = rawArgs.flatMap((arg) => {
    const eq = arg.indexOf('=');
    return arg.startsWith('--') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg];
  });
  let only: Set<string> | undefined;
  let out = 'bench-results.json';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined || next.startsWith('--')) usage(`${arg} needs a value`);
      return next;
    };
    if (arg === '--only') {
      only ??= new Set();
      for (const name of value().split(',')) {
        if (!SUITES.some((s) => s.name === name)) usage(`unknown suite '${name}'`);
        only.add(name);
      }
    } else if (arg === '--out') {
      out = value();
    } else if (arg === '--help' || arg === '-h') {
      usage('help');
    } else {
      usage(`unknown argument '${arg}'`);
    }
  }
  return { only, out };
}

function isBenchResult(value: unknown): value is BenchResult {
  const r = value as Partial<BenchResult> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.name === 'string' &&
    typeof r.value === 'number' &&
    typeof r.unit === 'string'
  );
}

function findModule(dir: string, module: string): string | undefined {
  for (const ext of ['.ts', '.js', '.mts', '.mjs']) {
    const file = path.join(dir, module + ext);
    if (existsSync(file)) return file;
  }
  return undefined;
}

async function runSuite(dir: string, suite: Suite): Promise<SuiteReport> {
  const file = findModule(dir, suite.module);
  if (!file) {
    return {
      suite: suite.name,
      status: 'skipped',
      note: `bench/${suite.module}.ts is not there yet`,
      results: [],
    };
  }
  const start = performance.now();
  try {
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const fn = mod[suite.export];
    if (typeof fn !== 'function') {
      return {
        suite: suite.name,
        status: 'skipped',
        note: `bench/${path.basename(file)} does not export ${suite.export}()`,
        results: [],
      };
    }
    const results: unknown = await (fn as () => Promise<unknown>)();
    if (!Array.isArray(results) || !results.every(isBenchResult)) {
      throw new Error(`${suite.export}() must return {name, value, unit}[]`);
    }
    return { suite: suite.name, status: 'ok', durationMs: performance.now() - start, results };
  } catch (error) {
    return {
      suite: suite.name,
      status: 'failed',
      note: error instanceof Error ? (error.stack ?? error.message) : String(error),
      durationMs: performance.now() - start,
      results: [],
    };
  }
}

function formatValue(value: number): string {
  return Number.isInteger(value)
    ? value.toLocaleString('en-US')
    : value.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

function printTable(reports: SuiteReport[]): void {
  const rows: [string, string, string][] = [['name', 'value', 'unit']];
  for (const report of reports) {
    for (const r of report.results) rows.push([r.name, formatValue(r.value), r.unit]);
  }
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((row) => row[c]?.length ?? 0)));
  const line = (row: [string, string, string]): string =>
    `${row[0].padEnd(widths[0] ?? 0)}  ${row[1].padStart(widths[1] ?? 0)}  ${row[2]}`;
  console.log(line(rows[0] as [string, string, string]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows.slice(1)) console.log(line(row));
  for (const report of reports) {
    if (report.status === 'skipped') console.log(`skipped ${report.suite}: ${report.note ?? ''}`);
    if (report.status === 'failed') console.error(`FAILED ${report.suite}: ${report.note ?? ''}`);
  }
}

async function main(): Promise<void> {
  const { only, out } = parseArgs(process.argv.slice(2));
  const dir = path.dirname(fileURLToPath(import.meta.url));
  const reports: SuiteReport[] = [];
  for (const suite of SUITES) {
    if (only && !only.has(suite.name)) continue;
    console.error(`bench: running ${suite.name}…`);
    reports.push(await runSuite(dir, suite));
  }
  printTable(reports);
  const file = path.resolve(out);
  await writeFile(
    file,
    JSON.stringify(
      {
        time: new Date().toISOString(),
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        suites: reports,
      },
      null,
      2,
    ) + '\n',
  );
  console.error(`bench: wrote ${file}`);
  if (reports.some((r) => r.status === 'failed')) process.exitCode = 1;
}

await main();
