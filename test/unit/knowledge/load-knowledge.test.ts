/** loadKnowledge reads the shipped tables once: what a later reader gets is what it loaded. */
import { describe, expect, it } from '@jest/globals';

import { defaultSignatureCatalog } from '../../../src/knowledge/diagnose/signatures.js';
import { loadKnowledge } from '../../../src/knowledge/index.js';
import { defaultRepairTables } from '../../../src/knowledge/repair/tables.js';
import { loadCatalog } from '../../../src/recipe/catalog.js';

describe('loadKnowledge', () => {
  it('loads the signature catalog, the repair tables and the recipe catalog that later readers share', () => {
    loadKnowledge();
    const loaded = [defaultSignatureCatalog(), defaultRepairTables(), loadCatalog()];
    loadKnowledge();
    expect(defaultSignatureCatalog()).toBe(loaded[0]);
    expect(defaultRepairTables()).toBe(loaded[1]);
    expect(loadCatalog()).toBe(loaded[2]);
  });
});
