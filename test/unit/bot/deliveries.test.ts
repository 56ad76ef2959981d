import { describe, expect, it } from '@jest/globals';

import { MemoryDeliveryLog } from '../../../src/bot/deliveries.js';

describe('MemoryDeliveryLog', () => {
  it('claims an id once, forgets on request, and stays within its capacity (oldest out first)', () => {
    const log = new MemoryDeliveryLog(3);
    expect(log.claim('a')).toBe(true);
    expect(log.claim('a')).toBe(false);
    log.forget('a');
    expect(log.claim('a')).toBe(true);
    expect(log.claim('b')).toBe(true);
    expect(log.claim('c')).toBe(true);
    expect(log.claim('a')).toBe(false); // refreshed: now the newest
    expect(log.claim('d')).toBe(true); // evicts b, the oldest
    expect(log.size).toBe(3);
    expect(log.claim('b')).toBe(true);
    expect(log.claim('a')).toBe(false);
  });
});
