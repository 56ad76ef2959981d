/**
 * Racket: info.rkt (`(define deps '("base" "math-lib" …))`, `build-deps` as dev; an entry may be
 * `("pkg" #:version "1.2")`). info.rkt is Racket code, read as text only.
 */
import type { DeclaredDependency, EcosystemInfo } from '../types.js';
import type { EcosystemDetector } from './detector.js';
import { lineRef, manifestsNamed, readManifest } from './manifest-files.js';

export const racketDetector: EcosystemDetector = {
  kind: 'racket',
  async detect(root, files) {
    const infos = manifestsNamed(files, 'info.rkt');
    if (infos.length === 0) return undefined;
    const info: EcosystemInfo = {
      kind: 'racket',
      manifests: infos,
      dependencies: [],
      notes: [],
      runtime: { name: 'racket', why: 'info.rkt' },
    };
    for (const manifest of infos) {
      const text = await readManifest(root, manifest);
      if (text === undefined) continue;
      for (const m of text.matchAll(/\(define\s+(deps|build-deps)\s+'?\(([\s\S]*?)\)\s*\)/g)) {
        const body = m[2] as string;
        for (const e of body.matchAll(/\(?\s*"([^"]+)"(?:\s+#:version\s+"([^"]+)")?/g)) {
          const dep: DeclaredDependency = {
            name: e[1] as string,
            manifest: lineRef(manifest, text, m.index),
          };
          if (e[2]) dep.constraint = `>=${e[2]}`;
          if (m[1] === 'build-deps') dep.dev = true;
          info.dependencies.push(dep);
        }
      }
    }
    return info;
  },
};
