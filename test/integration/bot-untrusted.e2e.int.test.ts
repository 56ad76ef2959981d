/**
 * The App's path for three attack classes of issue 28, end to end: the real server (`src/bot/server.ts`, started
 * as `npm run bot` starts it, with tsx) against the local fake GitHub API (test/fakes/fake-github-api.ts), every
 * delivery signed and sent over real HTTP, as in bot.e2e.int.test.ts and bot-provenance.e2e.int.test.ts (whose
 * payload moves and command flow this copies). The intake answers 202 at once and handlers run in the
 * background, so effects are waited for on the fake's record.
 *
 * - A zip bomb artifact: a dispatched run completes with an artifact whose 256 `patches/*.patch` entries all
 *   point at one deflated block, each declaring 4 MiB (1 GiB in all): the status comment says it was refused,
 *   nothing is written to git or pull requests, and the server process's peak RSS stays under 300 MB.
 * - A hostile result.json (test/helpers/hostile-result.ts) in an otherwise valid artifact: the status comment,
 *   the recipe pull request's title and body and its commit messages hold nothing live
 *   (test/helpers/github-live.ts) beyond buildbench's own markup.
 * - A hostile 5 MiB CI log (test/helpers/hostile-log.ts) on a failed CI run of a pull request: the diagnosis
 *   comment names the root cause the benign log gives, says nothing about stopping early, comes within 30 s,
 *   and the server answers `GET /ping` within 250 ms throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { inflateRawSync } from 'node:zlib';
import { zipSync } from 'fflate';

import { crc32 } from '../../src/bot/artifact-zip.js';
import { MAX_LOG_BYTES } from '../../src/bot/ci-failure.js';
import { STATUS_MARKER } from '../../src/bot/sticky.js';
import { diagnoseLog, type Diagnosis } from '../../src/knowledge/diagnose/diagnosis.js';
import { startFakeGitHubApi, type FakeGitHubApi } from '../fakes/fake-github-api.js';
import {
  buildCommand,
  processMemory,
  ROOT,
  serverProcessId,
  startBotServer,
  waitFor as waitForServer,
  type RunningServer,
} from '../helpers/bot-server.js';
import { findLive, liveBeyond } from '../helpers/github-live.js';
import { benignLog, hostileLog } from '../helpers/hostile-log.js';
import { hostileResult } from '../helpers/hostile-result.js';
import { craftZip, zerosStream, type ZipLocal } from '../helpers/zip-bytes.js';

const SECRET = 'e2e-untrusted-secret';
const APP_ID = 4713;
const INSTALLATION_ID = 31339;
const MiB = 1024 * 1024;

/** The repository of the dispatched builds (the recorded issue_comment payloads' repository). */
const OWNER = 'Codertocat';
const REPO = 'Hello-World';
const PR = 1;
const PR_HEAD = 'fix-readme-spelling';
/** The repository of the failed CI run (the recorded workflow_run failure payload's repository). */
const CI_OWNER = 'octo-org';
const CI_REPO = 'octo-repo';

/** Git data and pull request writes: none may happen for a refused artifact. */
const WRITES = /^(POST|PATCH|PUT|DELETE) \/repos\/[^/]+\/[^/]+\/(git\/|pulls(\/\d+)?$|contents\/)/;
/** The bound on the server process's peak resident memory while it refuses the bomb. */
const RSS_LIMIT = 300 * 1000 * 1000;
/** The worst `GET /ping` round trip allowed while the server diagnoses. */
const PING_LIMIT_MS = 250;
/** The longest the diagnosis comment may take, delivery to comment. */
const DIAGNOSIS_LIMIT_MS = 30_000;
const DETAILS = ['<details>', '<summary>', '</summary>', '</details>'];

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/webhooks', name), 'utf8')) as Record<
    string,
    unknown
  >;
