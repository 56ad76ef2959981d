/**
 * A small Dockerfile reader, enough to check that a generated Dockerfile is well formed without a Docker
 * engine: parser directives, comments, line continuations (the escape character at the end of a line,
 * comment and empty lines inside a continuation), known instructions, JSON (exec) forms, ENV/ARG pairs,
 * and FROM coming first (only ARG may precede it).
 */

export const INSTRUCTIONS = [
  'ADD',
  'ARG',
  'CMD',
  'COPY',
  'ENTRYPOINT',
  'ENV',
  'EXPOSE',
  'FROM',
  'HEALTHCHECK',
  'LABEL',
  'MAINTAINER',
  'ONBUILD',
  'RUN',
  'SHELL',
  'STOPSIGNAL',
  'USER',
  'VOLUME',
  'WORKDIR',
] as const;
export type InstructionName = (typeof INSTRUCTIONS)[number];

export interface Instruction {
  name: InstructionName;
  /** The arguments with continuations joined (the escape character and newline removed). */
  args: string;
  /** 1-based line where the instruction starts. */
  line: number;
  /** Parsed JSON array for the exec form (RUN/CMD/ENTRYPOINT/SHELL/…), when the arguments are one. */
  json?: string[];
}

export interface DockerfileProblem {
  line: number;
  message: string;
}

export interface ParsedDockerfile {
  instructions: Instruction[];
  errors: DockerfileProblem[];
  escape: string;
}

const KNOWN = new Set<string>(INSTRUCTIONS);

function parseJsonArray(text: string): string[] | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('[')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  } catch {
    // not JSON: the shell form
  }
  return undefined;
}

/**
 * Splits `KEY=value KEY2="quoted value"` as Docker does for ENV/LABEL/ARG; undefined when malformed
 * (an unterminated quote, a pair without `=` where one is required).
 */
export function parseKeyValues(text: string, escape = '\\'): { key: string; value?: string }[] | undefined {
  const out: { key: string; value?: string }[] = [];
  let i = 0;
  const s = text.trim();
  while (i < s.length) {
    while (i < s.length && /\s/.test(s[i]!)) i++;
    if (i >= s.length) break;
    let key = '';
    while (i < s.length && s[i] !== '=' && !/\s/.test(s[i]!)) key += s[i++];
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(key)) return undefined;
    if (s[i] !== '=') {
      out.push({ key });
      continue;
    }
    i++;
    let value = '';
    while (i < s.length && !/\s/.test(s[i]!)) {
      const c = s[i]!;
      if (c === '"' || c === "'") {
        const quote = c;
        i++;
        let closed = false;
        while (i < s.length) {
          if (quote === '"' && s[i] === escape && i + 1 < s.length) {
            value += s[i + 1];
            i += 2;
            continue;
          }
          if (s[i] === quote) {
            closed = true;
            i++;
            break;
          }
          value += s[i++];
        }
        if (!closed) return undefined;
      } else if (c === escape && i + 1 < s.length) {
        value += s[i + 1];
        i += 2;
      } else {
        value += c;
        i++;
      }
    }
    out.push({ key, value });
  }
  return out;
}

