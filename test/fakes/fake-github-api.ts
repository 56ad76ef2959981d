/**
 * A real HTTP server on 127.0.0.1:<random port> that speaks the part of GitHub's REST API the bot calls, with
 * state, so a whole flow (a command, a dispatched run, its completion, a second run) can be driven against it
 * by the real Probot/Octokit over real HTTP. Every request is recorded (method, path without the query, the
 * query, the parsed JSON body, the Authorization header) in `calls`, in order.
 *
 * Served (paths may carry GitHub Enterprise's `/api/v3` prefix, which is stripped, so `GHE_HOST` works):
 * - App auth: `POST /app/installations/{id}/access_tokens` (needs `Authorization: Bearer <JWT>` whose payload's
 *   `iss` is the app id, when `appId` is given) → a fresh `ghs_…` token; `GET /repos/{o}/{r}/installation`.
 *   Every other route needs `Authorization: token|Bearer <a token it issued or one given in options.tokens>`
 *   (401 otherwise).
 * - `GET /repos/{o}/{r}` (default_branch), `GET /repos/{o}/{r}/collaborators/{user}/permission`
 *   (`setPermission`; `none` by default, as GitHub answers for a non-collaborator).
 * - Issues: `POST /repos/{o}/{r}/issues/comments/{id}/reactions`, issue comments create
 *   (`POST …/issues/{n}/comments`), list (`GET …/issues/{n}/comments`, paginated with `per_page`/`page` and a
 *   Link header), get/update/delete (`…/issues/comments/{id}`); created comments get increasing ids and an
 *   `html_url`, and are authored by `botLogin`; `addComment` seeds a person's comment (a command), with its
 *   `created_at`. `GET /repos/{o}/{r}/issues/{n}` (with `pull_request` when a pull has that number).
 * - `GET …/compare/{base}...{head}` (ahead_by, behind_by, files with their blob shas), issue labels add/remove.
 * - Pulls: get, list (`state`, `head=owner:branch`, `base`), create (422 when an open PR has the same head and
 *   base, as GitHub refuses), update; `addPull` with `headRepo` another repository makes a fork's pull request
 *   (`head.repo.id`/`full_name` those of the fork, which GET never moves to a branch of this repository), with
 *   `headRepo: null` one whose fork was deleted (`head.repo: null`); every repository has its own `id`; review comments create (`POST …/pulls/{n}/comments`) and list; reviews
 *   create; `GET …/pulls/{n}/files` (`setPullFiles`).
 * - Actions: workflow dispatches (`POST …/actions/workflows/{id}/dispatches` → 204), `GET …/actions/runs/{id}`,
 *   `…/runs/{id}/jobs`, job logs (`GET …/actions/jobs/{id}/logs` → 302 to `/_fake/logs/{id}` served here, as
 *   GitHub redirects to blob storage), `…/runs/{id}/artifacts` and the artifact zip (`…/artifacts/{id}/zip` →
 *   302 to `/_fake/artifacts/{id}`), `GET …/check-runs/{id}`.
 * - Contents: `GET …/contents/{path}?ref=` (the raw text with `Accept: application/vnd.github.raw`, else the
 *   JSON object with base64 content; 404 when absent — Probot's config loader relies on that), `PUT` (create
 *   or update one file on a branch, with the `sha` check GitHub makes).
 * - Git data: refs (`GET …/git/ref/{ref}`, `GET …/git/matching-refs/{ref}`, `POST …/git/refs`,
 *   `PATCH …/git/refs/{ref}` (fast-forward unless `force`), `DELETE`), blobs, trees (with `base_tree`; entries
 *   with `sha: null` delete), commits — content-addressed, so the same tree twice has the same sha; contents
 *   reads resolve through them, so what a flow commits can be read back.
 * Anything else answers 404 `{message: 'Not Found'}` and is recorded too, so a test sees an unexpected call.
 * `failNext` injects one error response for a route.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  method: string;
  /** The path without the query and without an `/api/v3` prefix. */
  path: string;
  query: Record<string, string>;
  /** The parsed JSON body, the raw text when it is not JSON, undefined when empty. */
  body: unknown;
  authorization?: string;
}

export interface FakeComment {
  id: number;
  owner: string;
  repo: string;
  issue_number: number;
  body: string;
  user: { login: string; type: string };
  created_at: string;
  updated_at: string;
}

export interface FakePull {
  number: number;
  owner: string;
  repo: string;
  state: 'open' | 'closed';
  title: string;
  body: string;
  /** `repo` null: the head repository was deleted (GitHub then answers `head.repo: null`). */
  head: {
    ref: string;
    sha: string;
    label: string;
    repo: { id: number; full_name: string; fork: boolean } | null;
  };
  base: { ref: string; sha: string; repo: { id: number; full_name: string } };
  user: { login: string; type: string };
  draft: boolean;
  maintainer_can_modify: boolean;
  labels: { name: string }[];
}

export interface FakeArtifact {
  id: number;
  name: string;
  zip: Uint8Array;
  expired?: boolean;
}

export interface FakeJob {
  id: number;
  name: string;
  status?: string;
  conclusion: string | null;
  steps?: { name: string; number: number; status: string; conclusion: string | null }[];
  /** The job's log text, served behind the logs redirect. */
  log?: string;
}

