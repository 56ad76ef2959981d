/**
 * src/trajectory/ — the run's record (floor 1): the append-only trajectory.jsonl writer and reader
 * (recorder.ts) and the redaction of secrets from everything kept (redact.ts). It records whatever events
 * it is given (the agent's run events: turns, claims, steps, model calls); it knows nothing of their meaning.
 *
 * trajectory.jsonl: one JSON event per line, appended with a synchronous write the moment it is recorded,
 * so a run that is killed keeps everything up to its last step (SWE-agent writes its trajectory on every
 * step for the same reason). Every string in an event, keys included, is redacted before it is written.
 *
 * Line 1 is the header: `{"schema":"buildbench.trajectory/v1","seq":0,"type":"header",…}`. Every line has
 * `seq` (0, 1, 2, …), `type`, `time` (ISO 8601), `elapsedMs` (since the recorder was created) and, when there
 * is a payload, `data`.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';

import { collectSecretValues, createRedactor } from './redact.js';

export const TRAJECTORY_SCHEMA = 'buildbench.trajectory/v1';

export interface TrajectoryEvent<T = unknown> {
  /** Only on the header (the first line). */
  schema?: typeof TRAJECTORY_SCHEMA;
  seq: number;
  type: string;
  time: string;
  elapsedMs: number;
  data?: T;
}

export interface RecorderOptions {
  /**
   * Applied to every string before it is written. Default: `createRedactor` over the secret-looking
   * variables of `process.env` plus `secrets`.
   */
  redact?: (text: string) => string;
  /** Extra secret values for the default redactor (ignored when `redact` is given). */
  secrets?: string[];
  /** Payload of the header event, next to `pid`, `node` and `platform`. */
  header?: Record<string, unknown>;
  /** Append to an existing file (a new header starts the new part) instead of starting it afresh. */
  append?: boolean;
  /** fsync after every event: survives a machine crash too, at a cost per event. Default false. */
  fsync?: boolean;
  /** Strings longer than this keep their head and tail with a marker between. Default 1 MiB of characters. */
  maxStringLength?: number;
  /** Milliseconds since the epoch (tests). Default `Date.now`. */
  now?: () => number;
}

const DEFAULT_MAX_STRING = 1024 * 1024;
const MAX_DEPTH = 64;

export class TrajectoryRecorder {
  readonly path: string;
  private fd: number | undefined;
  private seq = 0;
  private readonly start: number;
  private readonly now: () => number;
  private readonly redact: (text: string) => string;
  private readonly maxStringLength: number;
  private readonly fsync: boolean;

  /** Creates (or truncates, unless `append`) the file and writes the header line. */
  constructor(filePath: string, options: RecorderOptions = {}) {
    this.path = filePath;
    this.now = options.now ?? Date.now;
    this.start = this.now();
    this.redact =
      options.redact ?? createRedactor([...collectSecretValues(process.env), ...(options.secrets ?? [])]);
    this.maxStringLength = Math.max(64, options.maxStringLength ?? DEFAULT_MAX_STRING);
    this.fsync = options.fsync ?? false;
    mkdirSync(path.dirname(filePath), { recursive: true });
    this.fd = openSync(filePath, options.append ? 'a' : 'w');
    this.write({
      schema: TRAJECTORY_SCHEMA,
      ...this.envelope('header'),
      data: { pid: process.pid, node: process.version, platform: process.platform, ...options.header },
    });
  }

  /** True once `close` was called; later events are dropped. */
  get closed(): boolean {
    return this.fd === undefined;
  }

  /** Events written so far, the header included. */
  get count(): number {
    return this.seq;
  }

  /**
   * Redacts and appends one event; returns what was written, or undefined once the recorder is closed
   * (an observer firing during shutdown is not an error). A failing write (disk full) throws.
   */
  record(type: string, data?: unknown): TrajectoryEvent | undefined {
    if (this.fd === undefined) return undefined;
    const event: TrajectoryEvent = this.envelope(type);
    if (data !== undefined) event.data = data;
    return this.write(event);
  }

