/** `buildbench verify`: flags → VerifySettings → runVerify → a pass/fail table (or JSON) and the exit status. */
import path from 'node:path';

import { ConfigError } from '../base/errors.js';
import {
  runVerify,
  VERIFY_SANDBOX_CHOICES,
  type VerifyReport,
  type VerifySettings,
} from '../core/run-verify.js';
import { parseChoice, parseExpect, sandboxSettingsFrom } from '../core/settings.js';
import { describeExclusion } from '../verify/policy.js';
import { parseCliArgs } from './args.js';

export const VERIFY_USAGE = `usage: buildbench verify <out-dir|build-tree> [--spec file.yml] [--expect names] [--sandbox auto|rootfs|host|none] [--json]`;

export const VERIFY_HELP = `${VERIFY_USAGE}

Re-runs the verifiers on a build that already happened and prints a pass/fail table.
  <out-dir>            the output folder of \`buildbench build --keep\`: its kept build tree is scanned
                       again (against the snapshot taken before the build)
  <build-tree>         any other folder, e.g. a build done by hand: files git tracks are not new
  --spec <file.yml>    a layer-2 spec to run (default: the one the build used, if any)
  --expect <names>     comma-separated binaries that must be there (default: the build's, or inferred)
  --sandbox <kind>     where spec checks and probes run: auto (the kept rootfs sandbox when it can be
                       entered again, else nowhere), rootfs, host (this machine, in the tree itself),
                       none (scan only; spec checks are reported as not run)
  --json               print the report as JSON

Exit status: 0 every required check passed, 1 some failed, 2 usage or configuration error.
`;

export function parseVerifyArgs(args: string[], io: { env: NodeJS.ProcessEnv; cwd: string }): VerifySettings {
  const parsed = parseCliArgs(
    args,
    {
      spec: { type: 'string' },
      expect: { type: 'string' },
      sandbox: { type: 'string' },
      json: { type: 'boolean' },
    },
    { prefix: 'verify: ', hint: VERIFY_USAGE },
  );
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    throw new ConfigError(
      positionals.length === 0
        ? 'verify: missing <out-dir|build-tree>'
        : `verify: expected one folder, got ${positionals.length}: ${positionals.join(' ')}`,
      VERIFY_USAGE,
    );
  }
  const sandbox = parseChoice(values.sandbox ?? 'auto', VERIFY_SANDBOX_CHOICES, '--sandbox');
  return {
    target: path.resolve(io.cwd, positionals[0]!),
    ...(values.spec !== undefined ? { spec: path.resolve(io.cwd, values.spec) } : {}),
    expect: parseExpect(values.expect),
    json: values.json ?? false,
    sandbox,
    sandboxSettings: sandboxSettingsFrom(io.env, sandbox === 'host' ? 'host' : 'rootfs', undefined),
  };
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The pass/fail table and a one-line result, for people. */
export function renderVerifyReport(report: VerifyReport): string {
  const checks = report.verification.checks;
  const width = Math.min(44, Math.max(5, ...checks.map((c) => c.name.length)));
  const lines = [`${'RESULT'.padEnd(6)}  ${'CHECK'.padEnd(width)}  DETAIL`];
  for (const c of checks) {
    const mark = c.passed ? 'pass' : c.required ? 'FAIL' : 'warn';
    const note = c.required ? '' : ' (advisory)';
    lines.push(`${mark.padEnd(6)}  ${clip(c.name, width).padEnd(width)}  ${clip(c.detail, 160)}${note}`);
  }
  if (report.excludedArtifacts.length > 0) {
    lines.push('', 'not counted:');
    for (const e of report.excludedArtifacts.slice(0, 20))
      lines.push(`  ${e.path} (${describeExclusion(e)})`);
    if (report.excludedArtifacts.length > 20)
      lines.push(`  … and ${report.excludedArtifacts.length - 20} more`);
  }
  lines.push(
    '',
    `tree: ${report.tree}`,
    `  baseline ${report.baseline}; commands ran in: ${report.execution}; completion ${yes(report.metrics.completion)}` +
      `  strict ${yes(report.metrics.strict)}  flexible ${yes(report.metrics.flexible)}` +
      `  (expected ${report.expected.names.join(', ') || 'any new binary'}; ${report.expected.source})`,
  );
  for (const note of report.notes) lines.push(`  note: ${note}`);
  const required = checks.filter((c) => c.required);
  const failed = required.filter((c) => !c.passed).length;
  lines.push(
    report.passed
      ? `PASS: all ${required.length} required checks passed`
      : `FAIL: ${failed} of ${required.length} required checks failed`,
  );
  return lines.join('\n') + '\n';
}

const yes = (b: boolean): string => (b ? 'yes' : 'no');

/** Runs `buildbench verify`; 0 when every required check passed, 1 otherwise. ConfigError is thrown (exit 2). */
export async function runVerifyCommand(
  args: string[],
  io: { stdout: (text: string) => void; env: NodeJS.ProcessEnv; cwd: string },
): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(VERIFY_HELP);
    return 0;
  }
  const settings = parseVerifyArgs(args, io);
  const report = await runVerify(settings);
  io.stdout(settings.json ? JSON.stringify(report, null, 2) + '\n' : renderVerifyReport(report));
  return report.passed ? 0 : 1;
}
