import { describe, expect, it } from '@jest/globals';

import {
  countLanguages,
  definesMain,
  findMainSources,
  isCompilable,
  languageOf,
} from '../../../src/repo/languages.js';
import { fixture, removeTree, tempTree } from './fixtures.js';

describe('definesMain', () => {
  it.each([
    ['int main(void) { return 0; }', true],
    ['int main(int argc, char **argv)\n{\n}', true],
    ['int\nmain (int argc, char *argv[])\n{', true],
    ['void main() {}', true],
    ['static int main(void) {}', true],
    ['auto main() -> int { return 0; }', true],
    ['int main(int argc, char **argv) try { return 0; } catch (...) { return 1; }', true],
    ['main(argc, argv)\nint argc;\nchar **argv;\n{', true],
    ['main()\n{\n}', true],
    ['extern "C" int main(int argc, char **argv) {}', true],
    ['int main(void);', false],
    ['int main(int, char **);\nint f(void) { return 0; }', false],
    ['int f(void) { return main(); }', false],
    ['  main();', false],
    ['int main_loop(void) {}', false],
    ['int my_main(int argc, char **argv) {}', false],
    ['int SDL_main(int argc, char **argv) {}', false],
    ['obj.main(1) {', false],
    ['// int main(void) {}', false],
    ['/* int main(void) {\n} */', false],
    ['const char *s = "int main(void) {";', false],
    ['#define main(x) foo(x)', false],
  ])('%j → %s', (source, expected) => {
    expect(definesMain(source)).toBe(expected);
  });
});

describe('languages', () => {
  it('maps extensions, with .C and .H as C++ and .h as a shared header', () => {
    expect(
      ['a.c', 'b.cc', 'c.C', 'd.H', 'e.h', 'f.hpp', 'g.cu', 'h.rs', 'i.py', 'j.S', 'README', 'x.txt'].map(
        languageOf,
      ),
    ).toEqual([
      'c',
      'cpp',
      'cpp',
      'cpp',
      'header',
      'cpp',
      'cuda',
      'rust',
      'python',
      'asm',
      undefined,
      undefined,
    ]);
    expect(countLanguages(['a.c', 'b/c.c', 'd.cpp', 'e.h', 'Makefile'])).toEqual({ c: 2, cpp: 1, header: 1 });
    expect(['a.c', 'b.cpp', 'c.h', 'd.hpp', 'e.cu', 'f.py'].filter(isCompilable)).toEqual([
      'a.c',
      'b.cpp',
      'e.cu',
    ]);
  });
});

describe('findMainSources', () => {
  it('lists the fixture files that define main, shallow first', async () => {
    const root = fixture('no-build');
    expect(await findMainSources(root, ['util.c', 'hello.c', 'knr.c', 'app.cpp', 'README.md'])).toEqual([
      'hello.c',
      'knr.c',
      'app.cpp',
    ]);
  });

  it('skips binary and missing files and honours the file cap', async () => {
    const root = tempTree({
      'a/deep/main.c': 'int main(void) { return 0; }\n',
      'top.c': 'int main(void) { return 0; }\n',
      'bin.c': 'int main(void) {\0 return 0; }\n',
    });
    try {
      expect(await findMainSources(root, ['a/deep/main.c', 'top.c', 'bin.c', 'gone.c'])).toEqual([
        'top.c',
        'a/deep/main.c',
      ]);
      expect(await findMainSources(root, ['a/deep/main.c', 'top.c'], { maxFiles: 1 })).toEqual(['top.c']);
    } finally {
      removeTree(root);
    }
  });
});

describe('target roles from names', () => {
  it('treats perftests as tests but keeps check tools as products', async () => {
    const { roleOfName } = await import('../../../src/repo/paths.js');
    expect(roleOfName('build_log_perftest')).toBe('test');
    expect(roleOfName('redis-check-aof')).toBeUndefined();
    expect(roleOfName('test_parser')).toBe('test');
  });
});