const golden = (rel: string): Buffer => readFileSync(path.join(ROOT, 'test/fixtures/golden', rel));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** The text without the zero-width spaces the renderer puts into defused mentions and references. */
const plain = (text: string): string => text.replace(/\u200b/g, '');
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(0)} MB`;

let fake: FakeGitHubApi;
let server: RunningServer;
let serverPid: number;
/** The status comment of the build asked for on PR (by a writer's `/buildbench build`). */
let stickyId = 0;

const waitFor = <T>(what: string, probe: () => T | undefined, ms = 60_000): Promise<T> =>
  waitForServer(what, probe, ms, () => server.output());

async function deliver(event: string, id: string, payload: unknown): Promise<void> {
  expect((await server.deliver(event, id, payload)).status).toBeLessThan(300);
}

/** A writer's `/buildbench build` on PR (see buildCommand); returns the status comment's id. */
const command = (delivery: string): Promise<number> =>
  buildCommand({ fake, server, owner: OWNER, repo: REPO, installationId: INSTALLATION_ID, pr: PR, delivery });

/** The completed run the App dispatched, as GitHub sends it, with `zip` as its `buildbench` artifact. */
function runPayload(runId: number, zip: Uint8Array): Record<string, unknown> {
  const payload = fixture('workflow_run.completed.buildbench.json');
  const repository = {
    ...(payload.repository as Record<string, unknown>),
    id: fake.repo(OWNER, REPO).id,
    name: REPO,
    full_name: `${OWNER}/${REPO}`,
    owner: { login: OWNER, type: 'User' },
    html_url: `https://github.com/${OWNER}/${REPO}`,
    default_branch: 'master',
  };
  Object.assign(payload.workflow_run as Record<string, unknown>, {
    id: runId,
    html_url: `https://github.com/${OWNER}/${REPO}/actions/runs/${runId}`,
    head_sha: fake.branchSha(OWNER, REPO, PR_HEAD),
    head_branch: PR_HEAD,
    display_title: `buildbench #${PR} comment ${stickyId}`,
    created_at: new Date().toISOString(),
    repository,
    head_repository: repository,
  });
  payload.repository = repository;
  payload.installation = { id: INSTALLATION_ID };
  fake.setArtifacts(runId, [{ id: runId + 8000, name: 'buildbench', zip }]);
  return payload;
}

/** Delivers a completion and waits for the status comment's rewrite; returns the calls the App made for it. */
async function complete(payload: Record<string, unknown>, delivery: string): Promise<string[]> {
  const from = fake.calls.length;
  const patches = (): number =>
    fake.callsTo('PATCH', `/repos/${OWNER}/${REPO}/issues/comments/${stickyId}`).length;
  const before = patches();
  await deliver('workflow_run', delivery, payload);
  await waitFor('the status comment', () => (patches() > before ? true : undefined));
  return fake.calls.slice(from).map((c) => `${c.method} ${c.path}`);
}

// ---- the zip bomb, written field by field (test/helpers/zip-bytes.ts, as test/unit/bot/artifact-zip.test.ts) ----

/** The shared block: 4 MiB of zeros as one sync-flushed 1 MiB block four times, then an empty final block. */
const bombBlock = (): Uint8Array => zerosStream(4);

/**
 * The bomb: a real result.json (stored), then ONE deflated block of 4 MiB of zeros (one sync-flushed 1 MiB
 * block four times, then an empty final block: ~4 KiB) that 256 `patches/NNNN.patch` entries all point at,
 * each declaring 4 MiB (the per-file limit): 1 GiB if each were inflated, from an archive of ~20 KiB.
 */
function bombZip(entries = 256): Uint8Array {
  const data = bombBlock();
  const size = 4 * MiB;
  const result = new Uint8Array(golden('success/result.json'));
  const locals: ZipLocal[] = [
    { name: 'result.json', data: result, method: 0, crc: crc32(result), size: result.length },
    { name: 'patches/0000.patch', data, method: 8, crc: crc32(new Uint8Array(size)), size },
  ];
  return craftZip(locals, [
    { ...locals[0]!, local: 0 },
    ...Array.from({ length: entries }, (_, i) => ({
      ...locals[1]!,
      name: `patches/${String(i).padStart(4, '0')}.patch`,
      local: 1,
    })),
  ]);
}

