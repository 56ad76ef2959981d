/**
 * The shape of one ecosystem's detector, in its own file so the detectors and the list that runs them
 * (index.ts) import it without a cycle between files.
 */
import type { EcosystemInfo, EcosystemKind } from '../types.js';

export interface EcosystemDetector {
  kind: EcosystemKind;
  /**
   * What this ecosystem's manifests in `files` (relative to `root`, the repository's own files, vendored
   * and submodule directories left out) declare; undefined when it is not present.
   */
  detect(root: string, files: readonly string[]): Promise<EcosystemInfo | undefined>;
}
