import { describe, it, expect } from '@jest/globals';

import { blankReservedWords, splitLines, splitScript } from '../../../src/trajectory/shell-split.js';

async function commands(script: string): Promise<string[]> {
  const result = await splitScript(script);
  expect(result.parser).toBe('sh-syntax');
  return result.commands;
}

describe('splitScript', () => {
  it.each<[string, string, string[]]>([
    [
      '`&&` and `;` inside quotes',
      `echo "a && b; c" && make -j4; echo 'x || y'`,
      ['echo "a && b; c"', 'make -j4', "echo 'x || y'"],
    ],
    ['pipes and lists mixed', 'a | b && c || d', ['a', 'b', 'c', 'd']],
    ['$(a && b) stays whole', 'x=$(a && b) || d', ['x=$(a && b)', 'd']],
    ['$( … ) inside double quotes', 'echo "$(a | b; c)" | wc -l', ['echo "$(a | b; c)"', 'wc -l']],
    ['backticks', 'v=`a | b`; c', ['v=`a | b`', 'c']],
    [
      '`\\` continuations are joined',
      './configure \\\n  --prefix=/usr \\\n  && make',
      ['./configure --prefix=/usr', 'make'],
    ],
    [
      'a subshell is entered, its redirection kept out',
      '(cd build && make) > log 2>&1 && echo done',
      ['cd build', 'make', 'echo done'],
    ],
    ['two subshells', '(a) && (b)', ['a', 'b']],
    ['a brace group', 'test -f x || { echo no; exit 1; }', ['test -f x', 'echo no', 'exit 1']],
    ['comments, with operators in them, are dropped', '# a | b && c\nls # d && e\n', ['ls']],
    ['`|&` and `&`', 'make |& tee log & wait', ['make', 'tee log', 'wait']],
    ['redirections are not pipes', 'echo x >| f && cat f 2>&1', ['echo x >| f', 'cat f 2>&1']],
    ['newlines', 'set -e\n\nmkdir -p build\ncd build', ['set -e', 'mkdir -p build', 'cd build']],
    ['a negated command', '! grep -q x f && echo ok', ['grep -q x f', 'echo ok']],
  ])('%s', async (_label, script, expected) => {
    expect(await commands(script)).toEqual(expected);
  });

  it('keeps a heredoc body out, even with `|` and `&&` in it, and splits the line that opens it', async () => {
    const script = 'cat <<EOF | grep x && echo ok\nfoo | bar && baz\nEOF\nnext';
    expect(await commands(script)).toEqual(['cat <<EOF', 'grep x', 'echo ok', 'next']);
  });

  it('keeps a quoted, tab-stripped heredoc out of the statements that follow', async () => {
    const script = "cat > config.h <<-'END'\n\t#define A (1 | 2)\n\tEND\nmake";
    expect(await commands(script)).toEqual(["cat > config.h <<-'END'", 'make']);
  });

  it('walks into if/elif/else: conditions and bodies, `[[ a && b ]]` whole', async () => {
    const script = 'if [ -f x ] && [[ a && b ]]; then make; elif true; then c; else d || e; fi';
    expect(await commands(script)).toEqual(['[ -f x ]', '[[ a && b ]]', 'make', 'true', 'c', 'd', 'e']);
  });

  it('walks into for, arithmetic for and while loops, leaving their headers out', async () => {
    expect(await commands('for f in a b; do gcc -c $f.c && echo $f; done')).toEqual([
      'gcc -c $f.c',
      'echo $f',
    ]);
    expect(await commands('for ((i=0;i<3;i++)); do echo $i; done')).toEqual(['echo $i']);
    expect(await commands('while read -r l; do echo "$l"; done < file')).toEqual(['read -r l', 'echo "$l"']);
  });

  it('walks into case items; a `|` in a pattern is not a pipe', async () => {
    const script = 'case "$x" in\n  a|b) foo && bar;;\n  (c) baz;;\n  *) qux;;\nesac';
    expect(await commands(script)).toEqual(['foo', 'bar', 'baz', 'qux']);
  });

  it('walks into compounds nested in a list', async () => {
    expect(await commands('cd src && if make; then ./t; fi && echo end')).toEqual([
      'cd src',
      'make',
      './t',
      'echo end',
    ]);
  });

  it('counts no command for a function definition, names it, and counts its calls', async () => {
    const result = await splitScript('f() { apt-get install -y x && y; }\nfunction g { z; }\nf && g');
    expect(result).toEqual({ commands: ['f', 'g'], parser: 'sh-syntax', functions: ['f', 'g'] });
  });

  it('handles text beyond ASCII (the parser counts bytes)', async () => {
    expect(await commands('echo "naïve → ok" && make')).toEqual(['echo "naïve → ok"', 'make']);
  });

  it('falls back to lines, and says so, when the parser rejects the script', async () => {
    const result = await splitScript("echo 'unterminated && x\nmake \\\n  -j4\n# note\n");
    expect(result.parser).toBe('lines');
    expect(result.error).toMatch(/quote/);
    expect(result.commands).toEqual(["echo 'unterminated && x", 'make -j4']);
  });

  it('answers an empty script with no commands', async () => {
    expect(await splitScript('')).toEqual({ commands: [], parser: 'sh-syntax', functions: [] });
  });
});

describe('splitLines', () => {
  it('joins continuations and drops blank and comment lines', () => {
    expect(splitLines('a \\\n b\n\n  # c\n d  e \n')).toEqual(['a b', 'd e']);
  });
});

describe('blankReservedWords', () => {
  it('blanks the reserved words in command position only, keeping offsets', () => {
    const text = 'if true; then echo done; fi';
    const blanked = blankReservedWords(text);
    expect(blanked).toHaveLength(text.length);
    expect(blanked).toBe('   true;      echo done;   ');
  });
});
