/**
 * What the bot writes back into issues and pull requests goes through the one renderer of untrusted text
 * (src/report/github-text.ts), which the Action's comments, pull request bodies and job summaries share:
 * `neutralise` for prose, `codeSpan`/`codeBlock` for verbatim text, `link` for a name with a URL.
 */
export {
  codeBlock,
  codeSpan,
  inline,
  link,
  md,
  plainTitle,
  prose as neutralise,
  stripControl,
} from '../report/github-text.js';
