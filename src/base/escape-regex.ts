/** `text` escaped for a regular expression: every character JavaScript, RE2 and Perl (apt-file) read specially. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
