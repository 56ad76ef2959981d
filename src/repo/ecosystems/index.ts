/**
 * Language ecosystems of a repository, for deployment: each detector (one file per ecosystem family) reads
 * the manifests it knows from the walked file list and returns what they declare; `detectEcosystems` runs
 * them all. Detectors read only small files through the walk's rules (no symlink is followed) and never
 * fail on an odd manifest: a manifest that cannot be parsed is a note, not an error.
 */
import type { EcosystemInfo } from '../types.js';
import type { EcosystemDetector } from './detector.js';
import { fortranDetector } from './fortran.js';
import { goDetector } from './go.js';
import { haskellDetector } from './haskell.js';
import { javaDetector } from './java.js';
import { luaDetector } from './lua.js';
import { racketDetector } from './racket.js';
import { rustDetector } from './rust.js';
import { cCppDetector } from './c-cpp.js';
import { javascriptDetector } from './javascript.js';
import { juliaDetector } from './julia.js';
import { pythonDetector } from './python.js';
import { rDetector } from './r.js';

export type { EcosystemDetector } from './detector.js';

/** Every detector, in the order their ecosystems are set up (a runtime before the bindings built on it). */
export const DETECTORS: readonly EcosystemDetector[] = [
  cCppDetector,
  fortranDetector,
  rustDetector,
  goDetector,
  javaDetector,
  haskellDetector,
  luaDetector,
  racketDetector,
  juliaDetector,
  pythonDetector,
  rDetector,
  javascriptDetector,
];

/** The ecosystems present, in DETECTORS order; a detector that throws is skipped with a note on stderr. */
export async function detectEcosystems(root: string, files: readonly string[]): Promise<EcosystemInfo[]> {
  const found: EcosystemInfo[] = [];
  for (const detector of DETECTORS) {
    try {
      const info = await detector.detect(root, files);
      if (info) found.push(info);
    } catch (error) {
      process.stderr.write(
        `buildbench: warning: reading the ${detector.kind} manifests failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
  }
  return found;
}