export function parseDockerfile(text: string): ParsedDockerfile {
  const lines = text.split(/\r?\n/);
  const errors: DockerfileProblem[] = [];
  const instructions: Instruction[] = [];
  let escape = '\\';
  let index = 0;

  // Parser directives: `# name=value` lines at the very top.
  for (; index < lines.length; index++) {
    const m = /^#\s*([A-Za-z]+)\s*=\s*(\S+)\s*$/.exec(lines[index]!);
    if (!m) break;
    if (m[1]!.toLowerCase() === 'escape') {
      if (m[2] !== '\\' && m[2] !== '`')
        errors.push({ line: index + 1, message: `invalid escape directive ${m[2]}` });
      else escape = m[2];
    }
  }

  let current: { start: number; text: string } | undefined;
  const finish = (): void => {
    if (!current) return;
    const { start, text: joined } = current;
    current = undefined;
    const m = /^\s*(\S+)(?:\s+([\s\S]*))?$/.exec(joined);
    if (!m) return;
    const word = m[1]!;
    const args = (m[2] ?? '').trim();
    const name = word.toUpperCase();
    if (!KNOWN.has(name)) {
      errors.push({ line: start, message: `unknown instruction ${word}` });
      return;
    }
    const instruction: Instruction = { name: name as InstructionName, args, line: start };
    const json = parseJsonArray(args);
    if (json) instruction.json = json;
    instructions.push(instruction);
    checkInstruction(instruction, escape, errors);
  };

  for (; index < lines.length; index++) {
    const raw = lines[index]!;
    const trimmed = raw.trim();
    if (current) {
      // Inside a continuation, comment lines and empty lines are dropped.
      if (trimmed === '' || trimmed.startsWith('#')) continue;
    } else if (trimmed === '' || trimmed.startsWith('#')) continue;
    const continued = raw.trimEnd().endsWith(escape);
    const piece = continued ? raw.trimEnd().slice(0, -1) : raw;
    if (current) current.text += piece;
    else current = { start: index + 1, text: piece };
    if (!continued) finish();
  }
  if (current) {
    errors.push({ line: current.start, message: 'the last instruction ends with a line continuation' });
    finish();
  }

  const firstNonArg = instructions.find((i) => i.name !== 'ARG');
  if (!firstNonArg) errors.push({ line: 1, message: 'no FROM instruction' });
  else if (firstNonArg.name !== 'FROM') {
    errors.push({
      line: firstNonArg.line,
      message: `the first instruction must be FROM (only ARG may come before it), not ${firstNonArg.name}`,
    });
  }
  return { instructions, errors, escape };
}

function checkInstruction(i: Instruction, escape: string, errors: DockerfileProblem[]): void {
  const fail = (message: string): void => {
    errors.push({ line: i.line, message: `${i.name}: ${message}` });
  };
  if (i.args === '' && i.name !== 'HEALTHCHECK') {
    fail('needs arguments');
    return;
  }
  switch (i.name) {
    case 'FROM': {
      const words = i.args.split(/\s+/);
      const image = words.find((w) => !w.startsWith('--'));
      if (!image) fail('names no image');
      const as = words.findIndex((w) => w.toUpperCase() === 'AS');
      if (as >= 0 && (as !== words.length - 2 || !/^[a-z][a-z0-9_.-]*$/.test(words[as + 1]!)))
        fail('bad stage name');
      if (image && !/^(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|[a-z0-9][a-z0-9._\-/:@]*)$/.test(image))
        fail(`bad image reference ${image}`);
      break;
    }
    case 'ENV':
    case 'LABEL': {
      const pairs = parseKeyValues(i.args, escape);
      if (!pairs) fail('malformed key=value pairs');
      else if (pairs.some((p) => p.value === undefined)) {
        // The legacy `ENV KEY value` form is only valid with a single key and a value.
        if (!(i.name === 'ENV' && /^\S+\s+\S/.test(i.args) && !i.args.split(/\s+/)[0]!.includes('=')))
          fail('expects KEY=value');
      }
      break;
    }
    case 'ARG': {
      const pairs = parseKeyValues(i.args, escape);
      if (!pairs || pairs.length !== 1) fail('expects one NAME or NAME=default');
      break;
    }
    case 'COPY':
    case 'ADD': {
      const words = i.json ?? i.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      if (words.length < 2) fail('needs a source and a destination');
      break;
    }
    case 'SHELL':
      if (!i.json || i.json.length === 0) fail('must be a JSON array of strings');
      break;
    case 'RUN':
    case 'CMD':
    case 'ENTRYPOINT':
      if (i.args.trim().startsWith('[') && !i.json) {
        // A shell command may start with `[` (test); only flag what looks like a broken JSON array.
        if (/^\[\s*"/.test(i.args.trim())) fail('looks like a JSON array but does not parse');
      }
      break;
    case 'WORKDIR':
    case 'USER':
    case 'STOPSIGNAL':
      if (/\s/.test(i.args) && !i.json) fail('expects one value');
      break;
    default:
      break;
  }
}