  /** Closes the file. Idempotent. */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }

  private envelope(type: string): TrajectoryEvent {
    const now = this.now();
    return { seq: this.seq, type, time: new Date(now).toISOString(), elapsedMs: now - this.start };
  }

  private write(event: TrajectoryEvent): TrajectoryEvent {
    const safe = toJsonSafe(event, this.redact, this.maxStringLength) as TrajectoryEvent;
    const bytes = Buffer.from(JSON.stringify(safe) + '\n', 'utf8');
    const fd = this.fd as number;
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    if (this.fsync) fsyncSync(fd);
    this.seq++;
    return safe;
  }
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.floor((max - 40) / 2);
  return `${text.slice(0, keep)}\n…[${text.length - 2 * keep} characters omitted]…\n${text.slice(-keep)}`;
}

/**
 * A copy of `value` that `JSON.stringify` writes faithfully, with every string (keys included) redacted and
 * capped: `bigint` → string, `Date` → ISO string, `Error` → {name, message, stack, code}, `Map` → object,
 * `Set` → array, binary buffers → a `[N bytes]` note (never their contents), cycles → `[Circular]`.
 */
export function toJsonSafe(
  value: unknown,
  redact: (text: string) => string,
  maxStringLength: number,
): unknown {
  const ancestors = new Set<object>();
  const str = (text: string): string => truncate(redact(text), maxStringLength);

  const visit = (v: unknown, depth: number): unknown => {
    switch (typeof v) {
      case 'string':
        return str(v);
      case 'number':
      case 'boolean':
        return v;
      case 'bigint':
        return v.toString();
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
    }
    if (v === null) return null;
    const obj = v as object;
    if (depth > MAX_DEPTH) return '[Depth limit]';
    if (ancestors.has(obj)) return '[Circular]';
    if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? null : obj.toISOString();
    if (ArrayBuffer.isView(obj) || obj instanceof ArrayBuffer) return `[${obj.byteLength} bytes]`;
    ancestors.add(obj);
    try {
      if (Array.isArray(obj)) return obj.map((item) => visit(item, depth + 1) ?? null);
      if (obj instanceof Set) return [...obj].map((item) => visit(item, depth + 1) ?? null);
      if (obj instanceof Map) {
        const out: Record<string, unknown> = {};
        for (const [key, item] of obj) out[str(String(key))] = visit(item, depth + 1);
        return out;
      }
      if (obj instanceof Error) {
        const out: Record<string, unknown> = { name: str(obj.name), message: str(obj.message) };
        if (obj.stack) out.stack = str(obj.stack);
        for (const [key, item] of Object.entries(obj)) out[str(key)] = visit(item, depth + 1);
        return out;
      }
      const withToJson = obj as { toJSON?: unknown };
      if (typeof withToJson.toJSON === 'function') {
        return visit((withToJson.toJSON as () => unknown).call(obj), depth + 1);
      }
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(obj)) out[str(key)] = visit(item, depth + 1);
      return out;
    } finally {
      ancestors.delete(obj);
    }
  };
  return visit(value, 0);
}

/**
 * The events of a trajectory file, in order. A last line without its newline that does not parse (the
 * process was killed mid-write) is dropped; any other line that does not parse is an error naming it.
 */
export async function readTrajectory(filePath: string): Promise<TrajectoryEvent[]> {
  return parseTrajectory(await readFile(filePath, 'utf8'), filePath);
}

/** `readTrajectory` of text already read (an output folder's file, opened no-follow); `filePath` names it in errors. */
export function parseTrajectory(text: string, filePath: string): TrajectoryEvent[] {
  const lines = text.split('\n');
  const events: TrajectoryEvent[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const last = index === lines.length - 1; // only when the file does not end with a newline
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      if (last) return;
      throw new Error(`${filePath}:${index + 1}: not a JSON event (the trajectory is damaged)`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      if (last) return;
      throw new Error(`${filePath}:${index + 1}: not a JSON object`);
    }
    events.push(parsed as TrajectoryEvent);
  });
  return events;
}
