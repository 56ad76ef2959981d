/** Source languages by file extension, and the C/C++ files that define `main`. */

import { baseOf, depthOf } from './paths.js';
import { mapLimit } from '../base/concurrency.js';
import { readSmallText } from './walk.js';

const EXTENSIONS: Record<string, string> = {
  '.c': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.c++': 'cpp',
  '.cp': 'cpp',
  '.ino': 'cpp',
  '.h': 'header',
  '.hh': 'cpp',
  '.hpp': 'cpp',
  '.hxx': 'cpp',
  '.h++': 'cpp',
  '.ipp': 'cpp',
  '.tcc': 'cpp',
  '.inl': 'cpp',
  '.cu': 'cuda',
  '.cuh': 'cuda',
  '.m': 'objc',
  '.mm': 'objcpp',
  '.s': 'asm',
  '.asm': 'asm',
  '.nasm': 'asm',
  '.f': 'fortran',
  '.for': 'fortran',
  '.f77': 'fortran',
  '.f90': 'fortran',
  '.f95': 'fortran',
  '.f03': 'fortran',
  '.f08': 'fortran',
  '.rs': 'rust',
  '.py': 'python',
  '.pyx': 'cython',
  '.go': 'go',
  '.java': 'java',
  '.kt': 'kotlin',
  '.scala': 'scala',
  '.cs': 'csharp',
  '.swift': 'swift',
  '.zig': 'zig',
  '.d': 'd',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.ts': 'typescript',
  '.rb': 'ruby',
  '.pl': 'perl',
  '.pm': 'perl',
  '.lua': 'lua',
  '.php': 'php',
  '.sh': 'shell',
  '.bash': 'shell',
  '.hs': 'haskell',
  '.ml': 'ocaml',
  '.jl': 'julia',
  '.r': 'r',
  '.vhd': 'vhdl',
  '.vhdl': 'vhdl',
  '.v': 'verilog',
  '.sv': 'verilog',
};

/** The language of one file name, or undefined when it is not source code. `.C` and `.H` are C++. */
export function languageOf(file: string): string | undefined {
  const base = baseOf(file);
  const i = base.lastIndexOf('.');
  if (i <= 0) return undefined;
  const ext = base.slice(i);
  if (ext === '.C' || ext === '.H') return 'cpp';
  if (ext === '.S') return 'asm';
  if (ext === '.F' || ext === '.F90') return 'fortran';
  return EXTENSIONS[ext.toLowerCase()];
}

/** Counts source files by language (`header` for `.h`, shared by C and C++). */
export function countLanguages(files: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const file of files) {
    const lang = languageOf(file);
    if (lang !== undefined) counts[lang] = (counts[lang] ?? 0) + 1;
  }
  return counts;
}

/** C, C++ (and CUDA) translation units — the files that can define `main`. */
export function isCompilable(file: string): boolean {
  const lang = languageOf(file);
  return lang === 'c' || lang === 'cpp' || lang === 'cuda'
    ? !/\.(?:hh|hpp|hxx|h\+\+|ipp|tcc|inl|cuh|H)$/.test(file)
    : false;
}

/** Replaces comments and string/char literals with spaces, keeping newlines and offsets. */
export function blankCommentsAndStrings(text: string): string {
  return text.replace(/\/\*[\s\S]*?(?:\*\/|$)|\/\/[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, (m) =>
    m.replace(/[^\n]/g, ' '),
  );
}

const TYPES_BEFORE_MAIN = new Set(['int', 'void', 'signed', 'auto', '__cdecl', '__stdcall']);

/**
 * Whether C/C++ source defines `main`: `int main(`, `void main(`, `int\nmain (int argc, …)`, `auto main() -> int`,
 * K&R `main()` at the start of a line. Declarations (`int main(void);`) and calls (`return main(…)`) do not count.
 * Comments and string literals are ignored.
 */
export function definesMain(source: string): boolean {
  const text = blankCommentsAndStrings(source);
  const re = /\bmain\s*\(/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const before = text.slice(Math.max(0, m.index - 64), m.index);
    const prev = /([A-Za-z_]\w*)\s*$/.exec(before)?.[1];
    const atLineStart = /(?:^|\n)$/.test(before);
    if (prev !== undefined ? !TYPES_BEFORE_MAIN.has(prev) : !atLineStart) continue;
    if (prev === undefined && /[.>:]\s*$/.test(before)) continue;
    // Find the matching `)` and look at what follows it.
    let depth = 0;
    let i = m.index + m[0].length - 1;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (ch === '(') depth++;
      else if (ch === ')' && --depth === 0) break;
    }
    if (i >= text.length) continue;
    const after = /^\s*(\S)/.exec(text.slice(i + 1, i + 200))?.[1];
    if (after === undefined || after === ';' || after === ',' || after === ')' || after === '=') continue;
    return true;
  }
  return false;
}

export interface MainSourcesOptions {
  /** Files looked at, shallow ones first (default 4000). */
  maxFiles?: number;
  /** Bytes read per file (default 256 KiB). */
  maxBytes?: number;
  /** At most this many results (default 200). */
  limit?: number;
}

/** C/C++ files (shallow first) whose text defines `main`. */
export async function findMainSources(
  root: string,
  files: readonly string[],
  options: MainSourcesOptions = {},
): Promise<string[]> {
  const candidates = files
    .filter(isCompilable)
    .sort((a, b) => depthOf(a) - depthOf(b))
    .slice(0, options.maxFiles ?? 4000);
  const flags = await mapLimit(candidates, 32, async (file) => {
    const text = await readSmallText(root, file, { maxBytes: options.maxBytes ?? 256 * 1024 });
    return text !== undefined && /\bmain\b/.test(text) && definesMain(text);
  });
  return candidates.filter((_, i) => flags[i]).slice(0, options.limit ?? 200);
}
