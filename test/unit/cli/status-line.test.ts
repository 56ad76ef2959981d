/**
 * The heartbeat on a terminal (issue 33): one status line redrawn in place, not a new line per interval, and
 * gone when an event line or the end of the run clears it.
 */
import { describe, expect, it } from '@jest/globals';
import { createStatusLine } from '../../../src/cli/status-line.js';

describe('the status line', () => {
  it('redraws in place and clears', () => {
    let written = '';
    const stream = { isTTY: true, columns: 120, write: (t: string) => (written += t) };
    const line = createStatusLine(stream);
    line.show('[00:15] turn 0: still running after 15 s — log 1.0 KiB (follow logs/turn-00.log)');
    line.show('[00:30] turn 0: still running after 30 s — log 2.0 KiB (follow logs/turn-00.log)');
    line.clear();
    // both texts were drawn, on the same line: no newline was written between or after them
    expect(written).toContain('still running after 15 s');
    expect(written).toContain('still running after 30 s');
    expect(written).not.toContain('\n');
    // the last thing written erases the line (CSI … K), so the next event line starts clean
    const lastEscape = written.lastIndexOf('\u001b[');
    expect(written.slice(lastEscape)).toMatch(/^.\[[0-2]?K/);
    line.clear(); // idempotent
  });
});
