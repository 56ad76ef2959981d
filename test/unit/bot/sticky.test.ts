import { describe, expect, it } from '@jest/globals';

import { COMMENT_MARKER } from '../../../src/action/comment.js';
import { ACTION_COMMENT_MARKER, STATUS_MARKER, withMarker } from '../../../src/bot/sticky.js';

describe('the sticky comment markers', () => {
  it("know the Action's marker (the Action rewrites the sticky comment under its own)", () => {
    expect(ACTION_COMMENT_MARKER).toBe(COMMENT_MARKER);
  });

  it('put the status marker first, once', () => {
    expect(withMarker('hello')).toBe(`${STATUS_MARKER}\nhello`);
    expect(withMarker(`${STATUS_MARKER}\nhello`)).toBe(`${STATUS_MARKER}\nhello`);
  });
});
