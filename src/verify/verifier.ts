/**
 * All the verifiers of one build tree behind one object: the artifact scan (new binaries only), the scoring
 * policy (vendored, submodule and test directories set aside), BUILD-BENCH scoring, a layer-2 spec and the
 * functional probes. The agent loop calls `verify()` after every turn — only its verdict can end a run
 * with SUCCESS; the harness calls `finish()` once after the loop (hidden spec, advisory probes) and
 * `report()` for result.json. `buildbench verify` uses the same object on a kept or hand-built tree.
 *
 * Which checks are required:
 * - artifacts: every expected name (strict), or any new binary when none is expected — except when a spec is
 *   given and nothing is expected: then the spec decides and the artifact check is advisory;
 * - every check of the spec; the spec's probes when it asks for them (`probes: { run, debug_info }`);
 * - the spec's checks are not run while expected binaries are missing (they would fail anyway, and a
 *   server check can take a while); they are listed as not run.
 * Probes the spec did not ask for are advisory: recorded, never changing the verdict. The advisory run probe
 * rides on each turn's command when it can (`turnEpilogue`), so the last turn's command has started the
 * programs already when `finish()` looks.
 */
import path from 'node:path';

import { errorMessage } from '../base/errors.js';
import type { Sandbox } from '../sandbox/types.js';
import { scanNewArtifacts, type ClassifiedStamp, type ExcludeFn } from './artifacts.js';
import { excludeBuildScratch } from './exclude.js';
import { removeScratch, runSpec } from './layer2.js';
import {
  describeExclusion,
  partitionArtifacts,
  type ExcludedArtifact,
  type ScoringPolicy,
} from './policy.js';
import {
  epilogueResults,
  executablesToProbe,
  probeDebugInfo,
  probeEpilogue,
  probeExecutables,
  type ProbeEpilogue,
  type ProbeResult,
} from './probes.js';
import { artifactBaseName } from './scoring.js';
import { loadSpec, type Layer2Spec } from './spec.js';
import type { Artifact, Expected, Metrics, TreeSnapshot, Verdict } from './types.js';
import { judgeArtifacts } from './verdict.js';
import {
  artifactChecks,
  auditSelfStop,
  type ClaimRecord,
  type Verification,
  type VerificationCheck,
} from './verification.js';

export interface VerifierOptions {
  /** The build tree on this machine (the sandbox's `hostWorkdir`). */
  root: string;
  /** The tree before the build: files in it (unchanged) are not new. */
  before: TreeSnapshot;
  expected: Expected;
  policy: ScoringPolicy;
  /** Where spec checks and run probes execute; without one they are listed as not run. */
  sandbox?: Sandbox;
  /** A spec whose checks are part of every `verify()` (a visible spec). */
  spec?: Layer2Spec;
  signal?: AbortSignal;
  /** Paths the scan leaves out. Default: build-system scratch (and `.buildbench`). */
  exclude?: ExcludeFn;
  /** Most executables started by the advisory run probe. Default 8. */
  probeLimit?: number;
  /** Sourced (when it exists) before every spec command: a deploy run's environment file (layer2.ts). */
  envFile?: string;
}

/** Most binaries read for the debug-info probe. */
const DEBUG_PROBE_LIMIT = 32;

export class BuildVerifier {
  /** New binaries that count (after the policy), from the last `verify()`. */
  artifacts: Artifact[] = [];
  /** New binaries set aside by the policy, with the reason. */
  excluded: ExcludedArtifact[] = [];
  metrics: Metrics | undefined;
  private readonly cache = new Map<string, ClassifiedStamp>();
  private turnChecks: VerificationCheck[] = [];
  private finalChecks: VerificationCheck[] = [];
  private specInfo: Verification['spec'];
  /** The run probe the last turn's command carried (`turnEpilogue`), until `finish()` reads it. */
  private epilogue: ProbeEpilogue | undefined;

  /** The expectation changes when a run falls back to another build system (core/stages/expectation.ts). */
  reexpect(expected: Expected): void {
    this.options = { ...this.options, expected };
  }

  constructor(private options: VerifierOptions) {
    const spec = options.spec;
    if (spec) this.specInfo = describeSpec(spec);
  }

