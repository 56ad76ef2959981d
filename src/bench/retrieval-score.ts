/**
 * Retrieval accuracy against BUILD-BENCH's labelled instruction URLs: which of the documents a person
 * followed to find the build instructions did the run read? A labelled URL of the task's own repository
 * (`https://github.com/o/r/blob/<ref>/<path>`, `…/tree/<ref>/<folder>`, `raw.githubusercontent.com/o/r/<ref>/<path>`,
 * the bare `https://github.com/o/r`, which is its README) names a repository document; the run consulted it
 * when result.json's `retrieval.sources` holds that file read successfully (a folder: any file under it).
 * Every other URL (another site, another repository, a wiki) is counted apart, as "elsewhere"; it counts as
 * consulted only when the run fetched that very page.
 *
 * A ref with a slash in it (`blob/release/2.x/INSTALL`) cannot be told apart from a folder in the URL alone:
 * the first part after `blob/` is taken as the ref, as GitHub's own short links do.
 */

/** What a labelled URL points at. */
export type LabelledTarget =
  | { kind: 'readme' }
  | { kind: 'file'; path: string }
  | { kind: 'folder'; path: string }
  | { kind: 'elsewhere'; offGithub: boolean };

export interface RetrievalScore {
  /** Labelled documents of the repository itself. */
  labelled: number;
  /** …of which the run read. */
  consulted: number;
  /** Labelled URLs outside the repository's files (other sites, other repositories, wikis). */
  elsewhere: number;
  /** …of which not on GitHub at all. */
  offGithub: number;
  /** Elsewhere URLs the run fetched as pages. */
  elsewhereConsulted: number;
  /** The labelled repository URLs the run did not read. */
  missed: string[];
}

const GITHUB_HOSTS = new Set(['github.com', 'www.github.com']);

function decodePath(parts: string[]): string | undefined {
  try {
    const joined = parts.map((p) => decodeURIComponent(p)).join('/');
    return joined.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/**
 * The names a task's repository may go by in result.json's `repo.name`: the name itself, and the part after
 * `+` of a mirror folder's `owner+name`.
 */
function sameRepository(urlName: string, repoName: string): boolean {
  const name = urlName.toLowerCase().replace(/\.git$/, '');
  const ours = repoName.toLowerCase();
  return name === ours || ours.endsWith(`+${name}`);
}

/** What a labelled URL points at, for the repository named `repoName` (result.json's `repo.name`). */
export function labelledTarget(url: string, repoName: string): LabelledTarget {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return { kind: 'elsewhere', offGithub: true };
  }
  const host = u.hostname.toLowerCase();
  const parts = u.pathname.split('/').filter((p) => p !== '');
  if (host === 'raw.githubusercontent.com') {
    if (parts.length < 4 || !sameRepository(parts[1]!, repoName))
      return { kind: 'elsewhere', offGithub: false };
    const file = decodePath(parts.slice(3));
    return file ? { kind: 'file', path: file } : { kind: 'elsewhere', offGithub: false };
  }
  if (!GITHUB_HOSTS.has(host)) return { kind: 'elsewhere', offGithub: true };
  if (parts.length < 2 || !sameRepository(parts[1]!, repoName))
    return { kind: 'elsewhere', offGithub: false };
  if (parts.length === 2) return { kind: 'readme' };
  const view = parts[2]!;
  if (view !== 'blob' && view !== 'tree' && view !== 'raw') return { kind: 'elsewhere', offGithub: false };
  if (parts.length <= 4) return { kind: 'readme' };
  const rel = decodePath(parts.slice(4));
  if (!rel) return { kind: 'elsewhere', offGithub: false };
  return view === 'tree' ? { kind: 'folder', path: rel } : { kind: 'file', path: rel };
}

const README = /^readme(?:\.[^/]*)?$/i;

/** A page URL as compared: no fragment, no trailing slash, host in lower case. */
function pageKey(url: string): string {
  try {
    const u = new URL(url.trim());
    u.hash = '';
    return `${u.protocol}//${u.host.toLowerCase()}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  } catch {
    return url.trim();
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Scores one run: `instructions` are the task's labelled URLs, `repoName` result.json's `repo.name`,
 * `sources` result.json's `retrieval.sources` (read loosely: an entry of another shape is ignored).
 */
export function scoreRetrieval(
  instructions: readonly string[],
  repoName: string,
  sources: readonly unknown[],
): RetrievalScore {
  const files = new Set<string>();
  const pages = new Set<string>();
  for (const s of sources) {
    if (!isObject(s) || s.ok !== true) continue;
    if (s.kind === 'file' && typeof s.path === 'string') files.add(s.path.replace(/^\.\//, ''));
    if (s.kind === 'page' && typeof s.url === 'string') pages.add(pageKey(s.url));
  }
  const score: RetrievalScore = {
    labelled: 0,
    consulted: 0,
    elsewhere: 0,
    offGithub: 0,
    elsewhereConsulted: 0,
    missed: [],
  };
  for (const url of new Set(instructions)) {
    const target = labelledTarget(url, repoName);
    if (target.kind === 'elsewhere') {
      score.elsewhere++;
      if (target.offGithub) score.offGithub++;
      if (pages.has(pageKey(url))) score.elsewhereConsulted++;
      continue;
    }
    score.labelled++;
    const read =
      target.kind === 'readme'
        ? [...files].some((f) => README.test(f))
        : target.kind === 'file'
          ? files.has(target.path)
          : [...files].some((f) => f.startsWith(`${target.path}/`));
    if (read) score.consulted++;
    else score.missed.push(url);
  }
  return score;
}
