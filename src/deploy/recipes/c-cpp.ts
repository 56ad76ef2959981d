/**
 * The C/C++ setup of a deploy: the repository's own build, as the build engine would run it — the recipes of
 * recipe/catalog.ts `candidateRecipes`, one per detected build system in order of evidence — re-labelled
 * as deploy setup. The artifact scan does not judge them here: the target experiment does.
 */
import { candidateRecipes } from '../../recipe/catalog.js';
import type { Recipe } from '../../recipe/model.js';
import type { EcosystemSetup } from './setup.js';

export const cCppSetup: EcosystemSetup = {
  kind: 'c-cpp',
  recipes(_eco, { repo }): Recipe[] {
    // Cargo and setup.py builds are the Rust and Python setups' (rust.ts, python.ts), not a C/C++ build's.
    return candidateRecipes(repo)
      .filter((recipe) => recipe.system !== 'cargo' && recipe.system !== 'setup.py')
      .map((recipe) => ({
        ...recipe,
        id: `c-cpp:${recipe.id}`,
        label: `C/C++: ${recipe.label}`,
        evidence: `the target needs the repository built: ${recipe.evidence}`,
      }));
  },
};
