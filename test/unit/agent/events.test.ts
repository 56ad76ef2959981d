import { describe, expect, it, jest } from '@jest/globals';
import { EventBus, type RunEvent } from '../../../src/agent/events.js';

const phase = (message: string): RunEvent => ({ type: 'phase', phase: 'build', message });

describe('EventBus', () => {
  it('reports the first failing listener once, keeps it for result.json, and still calls the others', () => {
    const warnings: string[] = [];
    const bus = new EventBus((m) => warnings.push(m));
    const seen: string[] = [];
    bus.on(() => {
      throw new Error('ENOSPC: no space left on device, write');
    });
    bus.on((e) => seen.push(e.type));
    expect(bus.failure()).toBeUndefined();

    bus.emit(phase('one'));
    bus.emit({ type: 'run_end', status: 'failed', reason: 'x' });

    expect(seen).toEqual(['phase', 'run_end']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/a run observer failed on a 'phase' event \(ENOSPC: no space left/);
    expect(warnings[0]).toMatch(/trajectory\.jsonl\) may be incomplete/);
    expect(bus.failure()).toEqual({
      event: 'phase',
      error: 'ENOSPC: no space left on device, write',
      count: 2,
    });
  });

  it('writes the warning to stderr by default and survives a warning that throws', () => {
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const bus = new EventBus();
      bus.on(() => {
        throw new Error('boom');
      });
      bus.emit(phase('a'));
      expect(write).toHaveBeenCalledWith(expect.stringMatching(/^buildbench: warning: .*\(boom\)/));
    } finally {
      write.mockRestore();
    }
    const bus = new EventBus(() => {
      throw new Error('stderr closed');
    });
    bus.on(() => {
      throw new Error('boom');
    });
    expect(() => bus.emit(phase('b'))).not.toThrow();
    expect(bus.failure()?.error).toBe('boom');
  });

  it('stops calling a listener once it unsubscribes', () => {
    const bus = new EventBus();
    const seen: string[] = [];
    const off = bus.on((e) => seen.push(e.type));
    bus.emit(phase('a'));
    off();
    bus.emit(phase('b'));
    expect(seen).toEqual(['phase']);
  });
});