/** Resets the process's VmHWM to its current RSS (Linux: `5` to /proc/<pid>/clear_refs); false if it cannot. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  fake = await startFakeGitHubApi({ appId: APP_ID });
  fake.repo(OWNER, REPO, { default_branch: 'master' });
  fake.seedFiles(OWNER, REPO, { 'README.md': '# Hello World\n' });
  fake.seedFiles(OWNER, REPO, { 'README.md': '# Hello World, spelt right\n' }, PR_HEAD);
  fake.addPull(OWNER, REPO, { number: PR, head: PR_HEAD, base: 'master', user: OWNER });
  fake.setPermission(OWNER, REPO, OWNER, 'write');
  server = await startBotServer({ appId: APP_ID, secret: SECRET, githubHost: fake.host });
  serverPid = serverProcessId(server);
  stickyId = await command('untrusted-cmd-1');
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe('untrusted input on the App’s path (real server, fake GitHub)', () => {
  // Guards the artifact reader's layout check (src/bot/artifact-zip.ts: entries that share data are refused
  // before anything is inflated) and, with it, the bounded inflation: a reader that inflated the wanted files
  // first (as it once did) holds 1 GiB here, far over the RSS bound, and the comment's reason would differ.
  it('a zip bomb artifact: refused in the status comment, nothing written, peak RSS under 300 MB', async () => {
    const zip = bombZip();
    expect(zip.length).toBeLessThan(32 * 1024);
    // Each entry is genuine: its block inflates to the 4 MiB it declares, with the CRC it declares.
    const one = new Uint8Array(inflateRawSync(bombBlock()));
    expect({ size: one.length, crc: crc32(one) }).toEqual({
      size: 4 * MiB,
      crc: crc32(new Uint8Array(4 * MiB)),
    });
    const peakReset = resetPeak(serverPid);
    const baseline = processMemory(serverPid, 'VmRSS')!;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, processMemory(serverPid, 'VmRSS') ?? 0);
    }, 20);
    let calls: string[];
    try {
      calls = await complete(runPayload(3001, zip), 'untrusted-run-bomb');
    } finally {
      clearInterval(sampler);
    }
    const hwm = processMemory(serverPid, 'VmHWM')!;
    process.stderr.write(
      `zip bomb: server RSS ${mb(baseline)} before, sampled peak ${mb(peak)}, VmHWM ${mb(hwm)}` +
        `${peakReset ? ' (reset before the delivery)' : ' (since start-up)'}; archive ${zip.length} bytes\n`,
    );

    // The bomb was downloaded and read (not skipped for another reason), then refused whole.
    expect(calls).toContain(`GET /_fake/artifacts/${3001 + 8000}`);
    const body = plain(fake.comments.get(stickyId)!.body);
    expect(body).toContain('buildbench: the run ended');
    expect(body).toContain('without a usable result');
    expect(body).toMatch(
      /the artifact was refused: its entries "patches\/0000\.patch" and "patches\/0001\.patch" share the same data \(the shape of a zip bomb\); nothing of it was inflated; nothing of it was used/,
    );
    expect(calls.filter((c) => WRITES.test(c))).toEqual([]);
    expect(fake.branchSha(OWNER, REPO, 'buildbench/recipe')).toBeUndefined();
    expect(fake.pulls.filter((p) => p.head.ref === 'buildbench/recipe')).toEqual([]);
    expect(Math.max(peak, hwm)).toBeLessThan(RSS_LIMIT);
    expect((await fetch(`${server.base}/ping`)).status).toBe(200);
  }, 60_000);

  // Guards the renderer of untrusted text on the App's path (run-completed.ts's comment through
  // neutralise/inline/md/codeBlock; planPullRequest's title, body and commit messages): interpolating the
  // result's words raw would leave its mentions, references, HTML and marker live, and liveBeyond would list them.
  it('a hostile result.json: the status comment and the recipe pull request hold nothing live', async () => {
    const result = hostileResult('success');
    const zip = zipSync({
      'result.json': Buffer.from(JSON.stringify(result, null, 2)),
      'RUNBOOK.md': golden('success/RUNBOOK.md'),
      'build.sh': golden('action/build.sh'),
      Dockerfile: Buffer.from('FROM debian:bookworm\nCOPY . /src\nRUN bash /src/buildbench/build.sh\n'),
    });
    const calls = await complete(runPayload(3002, zip), 'untrusted-run-result');
    const body = fake.comments.get(stickyId)!.body;

    // The hostile words did reach the comment (defused, not dropped): the check below is not vacuous.
    expect(plain(body)).toContain('victim');
    expect(plain(body)).toContain('✅ buildbench: SUCCESS');
    // The App opened the recipe pull request (the result says SUCCESS with a verified recipe).
    expect(calls).toContain(`POST /repos/${OWNER}/${REPO}/pulls`);
    const recipe = fake.pulls.filter((p) => p.head.ref === 'buildbench/recipe');
    expect(recipe).toHaveLength(1);
    const pull = recipe[0]!;

    // buildbench's own markup in the comment: its marker, the collapsed build.sh, the pull request's URL.
    const own = [STATUS_MARKER, ...DETAILS, `github.com/${OWNER}/${REPO}/pull`];
    expect(liveBeyond(body, own)).toEqual([]);
    // The pull request: its marker and the two <sub> lines (the Action's, and the App's "Built by" line).
    expect(plain(pull.body)).toContain('victim');
    expect(
      liveBeyond(pull.body, ['<!-- buildbench:pull-request -->', '<sub>', '</sub>', '<sub>', '</sub>']),
    ).toEqual([]);
    // A title is plain text on GitHub (no HTML), but it links mentions and references.
    const linked = (text: string): unknown[] =>
      findLive(text).filter((f) => f.kind === 'mention' || f.kind === 'reference');
    expect(linked(pull.title)).toEqual([]);
    const messages = fake
      .callsTo('POST', `/repos/${OWNER}/${REPO}/git/commits`)
      .map((c) => (c.body as { message?: string }).message ?? '');
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(linked(message)).toEqual([]);
  }, 60_000);

  // Guards the diagnosis's two protections: linear-time matching (a backtracking pattern on these 64 KiB lines
  // would not finish: the comment would say it stopped early, or come late) and the worker thread
  // (knowledge/diagnose/worker.ts: on the main thread even a linear diagnosis of 5 MiB holds the event loop
  // for about a second, and /ping would wait that long).
  it('a hostile 5 MiB CI log: the benign log’s root cause, in time, and /ping answered within 250 ms', async () => {
    const expected: Diagnosis = await diagnoseLog(benignLog(MiB));
    if (!expected.found) throw new Error('the benign log has no root cause');
    const log = hostileLog(MAX_LOG_BYTES);

    const payload = fixture('workflow_run.completed.failure.json');
    const run = payload.workflow_run as Record<string, unknown>;
    const runId = Number(run.id);
    const headSha = String(run.head_sha);
    const prNumber = 7; // the payload's pull_requests
    payload.installation = { id: INSTALLATION_ID };
    fake.repo(CI_OWNER, CI_REPO, { default_branch: 'master' });
    fake.seedFiles(CI_OWNER, CI_REPO, { 'README.md': '# octo-repo\n' });
    fake.addPull(CI_OWNER, CI_REPO, { number: prNumber, head: String(run.head_branch), headSha });
    fake.setJobs(runId, [
      { id: 6001, name: 'lint', conclusion: 'success', log: 'all good\n' },
      {
        id: 6002,
        name: 'build',
        conclusion: 'failure',
        steps: [{ name: 'Build', number: 3, status: 'completed', conclusion: 'failure' }],
        log,
      },
    ]);
    const diagnosisComment = (): string | undefined =>
      [...fake.comments.values()].find(
        (c) =>
          c.owner === CI_OWNER &&
          c.issue_number === prNumber &&
          c.user.type === 'Bot' &&
          c.body.startsWith('<!-- buildbench:diagnosis -->'),
      )?.body;

    // The server's event loop, seen from outside: one `GET /ping` at a time, every ~20 ms, over loopback. A
    // round trip can only be longer than the server's event-loop delay at that moment (plus this process's own
    // scheduling and the loopback), so its worst value bounds the worst delay from above.
    const pings: number[] = [];
    const stop = { now: false };
    const pinger = (async () => {
      while (!stop.now) {
        const sent = performance.now();
        const res = await fetch(`${server.base}/ping`);
        await res.text();
        if (res.status !== 200) throw new Error(`/ping answered ${res.status}`);
        pings.push(performance.now() - sent);
        await sleep(20);
      }
    })();

    const started = performance.now();
    let body: string;
    try {
      await deliver('workflow_run', 'untrusted-ci-hostile-log', payload);
      body = await waitFor('the diagnosis comment', diagnosisComment, DIAGNOSIS_LIMIT_MS + 15_000);
    } finally {
      stop.now = true;
      await pinger;
    }
    const elapsed = performance.now() - started;
    const worst = Math.max(...pings);
    process.stderr.write(
      `hostile CI log (${log.length} characters): diagnosis comment after ${elapsed.toFixed(0)} ms; ` +
        `${pings.length} pings, worst round trip ${worst.toFixed(1)} ms, median ` +
        `${[...pings].sort((a, b) => a - b)[Math.floor(pings.length / 2)]!.toFixed(1)} ms\n`,
    );

    // The failing job's log was read behind the redirect; the root cause is the benign log's.
    expect(fake.callsTo('GET', '/_fake/logs/6002')).toHaveLength(1);
    const text = plain(body);
    expect(text).toContain(`**Root cause** (\`${expected.rootCause.id}\``);
    expect(text).toContain(expected.rootCause.message);
    // Nothing about stopping early (describeStop's sentence, or the worker's "did not finish").
    expect(text).not.toMatch(/ran out of time|did not finish|was not looked for/);
    expect(elapsed).toBeLessThan(DIAGNOSIS_LIMIT_MS);
    // The pings covered the diagnosis (a few dozen at least), and none waited long.
    expect(pings.length).toBeGreaterThanOrEqual(10);
    expect(worst).toBeLessThan(PING_LIMIT_MS);
  }, 60_000);
});
