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
