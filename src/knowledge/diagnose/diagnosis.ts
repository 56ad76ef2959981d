/**
 * A diagnosis of a failed build log with no sandbox: the root cause (the log lines it rests on, with their
 * line numbers), a concrete suggested fix (packages, flags, a patch or commands; a line of a build file to
 * change where one applies) and a confidence — or, plainly, that nothing build-related was found (a flaky
 * network error, a failing test assertion). `buildbench diagnose` prints it; the GitHub App comments it.
 *
 * The shape below is the contract the CLI and the bot share; the implementation fills it.
 */

/** A line of the log the diagnosis rests on (1-based, after the CI runner's prefixes are removed). */
export interface QuotedLine {
  line: number;
  text: string;
}

/** A change to one line of a build file (a workflow's `apt-get install`, a Makefile's flags). */
export interface LineSuggestion {
  /** Repository-relative path of the file. */
  path: string;
  /** 1-based line number in that file. */
  line: number;
  original: string;
  replacement: string;
  why: string;
}

export interface SuggestedFix {
  kind: 'packages' | 'flags' | 'patch' | 'commands';
  /** In words, for a person. */
  summary: string;
  /** Debian/Ubuntu packages to install. */
  packages?: string[];
  /** Shell commands to run (e.g. the install line). */
  commands?: string[];
  /** A unified diff. */
  patch?: string;
  /** Where the fix belongs in a build file the caller supplied, when one applies. */
  suggestion?: LineSuggestion;
}

export type Confidence = 'high' | 'medium' | 'low';

export type Diagnosis =
  | {
      found: true;
      rootCause: {
        /** The layer-1 signature's id and category (src/knowledge/diagnose/signatures.ts). */
        id: string;
        category: string;
        message: string;
        lines: QuotedLine[];
      };
      fix?: SuggestedFix;
      confidence: Confidence;
    }
  | {
      found: false;
      /** Why there is nothing to say (no build error; a network flake; a test failure, not a build problem). */
      reason: string;
      kind: 'clean' | 'not-build' | 'flaky' | 'unknown';
    };
