/**
 * The needs of a plain Makefile's default goal (make-goal.ts): the `-l` libraries it links and the generator
 * tools its recipes call, from the rules the first target reaches, with the Makefile's own variables.
 */
import { describe, expect, it } from '@jest/globals';

import { makeGoalNeeds } from '../../../src/repo/make-goal.js';

const names = (text: string): string[] => makeGoalNeeds(text).map((n) => `${n.kind}:${n.name}`);

describe('makeGoalNeeds', () => {
  it('reads the libraries of a link through a variable, and of make’s built-in link rule', () => {
    expect(names('LDLIBS = -ljansson\n\njversion: jversion.o\n\t$(CC) -o $@ jversion.o $(LDLIBS)\n')).toEqual(
      ['library:jansson'],
    );
    // No recipe: make links it with $(LDFLAGS) … $(LDLIBS).
    expect(names('LDLIBS += -lz -lm\nLDLIBS += -lpthread -lssl\nall: prog\nprog: prog.o util.o\n')).toEqual([
      'library:z',
      'library:ssl',
    ]);
    // No rule at all for the program: the built-in `%: %.c`.
    expect(names('LDLIBS = -lcurl\nall: fetch\n')).toEqual(['library:curl']);
  });

  it('follows the default goal through explicit and pattern rules to the tools their recipes call', () => {
    const text = [
      'YACC = bison',
      'calc: calc.tab.o lex.o',
      '\t$(CC) $(CFLAGS) -o $@ $^',
      '%.tab.c: %.y',
      '\t$(YACC) -d -o $@ $<',
      'lex.c: lex.l',
      '\t@flex -o $@ $< && echo done',
      '%.o: %.c',
      '\t$(CC) -c -o $@ $<',
    ].join('\n');
    // calc.tab.o ← calc.tab.c by `%.o: %.c` ← calc.y by `%.tab.c: %.y`; lex.o ← lex.c ← lex.l.
    expect(names(text)).toEqual(['tool:bison', 'tool:flex']);
    // The same rules, not reached from the default goal, are not read.
    expect(names(`all: README\n${text}`)).toEqual([]);
    expect(
      makeGoalNeeds(
        'calc: calc.tab.c\n\tcc -o calc calc.tab.c\ncalc.tab.c: calc.y\n\tbison -o calc.tab.c calc.y\n',
      ),
    ).toEqual([{ kind: 'tool', name: 'bison', line: 4, text: 'bison -o calc.tab.c calc.y' }]);
  });

  it('leaves out other targets, conditional blocks, shell output and the toolchain’s own libraries', () => {
    const text = [
      'ifeq ($(WITH_SSL),1)',
      'LDLIBS += -lssl',
      'endif',
      'ifdef DOCS',
      'all: docs',
      'endif',
      'LIBS != pkg-config --libs gtk+-3.0',
      'all: tool',
      'tool: tool.c',
      '\t$(CC) -o $@ $< $(LDLIBS) $(LIBS) -lm -ldl -lstdc++',
      'docs: manual.xml',
      '\txsltproc -o manual.html manual.xml',
      'install: tool',
      '\tinstall -m 755 tool $(DESTDIR)/usr/bin # -lnotalib',
      'tool: CFLAGS += -lnotatarget',
    ].join('\n');
    expect(names(text)).toEqual([]);
  });

  it('honours .DEFAULT_GOAL, joins continued lines and ignores comments', () => {
    const text = [
      'first:',
      '\tprotoc --cpp_out=. a.proto',
      '.DEFAULT_GOAL := second',
      '# second: needs -lignored',
      'second: \\',
      '  gen.c',
      '\tcc -o second gen.c \\',
      '\t  -lyaml',
      'gen.c: keys.gperf',
      '\tgperf keys.gperf > gen.c',
    ].join('\n');
    expect(names(text)).toEqual(['library:yaml', 'tool:gperf']);
    expect(names('')).toEqual([]);
    expect(names('.PHONY: all\n')).toEqual([]);
  });
});
