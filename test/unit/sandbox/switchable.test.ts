/**
 * One handle on a run's sandbox (switchable.ts): after `replace`, every command and property is the new
 * sandbox's, and the egress record still names the hosts the replaced sandboxes contacted.
 */
import { describe, expect, it } from '@jest/globals';

import type { EgressRecord } from '../../../src/sandbox/isolation.js';
import { mergeEgress, switchableSandbox } from '../../../src/sandbox/switchable.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';

function withEgress(box: FakeSandbox, record: EgressRecord): FakeSandbox {
  (box as FakeSandbox & { egress: () => EgressRecord }).egress = () => record;
  return box;
}

describe('switchableSandbox', () => {
  it('routes every command, property and dispose to the current sandbox', async () => {
    const first = new FakeSandbox(() => ({ output: 'first' }));
    const second = new FakeSandbox(() => ({ output: 'second' }));
    (second as { hostWorkdir: string }).hostWorkdir = '/tmp/second';
    const handle = switchableSandbox(first);
    expect((await handle.sandbox.exec('a', { timeoutMs: 1 })).output).toBe('first');
    expect(handle.current).toBe(first);
    expect(handle.replace(second)).toBe(first);
    expect(handle.current).toBe(second);
    expect((await handle.sandbox.exec('b', { timeoutMs: 1 })).output).toBe('second');
    expect(handle.sandbox.hostWorkdir).toBe('/tmp/second');
    expect(first.scripts).toEqual(['a']);
    expect(second.scripts).toEqual(['b']);
    await handle.sandbox.dispose();
    expect(second.disposed).toBe(true);
    expect(first.disposed).toBe(false); // the caller of replace disposes the one it got back
    expect('egress' in handle.sandbox && handle.sandbox.egress !== undefined).toBe(false); // neither records egress
  });

  it('keeps the egress of the sandboxes it replaced', () => {
    const a = withEgress(new FakeSandbox(() => ({})), {
      method: 'proxy+logs',
      hosts: [{ host: 'deb.debian.org', ports: [80], seenBy: ['proxy'], connections: 2 }],
      notes: ['n1'],
    });
    const b = withEgress(new FakeSandbox(() => ({})), {
      method: 'proxy+logs',
      hosts: [
        { host: 'deb.debian.org', ports: [443], seenBy: ['log'], connections: 1 },
        { host: 'a.example', ports: [], seenBy: ['script'] },
      ],
      notes: ['n1', 'n2'],
    });
    const handle = switchableSandbox(a);
    handle.replace(b);
    expect(handle.sandbox.egress!()).toEqual({
      method: 'proxy+logs',
      hosts: [
        { host: 'a.example', ports: [], seenBy: ['script'] },
        { host: 'deb.debian.org', ports: [80, 443], seenBy: ['log', 'proxy'], connections: 3 },
      ],
      notes: ['n1', 'n2'],
    });
    expect(mergeEgress([])).toBeUndefined();
  });
});
