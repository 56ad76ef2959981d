/**
 * One catalog field decides who owns a failure class (issue 30): every signature says `repair:` rule | generic |
 * model | not-build with its reason, `rule` exactly when a repair rule answers the id, and a not-build class says
 * which kind of non-build failure it is.
 */
import { describe, expect, it } from '@jest/globals';
import { knownSignatureIds } from '../../../../src/knowledge/repair/rules/index.js';
import {
  NOT_BUILD_KINDS,
  defaultSignatureCatalog,
  parseSignatureCatalog,
} from '../../../../src/knowledge/diagnose/signatures.js';

describe('the repair owner of every signature', () => {
  const catalog = defaultSignatureCatalog();
  const ruled = new Set(knownSignatureIds());

  it('every signature has an owner and a reason', () => {
    const without = catalog.signatures
      .filter((s) => !s.repair || s.repair.why.trim() === '')
      .map((s) => s.id);
    expect(without).toEqual([]);
  });

  it('owner rule exactly when a repair rule claims the id', () => {
    const claimedButNotRule = catalog.signatures
      .filter((s) => ruled.has(s.id) && s.repair?.owner !== 'rule')
      .map((s) => `${s.id}: ${s.repair?.owner}`);
    const ruleButUnclaimed = catalog.signatures
      .filter((s) => s.repair?.owner === 'rule' && !ruled.has(s.id))
      .map((s) => s.id);
    expect(claimedButNotRule).toEqual([]);
    expect(ruleButUnclaimed).toEqual([]);
  });

  it('a not-build class names its kind, and only a not-build class has one', () => {
    for (const s of catalog.signatures) {
      if (s.repair?.owner === 'not-build') expect(NOT_BUILD_KINDS).toContain(s.repair.kind);
      else expect(s.repair?.kind).toBeUndefined();
    }
  });

  it('every non-build kind has at least one class', () => {
    const kinds = new Set(catalog.signatures.map((s) => s.repair?.kind).filter(Boolean));
    expect([...NOT_BUILD_KINDS].filter((k) => !kinds.has(k))).toEqual([]);
  });

  it('refuses an unknown owner, and a not-build class without its kind, naming the signature', () => {
    const catalogWith = (repair: string): string =>
      `version: 1\nsignatures:\n  - id: x\n    category: network\n    pattern: 'boom'\n    keywords: ['boom']\n    message: m\n    repair: ${repair}\n`;
    expect(() => parseSignatureCatalog(catalogWith('{owner: somebody, why: w}'))).toThrow(
      /signature "x".*repair "owner" must be one of rule, generic, model, not-build/,
    );
    expect(() => parseSignatureCatalog(catalogWith('{owner: not-build, why: w}'))).toThrow(
      /signature "x".*repair "kind" must be one of flaky-network/,
    );
    expect(() => parseSignatureCatalog(catalogWith('{owner: rule, why: w, kind: timeout}'))).toThrow(
      /repair "kind" is only for owner not-build/,
    );
  });
});