  /** Scans, scores and runs the spec's checks. For the agent loop: only this verdict allows SUCCESS. */
  async verify(): Promise<{ artifacts: Artifact[]; verdict: Verdict }> {
    const { root, before, expected, policy, spec } = this.options;
    const found = await scanNewArtifacts(root, before, {
      exclude: this.options.exclude ?? excludeBuildScratch,
      cache: this.cache,
    });
    const { counted, excluded } = partitionArtifacts(found, policy);
    this.artifacts = counted;
    this.excluded = excluded;
    const judged = judgeArtifacts(counted, expected);
    this.metrics = judged.metrics;
    const artifactsRequired = !(spec && expected.names.length === 0);
    const checks = artifactChecks(judged.metrics, expected, excluded, artifactsRequired);
    if (spec) {
      if (artifactsRequired && !judged.passed) {
        checks.push(...notRun(spec, 'not run: the expected binaries are missing'));
      } else {
        checks.push(...(await this.specChecks(spec)));
      }
    }
    this.turnChecks = checks;
    const failures: string[] = [];
    if (artifactsRequired) {
      for (const failure of judged.failures) failures.push(this.explain(failure, excluded));
    }
    for (const check of checks) {
      if (check.required && !check.passed && check.source !== 'artifacts')
        failures.push(`${check.name}: ${check.detail}`);
    }
    const passed = checks.every((c) => c.passed || !c.required);
    return { artifacts: counted, verdict: { passed, metrics: judged.metrics, failures } };
  }

  /**
   * Once, after the loop: the hidden spec (loaded only now) and, when `probes` is set and a sandbox is there,
   * the advisory run probe of up to `probeLimit` produced executables.
   */
  async finish(options: { hiddenSpecFile?: string; probes?: boolean } = {}): Promise<void> {
    const { sandbox, expected } = this.options;
    const checks: VerificationCheck[] = [];
    if (options.hiddenSpecFile) {
      let hidden: Layer2Spec | undefined;
      try {
        hidden = await loadSpec(options.hiddenSpecFile);
      } catch (error) {
        checks.push({
          name: 'spec: (hidden spec)',
          passed: false,
          detail: `could not be loaded after the run: ${errorMessage(error)}`,
          source: 'spec',
          required: true,
          hidden: true,
        });
      }
      if (hidden) {
        this.specInfo = { ...describeSpec(hidden), hidden: true };
        const artifactsRequired = expected.names.length > 0 || !this.options.spec;
        const missing =
          artifactsRequired && this.turnChecks.some((c) => c.source === 'artifacts' && !c.passed);
        const results = missing
          ? notRun(hidden, 'not run: the expected binaries are missing')
          : await this.specChecks(hidden);
        checks.push(...results.map((c) => ({ ...c, hidden: true })));
      }
    }
    const probedByTurn = this.turnChecks.some((c) => c.source === 'probe' && c.name.startsWith('probe run'));
    if (options.probes && sandbox && !probedByTurn && !this.options.signal?.aborted) {
      const paths = this.advisoryProbeTargets();
      if (paths.length > 0) {
        // The last turn's command started them already when its epilogue ran and chose the same ones.
        const started = this.epilogue
          ? await epilogueResults(this.options.root, this.epilogue, paths)
          : undefined;
        this.epilogue = undefined;
        const results =
          started ??
          (await probeExecutables(sandbox, paths, {
            ...(this.options.signal ? { signal: this.options.signal } : {}),
          }));
        checks.push(...results.map((r) => probeCheck(r, false)));
      }
    }
    await this.dropEpilogue();
    this.finalChecks = checks;
  }

  /**
   * The advisory run probe as the epilogue of the next turn's command (`probeEpilogue`; `since` is the
   * command's start and `deadline` its limit, ms since the epoch): when that turn is the last and its script
   * exited 0, `finish()` takes its judgements of the executables it would start itself, and needs no sandbox
   * command of its own.
   * Undefined when the spec asks for a run probe (that one runs with every `verify()`) or there is no sandbox.
   * A previous turn's scratch folder is removed first.
   */
  async turnEpilogue(since: number, deadline?: number): Promise<string | undefined> {
    await this.dropEpilogue();
    const { sandbox, spec, expected } = this.options;
    if (!sandbox || spec?.probes.run) return undefined;
    this.epilogue = probeEpilogue(expected.names, {
      since,
      ...(deadline !== undefined ? { deadline } : {}),
      limit: this.options.probeLimit ?? 8,
    });
    return this.epilogue.script;
  }

  private async dropEpilogue(): Promise<void> {
    if (!this.epilogue) return;
    const { rel } = this.epilogue;
    this.epilogue = undefined;
    await removeScratch(this.options.root, path.join(this.options.root, rel));
  }

  /** Every check so far, the verdict over the required ones, and the self-stop audit. */
  report(claims: readonly ClaimRecord[] = [], ranThrough = true): Verification {
    const checks = [...this.turnChecks, ...this.finalChecks];
    const passed = checks.length > 0 && checks.every((c) => c.passed || !c.required);
    return {
      passed,
      checks,
      ...(this.specInfo ? { spec: this.specInfo } : {}),
      selfStop: auditSelfStop(claims, passed, ranThrough),
    };
  }