export interface FakeGitHubApiOptions {
  /** When given, the access-token route checks that the JWT's `iss` is this id. */
  appId?: number;
  /** Tokens accepted besides the installation tokens it issues (e.g. a `GITHUB_TOKEN` for the Action entry). */
  tokens?: string[];
  /** The login of comments and PRs the bot creates (default `buildbench[bot]`). */
  botLogin?: string;
}

interface GitTree {
  /** path → blob sha */
  entries: Map<string, string>;
}

interface RepoState {
  /** The repository id (`GET /repos/{o}/{r}`, `pulls[].base.repo.id`), one per full name. */
  id: number;
  default_branch: string;
  private: boolean;
  permissions: Map<string, string>;
  refs: Map<string, string>; // 'heads/main' → commit sha
}

const json = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
};

/** A request field as a string: strings and numbers as they are, anything else empty. */
const str = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : '';

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

export class FakeGitHubApi {
  readonly calls: RecordedCall[] = [];
  readonly comments = new Map<number, FakeComment>();
  readonly pulls: FakePull[] = [];
  readonly reactions: { commentId: number; content: string }[] = [];
  readonly dispatches: {
    owner: string;
    repo: string;
    workflow: string;
    ref: string;
    inputs: Record<string, string>;
  }[] = [];
  readonly reviewComments: { owner: string; repo: string; pull_number: number; body: unknown }[] = [];
  readonly issuedTokens = new Set<string>();

  private server = createServer((req, res) => {
    void this.handle(req, res).catch((error: unknown) => {
      json(res, 500, { message: error instanceof Error ? error.message : String(error) });
    });
  });
  private baseUrl = '';
  private nextId = 1000;
  private repos = new Map<string, RepoState>();
  private blobs = new Map<string, Buffer>();
  private trees = new Map<string, GitTree>();
  private commits = new Map<string, { tree: string; parents: string[]; message: string }>();
  private runs = new Map<number, Record<string, unknown>>();
  private jobs = new Map<number, FakeJob[]>();
  private artifacts = new Map<number, FakeArtifact[]>();
  private checkRuns = new Map<number, Record<string, unknown>>();
  private pullFiles = new Map<string, unknown[]>();
  private failures: { method: string; path: RegExp; status: number; body: unknown }[] = [];
  private readonly botLogin: string;

  constructor(private readonly options: FakeGitHubApiOptions = {}) {
    this.botLogin = options.botLogin ?? 'buildbench[bot]';
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
    return this;
  }

  /** `http://127.0.0.1:PORT`: Octokit's `baseUrl`. */
  get url(): string {
    return this.baseUrl;
  }

