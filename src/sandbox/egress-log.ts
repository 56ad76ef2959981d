/**
 * Hosts a build contacted, as its log shows them: apt's `Get:`/`Hit:` lines, pip's `Downloading`/`Looking in
 * indexes`, npm's `GET`/`http fetch`, cargo's `Downloaded`/`Updating`, go's `go: downloading` (through its
 * proxy), Maven's `Downloading from <repo>: <url>`, git's `Cloning into` with the URL on the command line,
 * curl/wget URLs. A fallback beside the recording proxy (tools that ignore HTTP(S)_PROXY, such as Maven, or
 * sandboxes it cannot serve), and labelled so in the RUNBOOK: a log names the URLs a tool chose to print.
 */

/** Words on a log line that say a URL on it was fetched (not merely mentioned in a message). */
const FETCH_LINE =
  /\b(?:Get:\d+|Hit:\d+|Ign:\d+|Err:\d+|Downloading|Downloaded|Download|Fetching|Fetched|Collecting|Looking in indexes|Obtaining|Cloning|Updating|GET|http fetch|Resolving|Connecting to|Retrieving|curl|wget|git clone|git fetch|pip install|go: downloading)\b/i;

const URL_HOST =
  /\b(?:https?|git|ssh|ftp|git\+https|git\+ssh):\/\/(?:[^\s/@'"<>]+@)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?/g;

/** A host name worth recording: a dotted name or an address, not a placeholder (`example.com` stays). */
function plausibleHost(host: string): boolean {
  if (host.startsWith('[')) return true;
  return /\.[A-Za-z0-9-]*[A-Za-z][A-Za-z0-9-]*$/.test(host) || /^\d+\.\d+\.\d+\.\d+$/.test(host);
}

/** The hosts named by URLs on the fetch lines of `output`, lower-case, each once, in order of appearance. */
export function hostsInLog(output: string): string[] {
  const out = new Set<string>();
  for (const line of output.split('\n')) {
    if (!line.includes('://') || !FETCH_LINE.test(line)) continue;
    for (const m of line.matchAll(URL_HOST)) {
      const host = m[1]!.toLowerCase().replace(/\.$/, '');
      if (plausibleHost(host) && !/^(?:localhost|127\.|0\.0\.0\.0)/.test(host)) out.add(host);
    }
  }
  return [...out];
}