  /** The failing required checks, one line each. */
  failures(): string[] {
    return [...this.turnChecks, ...this.finalChecks]
      .filter((c) => c.required && !c.passed)
      .map((c) => `${c.name}: ${c.detail}`);
  }

  private async specChecks(spec: Layer2Spec): Promise<VerificationCheck[]> {
    const { sandbox, signal, envFile } = this.options;
    const checks: VerificationCheck[] = [];
    if (spec.checks.length > 0) {
      if (!sandbox) {
        checks.push(...notRun(spec, 'not run: no sandbox to run it in (scan only)'));
      } else {
        const result = await runSpec(spec, sandbox, {
          ...(signal ? { signal } : {}),
          ...(envFile !== undefined ? { envFile } : {}),
        });
        for (const c of result.checks) {
          checks.push({
            name: `spec: ${c.name}`,
            passed: c.passed,
            detail: c.detail,
            source: 'spec',
            required: true,
            ...(c.outputTail ? { outputTail: c.outputTail } : {}),
          });
        }
        for (const c of spec.checks.slice(result.checks.length)) {
          checks.push({
            name: `spec: ${c.name}`,
            passed: false,
            detail: 'not run: cancelled',
            source: 'spec',
            required: true,
          });
        }
      }
    }
    if (spec.probes.run) {
      const paths = this.probeTargets();
      if (paths.length === 0) {
        checks.push({
          name: 'probe run',
          passed: false,
          detail: 'no executable was built to start',
          source: 'probe',
          required: true,
        });
      } else if (!sandbox) {
        checks.push({
          name: 'probe run',
          passed: false,
          detail: 'not run: no sandbox to run it in (scan only)',
          source: 'probe',
          required: true,
        });
      } else {
        const results = await probeExecutables(sandbox, paths, signal ? { signal } : {});
        checks.push(...results.map((r) => probeCheck(r, true)));
      }
    }
    if (spec.probes.debugInfo) {
      const binaries = this.artifacts.filter((a) => a.kind !== 'elf_other').slice(0, DEBUG_PROBE_LIMIT);
      if (binaries.length === 0) {
        checks.push({
          name: 'probe debug_info',
          passed: false,
          detail: 'no binary was built to look at',
          source: 'probe',
          required: true,
        });
      } else {
        const results = await probeDebugInfo(this.options.root, binaries);
        checks.push(...results.map((r) => probeCheck(r, true)));
      }
    }
    return checks;
  }

  private probeTargets(): string[] {
    const matched = Object.values(this.metrics?.matches ?? {}).flat();
    return executablesToProbe(this.artifacts, matched, this.options.probeLimit ?? 8);
  }

  /**
   * What the advisory probe after the loop starts: the expected executables that were built, when there are
   * such; otherwise up to `probeLimit` executables. The rest of a tree's programs (benchmarks, test drivers
   * that ignore --version and run to the probe's limit) tell nothing about the binaries asked for.
   */
  private advisoryProbeTargets(): string[] {
    const matched = new Set(Object.values(this.metrics?.matches ?? {}).flat());
    const targets = this.probeTargets();
    const expected = targets.filter((p) => matched.has(p));
    return expected.length > 0 ? expected : targets;
  }

  /** The artifact failure, with where the name was built when only an excluded copy exists. */
  private explain(failure: string, excluded: readonly ExcludedArtifact[]): string {
    const name = /^expected binary '(.+)' \(/.exec(failure)?.[1];
    if (name === undefined) return failure;
    const elsewhere = excluded.find((e) => artifactBaseName(e.path) === artifactBaseName(name));
    return elsewhere
      ? `${failure} by the project: only ${elsewhere.path} was built (${describeExclusion(elsewhere)}), which does not count`
      : failure;
  }
}

function describeSpec(spec: Layer2Spec): NonNullable<Verification['spec']> {
  return {
    file: spec.file,
    ...(spec.name !== undefined ? { name: spec.name } : {}),
    hidden: spec.hidden,
    checks: spec.checks.length,
  };
}

function notRun(spec: Layer2Spec, detail: string): VerificationCheck[] {
  const checks: VerificationCheck[] = spec.checks.map((c) => ({
    name: `spec: ${c.name}`,
    passed: false,
    detail,
    source: 'spec',
    required: true,
  }));
  if (spec.probes.run)
    checks.push({ name: 'probe run', passed: false, detail, source: 'probe', required: true });
  if (spec.probes.debugInfo) {
    checks.push({ name: 'probe debug_info', passed: false, detail, source: 'probe', required: true });
  }
  return checks;
}

function probeCheck(result: ProbeResult, required: boolean): VerificationCheck {
  return {
    name: `probe ${result.probe === 'run' ? 'run' : 'debug_info'} ${result.path}`,
    passed: result.passed,
    detail: result.detail,
    source: 'probe',
    required,
  };
}
