/** What retrieval found: build instructions and every source it visited (for the retrieval metric). */

export interface RetrievalSource {
  kind: 'file' | 'page';
  /** Repository-relative path, for files. */
  path?: string;
  /** The URL as requested, for pages. */
  url?: string;
  /** 0 for the README (and, offline, the ranked doc files), 1.. for the link-following rounds. */
  round: number;
  ok: boolean;
  error?: string;
  /** Characters of text read. */
  chars?: number;
  /** The link as written in the document that led here, when it differs from path/url. */
  via?: string;
}

export interface RetrievalResult {
  /** `llm`: distilled by the model; `offline`: build sections of the ranked doc files. */
  mode: 'llm' | 'offline';
  /** The instructions ('' when nothing was found). Repository-derived text: quote it as untrusted. */
  instructions: string;
  /** Whether the instructions looked enough to build (the model's judgement, or build commands found offline). */
  sufficient: boolean;
  /** Link-following rounds done (0: the README alone). */
  rounds: number;
  sources: RetrievalSource[];
  /** Links the model asked for that were not followed, and why. */
  skipped: { link: string; reason: string }[];
  /** What went wrong on the way (a model call that failed, a budget that ran out). */
  notes: string[];
}
