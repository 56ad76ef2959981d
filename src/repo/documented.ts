/**
 * The build commands a repository documents: shell blocks under the build or install headings of its README,
 * INSTALL and BUILDING files, and the `run:` steps of its CI (GitHub workflows, .travis.yml), as written —
 * the offline counterpart of BUILD-BENCH's retrieval. Cleaning them into a recipe (dropping `sudo`, other
 * systems' package managers, install-to-system steps) is recipe/documented.ts; this file only finds them,
 * the build-dependency package names the prose gives (`requires libfoo-dev`), and which build system the
 * documentation uses, so that inspection can try that one first.
 */
import { parse as parseYaml } from 'yaml';

import { markdownHeading } from '../base/markdown.js';
import { baseOf, dirOf } from './paths.js';
import type {
  BuildSystem,
  BuildSystemChoice,
  BuildSystemKind,
  DocFile,
  DocumentedBlock,
  DocumentedBuild,
} from './types.js';
import { readSmallText } from './walk.js';

/** Headings under which a shell block is taken as build instructions. */
const BUILD_HEADING =
  /build|compil|install|from source|getting started|quick ?start|setup|requirement|dependenc|prerequisite/i;
/** Fence languages that are shell (an empty one counts too). */
const SHELL_LANGS = new Set([
  '',
  'sh',
  'bash',
  'shell',
  'console',
  'shell-session',
  'shellsession',
  'zsh',
  'terminal',
  'text',
  'none',
]);
/** A command that builds: one of these makes a block worth taking even outside a build heading. */
const BUILD_WORD =
  /(?:^|[\s;&|(])(?:cmake|make|\.\/configure|sh\s+(?:\.\/)?configure|autoreconf|\.\/autogen\.sh|meson|ninja|qmake|scons|bazel|cargo\s+build|gcc|g\+\+|cc|apt-get|apt)(?=\s|$)/m;
const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]*[a-z0-9+]$/;
/** `requires libfoo-dev and libbar-dev`, `Dependencies: libz-dev`: names ending in -dev in dependency prose. */
const PROSE_DEV = /\b([a-z0-9][a-z0-9+.-]*-dev)\b/g;
const PROSE_CUE = /\b(?:require|depend|need|prerequisite|install|dependenc)/i;
const MAX_BLOCKS = 40;
const MAX_BLOCK_CHARS = 8000;

/** Headings of a section about installing the finished program (`## Installing`, `## Installation`). */
const INSTALL_HEADING = /^(?:how to )?install(?:ing|ation)?\b/i;
/** Headings that make such a section about building after all. */
const BUILD_SECTION = /build|compil|source|depend|requir|prerequisite|develop|contribut/i;

/**
 * Whether a heading and those above it (`## Installing › ### Linux`) make a section about installing the
 * finished program (a release, a distribution's package of it) rather than building it: an "Installing"
 * heading, and none about building, sources or dependencies on the way.
 */
export function programInstallSection(headings: readonly string[]): boolean {
  return headings.some((h) => INSTALL_HEADING.test(h.trim())) && !headings.some((h) => BUILD_SECTION.test(h));
}

