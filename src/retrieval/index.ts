/**
 * src/retrieval/ — how the authors say to build it (floor 1). It owns finding build instructions: the README
 * and doc files ranked offline, their build sections, links followed inside the repository and out, and with
 * a model BUILD-BENCH's distill–judge–refine loop. It returns instructions and every source it visited;
 * repository text reaches a model only as quoted, untrusted data.
 */
export {
  retrieveInstructions,
  offlineInstructions,
  pickReadme,
  REPORT_TOOL,
  type RetrieveOptions,
} from './retrieve.js';
export type { RetrievalResult, RetrievalSource } from './types.js';
export { htmlToText } from './html.js';
export { extractLinks, rankLinks, type DocLink } from './links.js';
export { buildSections, condense, splitSections } from './sections.js';
export { fetchPage, readRepoDoc } from './sources.js';
