/** Splits documentation into sections by heading and picks the ones about building, by keywords. */
import { markdownHeading } from '../base/markdown.js';

export interface DocSection {
  /** The heading text, '' for the part before the first heading. */
  heading: string;
  /** The section text, heading line(s) included. */
  text: string;
  /** Order in the document. */
  index: number;
  score: number;
}

const BUILD_HEADING =
  /build|compil|install|from source|getting started|quick ?start|prerequisite|requirement|dependenc|set ?up|how to|usage from source|developer/i;
const OFF_TOPIC_HEADING =
  /licen[cs]e|contribut|citation|cite|acknowledg|changelog|release notes|contact|support|community|sponsor|donat|author|credits|faq|code of conduct|security policy/i;
const OTHER_OS_HEADING =
  /windows|mac ?os|os ?x|visual studio|msvc|homebrew|\bios\b|android|freebsd|docker image/i;
const BUILD_COMMAND =
  /(?:^|\s|`|\$ )(?:cmake|make|\.\/configure|configure|meson|ninja|autoreconf|autogen\.sh|\.\/bootstrap|bazel|scons|qmake|b2|apt-get|apt|yum|dnf|pacman|zypper|brew|vcpkg|conan|git submodule)\b/m;
const FENCE = /^(?:```|~~~)|^::\s*$|^\.\. code(?:-block)?::/m;

/** Heading lines: Markdown ATX (`## Build`), setext and reStructuredText underlines (`Build\n=====`). */
export function splitSections(text: string): DocSection[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const sections: { heading: string; lines: string[] }[] = [{ heading: '', lines: [] }];
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(?:```|~~~)/.test(line)) inFence = !inFence;
    const next = lines[i + 1];
    const atx = !inFence ? markdownHeading(line) : undefined;
    const underlined =
      !inFence &&
      next !== undefined &&
      line.trim() !== '' &&
      !/^\s*[-=~^*+#`]/.test(line) &&
      /^\s*([=\-~^"'`#*+])\1{2,}\s*$/.test(next) &&
      next.trim().length >= Math.min(3, line.trim().length);
    if (atx) {
      sections.push({ heading: atx.title, lines: [line] });
    } else if (underlined) {
      sections.push({ heading: line.trim(), lines: [line, next] });
      i++;
    } else {
      sections[sections.length - 1]!.lines.push(line);
    }
  }
  return sections
    .map((s, index) => {
      const body = s.lines.join('\n').trim();
      return { heading: s.heading, text: body, index, score: scoreSection(s.heading, body) };
    })
    .filter((s) => s.text !== '');
}

function scoreSection(heading: string, body: string): number {
  let score = 0;
  if (BUILD_HEADING.test(heading)) score += 3;
  if (OFF_TOPIC_HEADING.test(heading)) score -= 5;
  if (OTHER_OS_HEADING.test(heading) && !/linux|ubuntu|debian|unix/i.test(heading)) score -= 2;
  if (BUILD_COMMAND.test(body)) score += 2;
  if (FENCE.test(body)) score += 1;
  return score;
}

/** The sections about building, in document order, within `maxChars` (best first when they do not all fit). */
export function buildSections(text: string, maxChars: number): { text: string; headings: string[] } {
  const relevant = splitSections(text).filter((s) => s.score >= 3);
  const chosen: DocSection[] = [];
  let size = 0;
  for (const s of [...relevant].sort((a, b) => b.score - a.score || a.index - b.index)) {
    const cost = s.text.length + 2;
    if (size + cost > maxChars) {
      if (chosen.length === 0) {
        chosen.push({ ...s, text: s.text.slice(0, maxChars - 20) + '\n[…]' });
        size = maxChars;
      }
      continue;
    }
    chosen.push(s);
    size += cost;
  }
  chosen.sort((a, b) => a.index - b.index);
  return { text: chosen.map((s) => s.text).join('\n\n'), headings: chosen.map((s) => s.heading) };
}

/**
 * A document cut to `maxChars`: whole when it fits, else its build sections first (in document order) and
 * then its beginning, marked as condensed.
 */
export function condense(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const picked = buildSections(text, Math.floor(maxChars * 0.8));
  const head = text.slice(0, Math.max(0, maxChars - picked.text.length - 80));
  if (picked.text === '')
    return `${text.slice(0, maxChars - 40)}\n[… ${text.length - maxChars + 40} characters cut]`;
  return `${head}\n[… condensed: the sections about building follow …]\n${picked.text}`.slice(0, maxChars);
}

/** True when text contains something that looks like a build command. */
export function mentionsBuildCommands(text: string): boolean {
  return BUILD_COMMAND.test(text);
}