/** A line that builds (a section with one is about building, whatever its heading says). */
const BUILDS =
  /(?:^|[\s;&|(])(?:cmake|make|gmake|\.\/configure|autoreconf|\.\/autogen\.sh|\.\/bootstrap|meson|ninja|qmake|scons|bazel|\.\/build\.sh)(?=\s|$)/;

/**
 * For each line of a Markdown text (0-based), whether it is in a section `programInstallSection` names and
 * that section runs no build command (an "Installation" section that configures and makes is a build's).
 * Both readers of install lines use it: declared-deps' `apt-get install` lines and `docBlocks`' blocks.
 */
export function programInstallLines(text: string | readonly string[]): boolean[] {
  const levels: string[] = [];
  const lines = typeof text === 'string' ? text.split('\n') : text;
  // Each line's section (the index of its heading line, -1 before any) and whether that section builds.
  const sectionOf: number[] = [];
  const named = new Map<number, boolean>();
  const builds = new Set<number>();
  let section = -1;
  lines.forEach((line, i) => {
    const md = markdownHeading(line);
    if (md) {
      levels.length = md.level;
      levels[md.level - 1] = md.title;
      section = i;
      named.set(i, programInstallSection(levels.filter((t) => t !== undefined)));
    } else if (BUILDS.test(line)) builds.add(section);
    sectionOf.push(section);
  });
  return sectionOf.map((at) => named.get(at) === true && !builds.has(at));
}

interface Heading {
  title: string;
  line: number;
  /** The heading's last line (its underline for a setext title). */
  end: number;
}

/** Strips console prompts: a block with `$ ` lines keeps only those (the rest is output). */
export function stripPrompts(text: string): string {
  const lines = text.split('\n');
  const prompted = lines.filter((l) => /^\s*[$%]\s/.test(l));
  if (prompted.length === 0) return text;
  return prompted.map((l) => l.replace(/^\s*[$%]\s+/, '')).join('\n');
}

/**
 * The shell blocks of one document (Markdown fences, indented blocks after a blank line or a heading, reStructuredText
 * `code-block`/`::` blocks, `$ ` prompt lines in plain text), each with the heading it is under. Blocks
 * under a build heading come first; others only when they run a build command.
 */
export function docBlocks(text: string, file: string): DocumentedBlock[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const found: { block: DocumentedBlock; underBuild: boolean }[] = [];
  let heading: Heading = { title: '', line: 0, end: -1 };
  const installing = programInstallLines(lines);
  const push = (start: number, body: string[]): void => {
    const raw = stripPrompts(body.join('\n')).trim();
    if (raw === '' || raw.length > MAX_BLOCK_CHARS) return;
    found.push({
      block: {
        source: `${file}:${start + 1}`,
        section: heading.title,
        ...(installing[start] === true ? { installsProgram: true as const } : {}),
        text: raw,
        from: 'docs',
      },
      underBuild: BUILD_HEADING.test(heading.title),
    });
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const md = markdownHeading(line);
    if (md) {
      heading = { title: md.title, line: i, end: i };
      continue;
    }
    const next = lines[i + 1] ?? '';
    if (line.trim() !== '' && /^\s*([=\-~^*#])\1{2,}\s*$/.test(next) && !/^\s/.test(line)) {
      heading = { title: line.trim(), line: i, end: i + 1 };
      i++;
      continue;
    }
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(line);
    if (fence) {
      const close = fence[2]!;
      const body: string[] = [];
      let j = i + 1;
      for (; j < lines.length && !lines[j]!.trimStart().startsWith(close); j++) body.push(lines[j]!);
      if (SHELL_LANGS.has(fence[3]!.toLowerCase())) push(i, dedent(body));
      i = j;
      continue;
    }
    const rst = /^\s*\.\.\s+(?:code-block|code|sourcecode)::\s*(\w*)/.exec(line);
    if (rst || /::\s*$/.test(line)) {
      const lang = rst?.[1]?.toLowerCase() ?? '';
      const { body, end } = indentedAfter(lines, i + 1);
      if (body.length > 0 && (SHELL_LANGS.has(lang) || rst === null)) push(i, body);
      i = Math.max(i, end - 1);
      continue;
    }
    // An indented block starts after a blank line or right under a heading (`## Compile:` then `    make`).
    const afterHeading = i - 1 === heading.end;
    if (/^( {4}|\t)\S/.test(line) && ((lines[i - 1] ?? '').trim() === '' || afterHeading)) {
      const { body, end } = indentedAfter(lines, i);
      if (body.length > 0) push(i, body);
      i = Math.max(i, end - 1);
      continue;
    }
    if (/^\s*\$\s+\S/.test(line)) {
      const body: string[] = [];
      let j = i;
      for (; j < lines.length && /^\s*\$\s+\S/.test(lines[j]!); j++) body.push(lines[j]!);
      push(i, body);
      i = j - 1;
    }
  }
  const build = found.filter((f) => f.underBuild).map((f) => f.block);
  const other = found.filter((f) => !f.underBuild && BUILD_WORD.test(f.block.text)).map((f) => f.block);
  // Blocks under build headings are the instructions; elsewhere only blocks that build.
  return (build.some((b) => BUILD_WORD.test(b.text)) ? build : [...build, ...other]).slice(0, MAX_BLOCKS);
}

/** An indented block starting at `from` (blank lines inside allowed), dedented. */
function indentedAfter(lines: readonly string[], from: number): { body: string[]; end: number } {
  let j = from;
  while (j < lines.length && lines[j]!.trim() === '') j++;
  const body: string[] = [];
  for (; j < lines.length; j++) {
    const l = lines[j]!;
    if (l.trim() !== '' && !/^(\s{2,}|\t)/.test(l)) break;
    body.push(l);
  }
  while (body.length > 0 && body[body.length - 1]!.trim() === '') body.pop();
  return { body: dedent(body), end: j };
}

function dedent(body: readonly string[]): string[] {
  const indents = body.filter((l) => l.trim() !== '').map((l) => /^\s*/.exec(l)![0].length);
  const cut = indents.length > 0 ? Math.min(...indents) : 0;
  return body.map((l) => l.slice(cut));
}

/** `-dev` package names the prose of a document gives as dependencies (not those inside code blocks). */
export function prosePackages(text: string, file: string): { name: string; source: string }[] {
  const out: { name: string; source: string }[] = [];
  const lines = text.split('\n');
  let fenced = false;
  for (const [i, line] of lines.entries()) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) fenced = !fenced;
    if (fenced || /^\s*\$/.test(line)) continue;
    const context = `${lines[i - 1] ?? ''} ${line}`;
    if (!PROSE_CUE.test(context)) continue;
    for (const match of line.matchAll(PROSE_DEV)) {
      const name = match[1]!.toLowerCase();
      if (PACKAGE_NAME.test(name)) out.push({ name, source: `${file}:${i + 1}` });
    }
  }
  return out;
}

type Yaml = Record<string, unknown>;
const isMap = (v: unknown): v is Yaml => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The `run:` steps of the first job of a GitHub workflow that runs on Linux and builds (a job whose
 * `runs-on` names Windows or macOS only is skipped); a workflow that does not parse gives nothing.
 */
export function workflowBlocks(text: string, file: string): DocumentedBlock[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    return [];
  }
  if (!isMap(doc) || !isMap(doc.jobs)) return [];
  for (const [name, job] of Object.entries(doc.jobs)) {
    if (!isMap(job) || !Array.isArray(job.steps)) continue;
    const runsOn = JSON.stringify(job['runs-on'] ?? '') + JSON.stringify(job.strategy ?? '');
    if (/windows|macos/i.test(runsOn) && !/ubuntu|linux/i.test(runsOn)) continue;
    const blocks: DocumentedBlock[] = [];
    for (const step of job.steps) {
      if (!isMap(step) || typeof step.run !== 'string') continue;
      const section = typeof step.name === 'string' ? step.name : `job ${name}`;
      if (/\$\{\{/.test(step.run) && !BUILD_WORD.test(step.run)) continue;
      blocks.push({ source: `${file}: ${section}`, section, text: step.run.trim(), from: 'ci' });
    }
    if (blocks.some((b) => BUILD_WORD.test(b.text))) return blocks.slice(0, MAX_BLOCKS);
  }
  return [];
}

/** The install and script phases of a .travis.yml, in the order Travis runs them. */
export function travisBlocks(text: string, file: string): DocumentedBlock[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    return [];
  }
  if (!isMap(doc)) return [];
  const blocks: DocumentedBlock[] = [];
  for (const phase of ['before_install', 'install', 'before_script', 'script']) {
    const value = doc[phase];
    const commands = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
    const text = commands.filter((c): c is string => typeof c === 'string').join('\n');
    if (text.trim() !== '') blocks.push({ source: `${file}: ${phase}`, section: phase, text, from: 'ci' });
  }
  return blocks.some((b) => BUILD_WORD.test(b.text)) ? blocks : [];
}

/** Docs read for commands: README, INSTALL, BUILDING (and the like) at most this deep, best first. */
const DOC_NAME = /^(?:readme|install|building|build|compiling|compile)/i;

/** Reads the documented build commands of a checkout (docs from `findDocs`, CI files from `findCiFiles`). */
export async function findDocumentedBuild(
  root: string,
  docs: readonly DocFile[],
  ciFiles: readonly string[],
): Promise<DocumentedBuild> {
  const blocks: DocumentedBlock[] = [];
  const packages: { name: string; source: string }[] = [];
  const chosen = docs.filter((d) => DOC_NAME.test(baseOf(d.path)) && dirOf(d.path).split('/').length <= 2);
  for (const doc of chosen.slice(0, 4)) {
    const text = await readSmallText(root, doc.path, { maxBytes: 128 * 1024 });
    if (text === undefined) continue;
    blocks.push(...docBlocks(text, doc.path));
    packages.push(...prosePackages(text, doc.path));
  }
  for (const file of ciFiles.slice(0, 8)) {
    const text = await readSmallText(root, file, { maxBytes: 128 * 1024 });
    if (text === undefined) continue;
    if (file.startsWith('.github/workflows/')) blocks.push(...workflowBlocks(text, file));
    else if (baseOf(file) === '.travis.yml') blocks.push(...travisBlocks(text, file));
  }
  const seen = new Set<string>();
  return {
    blocks: blocks.slice(0, MAX_BLOCKS),
    prosePackages: packages.filter((p) => !seen.has(p.name) && seen.add(p.name)),
  };
}

/** The build-system kinds a command names, in the order of the patterns (first that matches wins). */
const USES: readonly { re: RegExp; kinds: BuildSystemKind[] }[] = [
  { re: /(?:^|[\s;&|(])(?:autoreconf|\.?\/?autogen\.sh|\.\/bootstrap)\b/, kinds: ['autotools'] },
  {
    re: /(?:^|[\s;&|(])(?:\.\.?\/)+configure\b|(?:^|[\s;&|(])sh\s+(?:\.\/)?configure\b/,
    kinds: ['autotools', 'configure'],
  },
  { re: /(?:^|[\s;&|(])cmake\s/, kinds: ['cmake'] },
  { re: /(?:^|[\s;&|(])meson\s/, kinds: ['meson'] },
  { re: /(?:^|[\s;&|(])qmake\b/, kinds: ['qmake'] },
  { re: /(?:^|[\s;&|(])scons\b/, kinds: ['scons'] },
  { re: /(?:^|[\s;&|(])bazel\s/, kinds: ['bazel'] },
  { re: /(?:^|[\s;&|(])cargo\s+build\b/, kinds: ['cargo'] },
  { re: /(?:^|[\s;&|(])make\b/, kinds: ['make'] },
];

/**
 * Which detected build system the documentation uses: the first build command of the first documentation
 * block (CI steps count only when the docs have none) that names a system inspection found. Undefined when
 * the docs name none of them, or name the one already first.
 */
export function documentedChoice(
  documented: DocumentedBuild,
  systems: readonly BuildSystem[],
): BuildSystemChoice | undefined {
  const linux = systems.filter((s) => s.linux);
  const docs = documented.blocks.filter((b) => b.from === 'docs');
  const ordered = docs.some((b) => BUILD_WORD.test(b.text)) ? docs : documented.blocks;
  for (const block of ordered) {
    for (const line of block.text.split('\n')) {
      if (/^\s*#/.test(line)) continue;
      // `cd build && cmake ..` names cmake; `make` after `./configure` on the same line names configure.
      const hit = USES.map((u) => ({ u, at: line.search(u.re) }))
        .filter((h) => h.at >= 0)
        .sort((a, b) => a.at - b.at)[0];
      if (!hit) continue;
      const system = hit.u.kinds.map((k) => linux.find((s) => s.kind === k)).find(Boolean);
      if (!system) continue;
      return {
        kind: system.kind,
        file: system.file,
        why: `${block.source} says \`${line.trim().slice(0, 120)}\``,
      };
    }
  }
  return undefined;
}

/**
 * The build systems with the documented one moved to the front (the others keep their order), and the
 * choice when that changed or confirmed the order.
 */
export function preferDocumented(
  systems: readonly BuildSystem[],
  choice: BuildSystemChoice | undefined,
): BuildSystem[] {
  if (!choice) return [...systems];
  const at = systems.findIndex((s) => s.kind === choice.kind && s.file === choice.file);
  if (at <= 0) return [...systems];
  return [systems[at]!, ...systems.slice(0, at), ...systems.slice(at + 1)];
}
