import { describe, expect, it } from '@jest/globals';

import { parseDockerfile, parseKeyValues } from './dockerfile.js';

describe('parseDockerfile', () => {
  it('reads instructions, joins continuation lines and drops comments inside them', () => {
    const parsed = parseDockerfile(
      [
        '# syntax=docker/dockerfile:1',
        '# a comment',
        'ARG BASE=debian:bookworm',
        'FROM ${BASE} AS build',
        'RUN apt-get update \\',
        '  # a comment inside the continuation',
        '',
        ' && apt-get install -y make',
        'SHELL ["/bin/bash", "-c"]',
        'ENV A=1 B="two words" C=three\\ words',
        'ENV LEGACY value with spaces',
        'COPY --chown=1000 . /src',
        'WORKDIR /src',
        'run make',
      ].join('\n'),
    );
    expect(parsed.errors).toEqual([]);
    expect(parsed.instructions.map((i) => [i.name, i.line])).toEqual([
      ['ARG', 3],
      ['FROM', 4],
      ['RUN', 5],
      ['SHELL', 9],
      ['ENV', 10],
      ['ENV', 11],
      ['COPY', 12],
      ['WORKDIR', 13],
      ['RUN', 14],
    ]);
    expect(parsed.instructions[2]!.args).toBe('apt-get update  && apt-get install -y make');
    expect(parsed.instructions[3]!.json).toEqual(['/bin/bash', '-c']);
  });

  it('reports unknown instructions, a missing FROM, a dangling continuation and malformed forms', () => {
    expect(parseDockerfile('RUN make\n').errors[0]!.message).toMatch(/first instruction must be FROM/);
    expect(parseDockerfile('# nothing\n').errors[0]!.message).toBe('no FROM instruction');
    const bad = parseDockerfile(
      [
        'FROM debian',
        'RUNN make',
        'SHELL /bin/bash -c',
        'ENV A="unterminated',
        'COPY onlyone',
        'ARG',
        'RUN ["broken"',
        'RUN make \\',
      ].join('\n'),
    );
    const messages = bad.errors.map((e) => `${e.line}: ${e.message}`);
    expect(messages).toEqual([
      '2: unknown instruction RUNN',
      '3: SHELL: must be a JSON array of strings',
      '4: ENV: malformed key=value pairs',
      '5: COPY: needs a source and a destination',
      '6: ARG: needs arguments',
      '7: RUN: looks like a JSON array but does not parse',
      '8: the last instruction ends with a line continuation',
    ]);
  });

  it('honours the escape directive', () => {
    const parsed = parseDockerfile(['# escape=`', 'FROM windows', 'RUN dir `', '  /s'].join('\n'));
    expect(parsed.escape).toBe('`');
    expect(parsed.errors).toEqual([]);
    expect(parsed.instructions[1]!.args).toBe('dir   /s');
  });
});

describe('parseKeyValues', () => {
  it('splits pairs with quotes and escapes as Docker does', () => {
    expect(parseKeyValues('A=1 B="x \\"y\\" $z" C=\'s q\' D')).toEqual([
      { key: 'A', value: '1' },
      { key: 'B', value: 'x "y" $z' },
      { key: 'C', value: 's q' },
      { key: 'D' },
    ]);
    expect(parseKeyValues('1A=x')).toBeUndefined();
  });
});