  /** `127.0.0.1:PORT`: what `GHE_HOST` takes (with `GHE_PROTOCOL=http`). */
  get host(): string {
    return this.baseUrl.replace(/^http:\/\//, '');
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The recorded calls other than the installation-token exchange, as `METHOD /path`. */
  routes(): string[] {
    return this.calls.filter((c) => !c.path.startsWith('/app/')).map((c) => `${c.method} ${c.path}`);
  }

  callsTo(method: string, path: string | RegExp): RecordedCall[] {
    return this.calls.filter(
      (c) => c.method === method && (typeof path === 'string' ? c.path === path : path.test(c.path)),
    );
  }

  // ---- state set-up --------------------------------------------------------------------------------------------

  repo(owner: string, repo: string, init: { default_branch?: string; private?: boolean } = {}): RepoState {
    const key = `${owner}/${repo}`.toLowerCase();
    let state = this.repos.get(key);
    if (!state) {
      state = {
        id: 700000 + this.repos.size,
        default_branch: init.default_branch ?? 'main',
        private: init.private ?? false,
        permissions: new Map(),
        refs: new Map(),
      };
      this.repos.set(key, state);
    } else {
      if (init.default_branch) state.default_branch = init.default_branch;
      if (init.private !== undefined) state.private = init.private;
    }
    return state;
  }

  setPermission(
    owner: string,
    repo: string,
    user: string,
    permission: 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none',
  ): void {
    this.repo(owner, repo).permissions.set(user.toLowerCase(), permission);
  }

  /** Commits `files` (path → text) on `branch` (default: the repository's default branch); returns the commit sha. */
  seedFiles(owner: string, repo: string, files: Record<string, string>, branch?: string): string {
    const state = this.repo(owner, repo);
    const ref = `heads/${branch ?? state.default_branch}`;
    const parent = state.refs.get(ref);
    const entries = new Map(parent ? this.treeOf(parent).entries : []);
    for (const [path, text] of Object.entries(files)) entries.set(path, this.putBlob(Buffer.from(text)));
    const tree = this.putTree(entries);
    const commit = this.putCommit(tree, parent ? [parent] : [], 'seed');
    state.refs.set(ref, commit);
    return commit;
  }

  addComment(
    owner: string,
    repo: string,
    issue_number: number,
    body: string,
    user = { login: 'someone', type: 'User' },
    /** `created_at` (default now). */
    createdAt?: string,
  ): FakeComment {
    const now = new Date().toISOString();
    const comment: FakeComment = {
      id: this.nextId++,
      owner,
      repo,
      issue_number,
      body,
      user,
      created_at: createdAt ?? now,
      updated_at: createdAt ?? now,
    };
    this.comments.set(comment.id, comment);
    return comment;
  }

  addPull(
    owner: string,
    repo: string,
    init: {
      number?: number;
      head: string;
      base?: string;
      headSha?: string;
      /** `owner/name` of the head repository (default this one; another: a fork's); null: a deleted fork. */
      headRepo?: string | null;
      title?: string;
      user?: string;
    },
  ): FakePull {
    const state = this.repo(owner, repo);
    const number = init.number ?? this.nextPullNumber(owner, repo);
    const headRepo = init.headRepo === undefined ? `${owner}/${repo}` : init.headRepo;
    const fromFork = headRepo === null || headRepo.toLowerCase() !== `${owner}/${repo}`.toLowerCase();
    const pull: FakePull = {
      number,
      owner,
      repo,
      state: 'open',
      title: init.title ?? `PR ${number}`,
      body: '',
      head: {
        ref: init.head,
        sha:
          init.headSha ??
          (fromFork ? undefined : state.refs.get(`heads/${init.head}`)) ??
          sha1(`head ${number}`),
        label: `${headRepo === null ? 'unknown' : headRepo.split('/')[0]}:${init.head}`,
        repo:
          headRepo === null
            ? null
            : {
                id: fromFork ? this.repo(headRepo.split('/')[0]!, headRepo.split('/')[1] ?? '').id : state.id,
                full_name: headRepo,
                fork: fromFork,
              },
      },
      base: {
        ref: init.base ?? state.default_branch,
        sha: state.refs.get(`heads/${init.base ?? state.default_branch}`) ?? sha1('base'),
        repo: { id: state.id, full_name: `${owner}/${repo}` },
      },
      user: { login: init.user ?? 'someone', type: 'User' },
      draft: false,
      maintainer_can_modify: true,
      labels: [],
    };
    this.pulls.push(pull);
    return pull;
  }

  setRun(runId: number, run: Record<string, unknown>): void {
    this.runs.set(runId, { id: runId, ...run });
  }

  setJobs(runId: number, jobs: FakeJob[]): void {
    this.jobs.set(runId, jobs);
  }

  setArtifacts(runId: number, artifacts: FakeArtifact[]): void {
    this.artifacts.set(runId, artifacts);
  }

  setCheckRun(id: number, checkRun: Record<string, unknown>): void {
    this.checkRuns.set(id, { id, ...checkRun });
  }

  setPullFiles(owner: string, repo: string, pull_number: number, files: unknown[]): void {
    this.pullFiles.set(`${owner}/${repo}#${pull_number}`.toLowerCase(), files);
  }

  /** The next request whose method matches and whose path matches `path` answers `status` with `body`. */
  failNext(
    method: string,
    path: RegExp,
    status: number,
    body: unknown = { message: `fake error ${status}` },
  ): void {
    this.failures.push({ method, path, status, body });
  }

  /** The text of `path` on `ref` (a branch name, `heads/…` or a commit sha), or undefined. */
  fileAt(owner: string, repo: string, ref: string, path: string): string | undefined {
    const commit = this.resolveRef(this.repo(owner, repo), ref);
    if (!commit) return undefined;
    const blob = this.treeOf(commit).entries.get(path);
    return blob === undefined ? undefined : this.blobs.get(blob)?.toString('utf8');
  }

  branchSha(owner: string, repo: string, branch: string): string | undefined {
    return this.repo(owner, repo).refs.get(`heads/${branch}`);
  }

  commitMessage(sha: string): string | undefined {
    return this.commits.get(sha)?.message;
  }

  // ---- git objects ---------------------------------------------------------------------------------------------

  private putBlob(content: Buffer): string {
    const sha = createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
    this.blobs.set(sha, content);
    return sha;
  }

  private putTree(entries: Map<string, string>): string {
    const sorted = [...entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const sha = sha1(`tree ${JSON.stringify(sorted)}`);
    this.trees.set(sha, { entries: new Map(sorted) });
    return sha;
  }

  private putCommit(tree: string, parents: string[], message: string): string {
    const sha = sha1(`commit ${tree} ${parents.join(',')} ${message} ${this.nextId++}`);
    this.commits.set(sha, { tree, parents, message });
    return sha;
  }

  private treeOf(commitSha: string): GitTree {
    const commit = this.commits.get(commitSha);
    return (commit && this.trees.get(commit.tree)) ?? { entries: new Map() };
  }

  private resolveRef(state: RepoState, ref: string): string | undefined {
    const name = ref.replace(/^refs\//, '');
    return (
      state.refs.get(name) ??
      state.refs.get(`heads/${name}`) ??
      state.refs.get(`tags/${name}`) ??
      (this.commits.has(ref) ? ref : undefined)
    );
  }

  private nextPullNumber(owner: string, repo: string): number {
    const numbers = [...this.comments.values()]
      .filter((c) => c.owner === owner && c.repo === repo)
      .map((c) => c.issue_number)
      .concat(this.pulls.filter((p) => p.owner === owner && p.repo === repo).map((p) => p.number));
    return Math.max(0, ...numbers) + 1;
  }

  private commentJson(c: FakeComment): Record<string, unknown> {
    return {
      id: c.id,
      node_id: `IC_${c.id}`,
      body: c.body,
      user: c.user,
      created_at: c.created_at,
      updated_at: c.updated_at,
      html_url: `https://github.com/${c.owner}/${c.repo}/issues/${c.issue_number}#issuecomment-${c.id}`,
      issue_url: `${this.baseUrl}/repos/${c.owner}/${c.repo}/issues/${c.issue_number}`,
      url: `${this.baseUrl}/repos/${c.owner}/${c.repo}/issues/comments/${c.id}`,
      author_association: c.user.type === 'Bot' ? 'NONE' : 'CONTRIBUTOR',
    };
  }

  private pullJson(p: FakePull): Record<string, unknown> {
    return {
      ...p,
      id: p.number + 50000,
      html_url: `https://github.com/${p.owner}/${p.repo}/pull/${p.number}`,
      url: `${this.baseUrl}/repos/${p.owner}/${p.repo}/pulls/${p.number}`,
      owner: undefined,
      repo: undefined,
    };
  }

  // ---- the server ----------------------------------------------------------------------------------------------

  private async readBody(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (text === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }

  private authorised(call: RecordedCall): boolean {
    const m = /^(?:token|bearer)\s+(\S+)$/i.exec(call.authorization ?? '');
    if (!m) return false;
    return this.issuedTokens.has(m[1]!) || (this.options.tokens ?? []).includes(m[1]!);
  }

  private jwtIssuer(authorization: string | undefined): string | undefined {
    const m = /^bearer\s+([\w-]+)\.([\w-]+)\.([\w-]+)$/i.exec(authorization ?? '');
    if (!m) return undefined;
    try {
      const payload = JSON.parse(Buffer.from(m[2]!, 'base64url').toString('utf8')) as { iss?: unknown };
      return payload.iss === undefined ? undefined : str(payload.iss);
    } catch {
      return undefined;
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = decodeURIComponent(url.pathname.replace(/^\/api\/v3(?=\/)/, ''));
    const method = (req.method ?? 'GET').toUpperCase();
    const call: RecordedCall = {
      method,
      path,
      query: Object.fromEntries(url.searchParams.entries()),
      body: await this.readBody(req),
    };
    if (req.headers.authorization) call.authorization = req.headers.authorization;
    this.calls.push(call);

    // Redirect targets (blob storage on GitHub): no API auth.
    let m: RegExpExecArray | null;
    if (method === 'GET' && (m = /^\/_fake\/logs\/(\d+)$/.exec(path))) {
      const job = [...this.jobs.values()].flat().find((j) => j.id === Number(m![1]));
      if (job?.log === undefined) return json(res, 404, { message: 'Not Found' });
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(job.log);
      return;
    }
    if (method === 'GET' && (m = /^\/_fake\/artifacts\/(\d+)$/.exec(path))) {
      const artifact = [...this.artifacts.values()].flat().find((a) => a.id === Number(m![1]));
      if (!artifact) return json(res, 404, { message: 'Not Found' });
      res.writeHead(200, {
        'content-type': 'application/zip',
        'content-length': String(artifact.zip.length),
      });
      res.end(Buffer.from(artifact.zip));
      return;
    }

    const failure = this.failures.findIndex((f) => f.method === method && f.path.test(path));
    if (failure >= 0) {
      const [f] = this.failures.splice(failure, 1);
      return json(res, f!.status, f!.body);
    }

    if (method === 'POST' && (m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path))) {
      const iss = this.jwtIssuer(call.authorization);
      if (iss === undefined || (this.options.appId !== undefined && iss !== String(this.options.appId)))
        return json(res, 401, { message: 'A JSON web token could not be decoded' });
      const token = `ghs_fake${this.nextId++}`;
      this.issuedTokens.add(token);
      return json(res, 201, {
        token,
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
        permissions: { issues: 'write', pull_requests: 'write', contents: 'write', actions: 'write' },
        repository_selection: 'selected',
      });
    }
    if (path.startsWith('/app')) {
      if (this.jwtIssuer(call.authorization) === undefined)
        return json(res, 401, { message: 'Bad credentials' });
      if (method === 'GET' && path === '/app')
        return json(res, 200, { id: this.options.appId ?? 1, slug: 'buildbench', name: 'buildbench' });
      return json(res, 404, { message: 'Not Found' });
    }
    if (!this.authorised(call)) return json(res, 401, { message: 'Bad credentials' });

    m = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
    if (!m) return json(res, 404, { message: 'Not Found' });
    const owner = m[1]!;
    const repo = m[2]!;
    const rest = m[3] ?? '';
    const state = this.repo(owner, repo);
    const body = (call.body ?? {}) as Record<string, unknown>;
    const full = `${owner}/${repo}`;

    // Repository and permissions
    if (method === 'GET' && rest === '')
      return json(res, 200, {
        id: state.id,
        name: repo,
        full_name: full,
        owner: { login: owner },
        default_branch: state.default_branch,
        private: state.private,
        html_url: `https://github.com/${full}`,
      });
    if (method === 'GET' && rest === '/installation')
      return json(res, 200, { id: 1, app_id: this.options.appId ?? 1 });
    if (method === 'GET' && (m = /^\/collaborators\/([^/]+)\/permission$/.exec(rest))) {
      const permission = state.permissions.get(m[1]!.toLowerCase()) ?? 'none';
      return json(res, 200, { permission, role_name: permission, user: { login: m[1] } });
    }

    // Issues and comments
    if (method === 'POST' && (m = /^\/issues\/comments\/(\d+)\/reactions$/.exec(rest))) {
      this.reactions.push({ commentId: Number(m[1]), content: String(body.content) });
      return json(res, 201, {
        id: this.nextId++,
        content: body.content,
        user: { login: this.botLogin, type: 'Bot' },
      });
    }
    if ((m = /^\/issues\/comments\/(\d+)$/.exec(rest))) {
      const comment = this.comments.get(Number(m[1]));
      if (!comment || comment.owner !== owner || comment.repo !== repo)
        return json(res, 404, { message: 'Not Found' });
      if (method === 'GET') return json(res, 200, this.commentJson(comment));
      if (method === 'PATCH') {
        if (typeof body.body !== 'string') return json(res, 422, { message: 'body is required' });
        comment.body = body.body;
        comment.updated_at = new Date().toISOString();
        return json(res, 200, this.commentJson(comment));
      }
      if (method === 'DELETE') {
        this.comments.delete(comment.id);
        res.writeHead(204).end();
        return;
      }
    }
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      const issue_number = Number(m[1]);
      if (method === 'POST') {
        if (typeof body.body !== 'string' || body.body === '')
          return json(res, 422, { message: 'body is required' });
        const comment = this.addComment(owner, repo, issue_number, body.body, {
          login: this.botLogin,
          type: 'Bot',
        });
        return json(res, 201, this.commentJson(comment));
      }
      if (method === 'GET') {
        const all = [...this.comments.values()].filter(
          (c) => c.owner === owner && c.repo === repo && c.issue_number === issue_number,
        );
        return this.paginate(
          res,
          url,
          all.map((c) => this.commentJson(c)),
        );
      }
    }
    if (method === 'GET' && (m = /^\/issues\/(\d+)$/.exec(rest))) {
      const number = Number(m[1]);
      const pull = this.pulls.find((p) => p.owner === owner && p.repo === repo && p.number === number);
      return json(res, 200, {
        number,
        state: pull?.state ?? 'open',
        title: pull?.title ?? `Issue ${number}`,
        user: pull?.user ?? { login: 'someone', type: 'User' },
        ...(pull ? { pull_request: { url: `${this.baseUrl}/repos/${full}/pulls/${number}` } } : {}),
      });
    }

    if ((m = /^\/issues\/(\d+)\/labels(?:\/(.+))?$/.exec(rest))) {
      const pull = this.pulls.find((p) => p.owner === owner && p.repo === repo && p.number === Number(m![1]));
      if (!pull) return json(res, 404, { message: 'Not Found' });
      if (method === 'POST' && m[2] === undefined) {
        const labels = Array.isArray(body.labels) ? body.labels.map((l) => str(l)) : [];
        for (const name of labels) if (!pull.labels.some((l) => l.name === name)) pull.labels.push({ name });
        return json(res, 200, pull.labels);
      }
      if (method === 'DELETE' && m[2] !== undefined) {
        const before = pull.labels.length;
        pull.labels = pull.labels.filter((l) => l.name !== m![2]);
        return before === pull.labels.length
          ? json(res, 404, { message: 'Label does not exist' })
          : json(res, 200, pull.labels);
      }
    }

    // Pull requests
    if (rest === '/pulls') {
      if (method === 'GET') {
        const want = call.query.state ?? 'open';
        const list = this.pulls.filter(
          (p) =>
            p.owner === owner &&
            p.repo === repo &&
            (want === 'all' || p.state === want) &&
            (call.query.head === undefined || call.query.head === p.head.label) &&
            (call.query.base === undefined || call.query.base === p.base.ref),
        );
        return this.paginate(
          res,
          url,
          list.map((p) => this.pullJson(p)),
        );
      }
      if (method === 'POST') {
        const head = str(body.head);
        const base = str(body.base);
        if (!head || !base || typeof body.title !== 'string')
          return json(res, 422, {
            message: 'Validation Failed',
            errors: [{ field: 'head/base/title', code: 'missing' }],
          });
        const headBranch = head.includes(':') ? head.split(':')[1]! : head;
        if (!state.refs.has(`heads/${headBranch}`))
          return json(res, 422, {
            message: 'Validation Failed',
            errors: [{ field: 'head', code: 'invalid' }],
          });
        if (
          this.pulls.some(
            (p) =>
              p.owner === owner &&
              p.repo === repo &&
              p.state === 'open' &&
              p.head.ref === headBranch &&
              p.base.ref === base,
          )
        )
          return json(res, 422, {
            message: 'Validation Failed',
            errors: [
              {
                resource: 'PullRequest',
                code: 'custom',
                message: `A pull request already exists for ${owner}:${headBranch}.`,
              },
            ],
          });
        const pull = this.addPull(owner, repo, {
          head: headBranch,
          base,
          title: body.title,
          user: this.botLogin,
        });
        pull.user = { login: this.botLogin, type: 'Bot' };
        pull.body = typeof body.body === 'string' ? body.body : '';
        pull.draft = body.draft === true;
        return json(res, 201, this.pullJson(pull));
      }
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(rest))) {
      const pull = this.pulls.find((p) => p.owner === owner && p.repo === repo && p.number === Number(m![1]));
      if (!pull) return json(res, 404, { message: 'Not Found' });
      if (method === 'GET') {
        // A branch of this repository moves the head; a fork's branch is not one of its refs.
        if (pull.head.repo && !pull.head.repo.fork)
          pull.head.sha = state.refs.get(`heads/${pull.head.ref}`) ?? pull.head.sha;
        return json(res, 200, this.pullJson(pull));
      }
      if (method === 'PATCH') {
        if (typeof body.title === 'string') pull.title = body.title;
        if (typeof body.body === 'string') pull.body = body.body;
        if (body.state === 'open' || body.state === 'closed') pull.state = body.state;
        if (typeof body.base === 'string') pull.base.ref = body.base;
        return json(res, 200, this.pullJson(pull));
      }
    }
    if ((m = /^\/pulls\/(\d+)\/comments$/.exec(rest))) {
      const pull_number = Number(m[1]);
      if (method === 'POST') {
        this.reviewComments.push({ owner, repo, pull_number, body: call.body });
        return json(res, 201, { id: this.nextId++, ...body, user: { login: this.botLogin, type: 'Bot' } });
      }
      if (method === 'GET')
        return this.paginate(
          res,
          url,
          this.reviewComments
            .filter((c) => c.owner === owner && c.repo === repo && c.pull_number === pull_number)
            .map((c) => c.body),
        );
    }
    if (method === 'POST' && /^\/pulls\/\d+\/reviews$/.test(rest))
      return json(res, 200, {
        id: this.nextId++,
        state: str(body.event ?? 'COMMENTED'),
        body: body.body ?? '',
      });
    if (method === 'GET' && (m = /^\/pulls\/(\d+)\/files$/.exec(rest)))
      return this.paginate(res, url, this.pullFiles.get(`${full}#${m[1]}`.toLowerCase()) ?? []);

    // Actions
    if (method === 'POST' && (m = /^\/actions\/workflows\/([^/]+)\/dispatches$/.exec(rest))) {
      if (typeof body.ref !== 'string' || body.ref === '')
        return json(res, 422, { message: 'ref is required' });
      const inputs = (body.inputs ?? {}) as Record<string, unknown>;
      if (
        Object.values(inputs).some(
          (v) => typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean',
        )
      )
        return json(res, 422, { message: 'inputs must be scalars' });
      this.dispatches.push({
        owner,
        repo,
        workflow: m[1]!,
        ref: body.ref,
        inputs: Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, String(v)])),
      });
      res.writeHead(204).end();
      return;
    }
    if (method === 'GET' && (m = /^\/actions\/runs\/(\d+)$/.exec(rest))) {
      const run = this.runs.get(Number(m[1]));
      return run ? json(res, 200, run) : json(res, 404, { message: 'Not Found' });
    }
    if (method === 'GET' && (m = /^\/actions\/runs\/(\d+)\/jobs$/.exec(rest))) {
      const jobs = this.jobs.get(Number(m[1])) ?? [];
      const list = jobs.map((j) => ({
        id: j.id,
        run_id: Number(m![1]),
        name: j.name,
        status: j.status ?? 'completed',
        conclusion: j.conclusion,
        steps: j.steps ?? [],
      }));
      return this.paginate(res, url, list, 'jobs');
    }
    if (method === 'GET' && (m = /^\/actions\/jobs\/(\d+)\/logs$/.exec(rest))) {
      const job = [...this.jobs.values()].flat().find((j) => j.id === Number(m![1]));
      if (job?.log === undefined) return json(res, 404, { message: 'Not Found' });
      res.writeHead(302, { location: `${this.baseUrl}/_fake/logs/${job.id}` }).end();
      return;
    }
    if (method === 'GET' && (m = /^\/actions\/runs\/(\d+)\/artifacts$/.exec(rest))) {
      const list = (this.artifacts.get(Number(m[1])) ?? [])
        .filter((a) => call.query.name === undefined || a.name === call.query.name)
        .map((a) => ({
          id: a.id,
          name: a.name,
          size_in_bytes: a.zip.length,
          expired: a.expired ?? false,
          archive_download_url: `${this.baseUrl}/repos/${full}/actions/artifacts/${a.id}/zip`,
        }));
      return this.paginate(res, url, list, 'artifacts');
    }
    if (method === 'GET' && (m = /^\/actions\/artifacts\/(\d+)\/zip$/.exec(rest))) {
      const artifact = [...this.artifacts.values()].flat().find((a) => a.id === Number(m![1]));
      if (!artifact) return json(res, 404, { message: 'Not Found' });
      if (artifact.expired) return json(res, 410, { message: 'Artifact has expired' });
      res.writeHead(302, { location: `${this.baseUrl}/_fake/artifacts/${artifact.id}` }).end();
      return;
    }
    if (method === 'GET' && (m = /^\/check-runs\/(\d+)$/.exec(rest))) {
      const checkRun = this.checkRuns.get(Number(m[1]));
      return checkRun ? json(res, 200, checkRun) : json(res, 404, { message: 'Not Found' });
    }

    // Contents
    if ((m = /^\/contents\/(.+)$/.exec(rest))) {
      const filePath = m[1]!;
      if (method === 'GET') {
        const ref = call.query.ref ?? state.default_branch;
        const text = this.fileAt(owner, repo, ref, filePath);
        if (text === undefined) return json(res, 404, { message: 'Not Found' });
        if (/raw/.test(req.headers.accept ?? '')) {
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          res.end(text);
          return;
        }
        return json(res, 200, {
          type: 'file',
          path: filePath,
          name: filePath.split('/').pop(),
          sha: this.putBlob(Buffer.from(text)),
          encoding: 'base64',
          content: Buffer.from(text).toString('base64'),
        });
      }
      if (method === 'PUT') {
        const branch = typeof body.branch === 'string' ? body.branch : state.default_branch;
        const parent = state.refs.get(`heads/${branch}`);
        if (!parent) return json(res, 404, { message: `Branch ${branch} not found` });
        if (typeof body.content !== 'string' || typeof body.message !== 'string')
          return json(res, 422, { message: 'content and message are required' });
        const entries = new Map(this.treeOf(parent).entries);
        const existing = entries.get(filePath);
        if (existing !== undefined && body.sha !== existing)
          return json(res, 409, { message: `${filePath} does not match ${String(body.sha)}` });
        if (existing === undefined && body.sha !== undefined)
          return json(res, 422, { message: `sha given for a new file ${filePath}` });
        const blob = this.putBlob(Buffer.from(body.content, 'base64'));
        entries.set(filePath, blob);
        const commit = this.putCommit(this.putTree(entries), [parent], body.message);
        state.refs.set(`heads/${branch}`, commit);
        return json(res, existing ? 200 : 201, {
          content: { path: filePath, sha: blob },
          commit: { sha: commit },
        });
      }
    }

    // Compare (the Action's pull-request code asks whether its branch already holds the recipe)
    if (method === 'GET' && (m = /^\/compare\/(.+)\.\.\.(.+)$/.exec(rest))) {
      const baseSha = this.resolveRef(state, m[1]!);
      const headSha = this.resolveRef(state, m[2]!);
      if (!baseSha || !headSha) return json(res, 404, { message: 'Not Found' });
      const baseAncestors = this.ancestors(baseSha);
      const headAncestors = this.ancestors(headSha);
      const ahead = [...headAncestors].filter((c) => !baseAncestors.has(c));
      const behind = [...baseAncestors].filter((c) => !headAncestors.has(c));
      const before = this.treeOf(baseSha).entries;
      const after = this.treeOf(headSha).entries;
      const files: { filename: string; sha: string | null; status: string }[] = [];
      for (const [file, blob] of after)
        if (before.get(file) !== blob)
          files.push({ filename: file, sha: blob, status: before.has(file) ? 'modified' : 'added' });
      for (const [file] of before)
        if (!after.has(file)) files.push({ filename: file, sha: null, status: 'removed' });
      return json(res, 200, {
        status:
          behind.length === 0
            ? ahead.length === 0
              ? 'identical'
              : 'ahead'
            : ahead.length === 0
              ? 'behind'
              : 'diverged',
        ahead_by: ahead.length,
        behind_by: behind.length,
        total_commits: ahead.length,
        commits: ahead.map((sha) => ({ sha, commit: { message: this.commits.get(sha)?.message ?? '' } })),
        files,
      });
    }

    // Git data
    if (method === 'GET' && (m = /^\/git\/(?:ref|refs)\/(.+)$/.exec(rest))) {
      const sha = state.refs.get(m[1]!);
      if (!sha) return json(res, 404, { message: 'Not Found' });
      return json(res, 200, { ref: `refs/${m[1]}`, object: { sha, type: 'commit' } });
    }
    if (method === 'GET' && (m = /^\/git\/matching-refs\/(.+)$/.exec(rest))) {
      const prefix = m[1]!;
      return json(
        res,
        200,
        [...state.refs.entries()]
          .filter(([r]) => r.startsWith(prefix))
          .map(([r, sha]) => ({ ref: `refs/${r}`, object: { sha, type: 'commit' } })),
      );
    }
    if (method === 'POST' && rest === '/git/refs') {
      const ref = str(body.ref).replace(/^refs\//, '');
      const sha = str(body.sha);
      if (!/^(heads|tags)\/./.test(ref) || !this.commits.has(sha))
        return json(res, 422, { message: 'Reference update failed' });
      if (state.refs.has(ref)) return json(res, 422, { message: 'Reference already exists' });
      state.refs.set(ref, sha);
      return json(res, 201, { ref: `refs/${ref}`, object: { sha, type: 'commit' } });
    }
    if ((m = /^\/git\/refs\/(.+)$/.exec(rest))) {
      const ref = m[1]!;
      const current = state.refs.get(ref);
      if (!current) return json(res, 422, { message: 'Reference does not exist' });
      if (method === 'PATCH') {
        const sha = str(body.sha);
        if (!this.commits.has(sha)) return json(res, 422, { message: 'Object does not exist' });
        if (body.force !== true && !this.isAncestor(current, sha))
          return json(res, 422, { message: 'Update is not a fast forward' });
        state.refs.set(ref, sha);
        return json(res, 200, { ref: `refs/${ref}`, object: { sha, type: 'commit' } });
      }
      if (method === 'DELETE') {
        state.refs.delete(ref);
        res.writeHead(204).end();
        return;
      }
    }
    if (method === 'POST' && rest === '/git/blobs') {
      if (typeof body.content !== 'string') return json(res, 422, { message: 'content is required' });
      const sha = this.putBlob(Buffer.from(body.content, body.encoding === 'base64' ? 'base64' : 'utf8'));
      return json(res, 201, { sha, url: `${this.baseUrl}/repos/${full}/git/blobs/${sha}` });
    }
    if (method === 'GET' && (m = /^\/git\/blobs\/([0-9a-f]{40})$/.exec(rest))) {
      const blob = this.blobs.get(m[1]!);
      return blob
        ? json(res, 200, {
            sha: m[1],
            encoding: 'base64',
            content: blob.toString('base64'),
            size: blob.length,
          })
        : json(res, 404, { message: 'Not Found' });
    }
    if (method === 'POST' && rest === '/git/trees') {
      const base = typeof body.base_tree === 'string' ? this.trees.get(body.base_tree) : undefined;
      if (typeof body.base_tree === 'string' && !base)
        return json(res, 422, { message: 'base_tree is not a tree' });
      if (!Array.isArray(body.tree)) return json(res, 422, { message: 'tree is required' });
      const entries = new Map(base?.entries ?? []);
      for (const raw of body.tree as Record<string, unknown>[]) {
        const entryPath = str(raw.path);
        if (!entryPath) return json(res, 422, { message: 'tree entry without a path' });
        if (raw.sha === null) entries.delete(entryPath);
        else if (typeof raw.content === 'string')
          entries.set(entryPath, this.putBlob(Buffer.from(raw.content)));
        else if (typeof raw.sha === 'string' && this.blobs.has(raw.sha)) entries.set(entryPath, raw.sha);
        else return json(res, 422, { message: `tree entry ${entryPath}: sha or content expected` });
      }
      const sha = this.putTree(entries);
      return json(res, 201, {
        sha,
        tree: [...entries.entries()].map(([p, s]) => ({ path: p, sha: s, type: 'blob', mode: '100644' })),
      });
    }
    if (method === 'GET' && (m = /^\/git\/trees\/([0-9a-f]{40})$/.exec(rest))) {
      const tree = this.trees.get(m[1]!) ?? (this.commits.has(m[1]!) ? this.treeOf(m[1]!) : undefined);
      if (!tree) return json(res, 404, { message: 'Not Found' });
      return json(res, 200, {
        sha: m[1],
        tree: [...tree.entries.entries()].map(([p, s]) => ({
          path: p,
          sha: s,
          type: 'blob',
          mode: '100644',
        })),
        truncated: false,
      });
    }
    if (method === 'POST' && rest === '/git/commits') {
      const tree = str(body.tree);
      const parents = Array.isArray(body.parents) ? body.parents.map(String) : [];
      if (
        !this.trees.has(tree) ||
        parents.some((p) => !this.commits.has(p)) ||
        typeof body.message !== 'string'
      )
        return json(res, 422, { message: 'tree, parents and message must name existing objects' });
      const sha = this.putCommit(tree, parents, body.message);
      return json(res, 201, {
        sha,
        tree: { sha: tree },
        parents: parents.map((p) => ({ sha: p })),
        message: body.message,
      });
    }
    if (method === 'GET' && (m = /^\/git\/commits\/([0-9a-f]{40})$/.exec(rest))) {
      const commit = this.commits.get(m[1]!);
      return commit
        ? json(res, 200, {
            sha: m[1],
            tree: { sha: commit.tree },
            parents: commit.parents.map((p) => ({ sha: p })),
            message: commit.message,
          })
        : json(res, 404, { message: 'Not Found' });
    }

    return json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
  }

  /** The commit and every commit it descends from. */
  private ancestors(sha: string): Set<string> {
    const seen = new Set<string>();
    const stack = [sha];
    while (stack.length) {
      const s = stack.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      stack.push(...(this.commits.get(s)?.parents ?? []));
    }
    return seen;
  }

  private isAncestor(ancestor: string, sha: string): boolean {
    return this.ancestors(sha).has(ancestor);
  }

  private paginate(res: ServerResponse, url: URL, items: unknown[], key?: string): void {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30) || 30);
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
    const slice = items.slice((page - 1) * perPage, page * perPage);
    const headers: Record<string, string> = {};
    if (page * perPage < items.length) {
      const next = new URL(url.toString().replace('http://fake', this.baseUrl));
      next.searchParams.set('page', String(page + 1));
      next.searchParams.set('per_page', String(perPage));
      headers.link = `<${next.toString()}>; rel="next"`;
    }
    json(res, 200, key ? { total_count: items.length, [key]: slice } : slice, headers);
  }
}

export async function startFakeGitHubApi(options: FakeGitHubApiOptions = {}): Promise<FakeGitHubApi> {
  return new FakeGitHubApi(options).start();
}
