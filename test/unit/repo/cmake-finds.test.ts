/**
 * A CMake project's own find_library/find_path (cmake-finds.ts): required when REQUIRED, or when a target
 * links or includes the variable outside any if(); under if() or in a function body, an option's.
 */
import { describe, expect, it } from '@jest/globals';

import { cmakeCommands, cmakeFinds } from '../../../src/repo/cmake-finds.js';

const finds = (files: Record<string, string>) =>
  cmakeFinds(new Map(Object.entries(files))).map((f) => `${f.kind}:${f.name}:${f.required}`);

describe('cmakeFinds', () => {
  it('reads finds in the project’s own modules, required where a target uses their variables', () => {
    const files = {
      'CMakeLists.txt': [
        'cmake_minimum_required(VERSION 3.13)',
        'list(APPEND CMAKE_MODULE_PATH ${CMAKE_SOURCE_DIR}/cmake)',
        'include(FindSodiumLib)',
        'find_library(JSON_LIBRARIES NAMES jansson REQUIRED)',
        'find_library(M_LIB m)',
        'add_executable(app app.c)',
        'target_include_directories(app PRIVATE ${SODIUM_INCLUDE_DIR})',
        'target_link_libraries(app ${SODIUM_LIBRARY} ${JSON_LIBRARIES})',
      ].join('\n'),
      'cmake/FindSodiumLib.cmake': [
        '# no REQUIRED, no check',
        'find_path(SODIUM_INCLUDE_DIR NAMES sodium.h PATH_SUFFIXES sodium)',
        'find_library(SODIUM_LIBRARY',
        '  NAMES libsodium sodium # either',
        '  HINTS /opt/sodium)',
      ].join('\n'),
    };
    expect(finds(files)).toEqual([
      'library:jansson:true',
      'library:m:false',
      'header:sodium.h:true',
      'library:sodium:true',
    ]);
    expect(cmakeFinds(new Map(Object.entries(files)))[3]).toMatchObject({
      file: 'cmake/FindSodiumLib.cmake',
      line: 3,
      variable: 'SODIUM_LIBRARY',
      text: 'find_library(SODIUM_LIBRARY NAMES libsodium sodium HINTS /opt/sodium)',
    });
  });

  it('leaves out finds under if() and in function bodies, uses under if(), and names built from variables', () => {
    const text = [
      'option(WITH_SSL "ssl" OFF)',
      'if(WITH_SSL)',
      '  find_library(SSL_LIB ssl)',
      '  target_link_libraries(app ${SSL_LIB})',
      'endif()',
      'find_library(Z_LIB z)',
      'if(Z_LIB)',
      '  target_link_libraries(app ${Z_LIB})',
      'else()',
      '  message(STATUS "no zlib")',
      'endif()',
      'function(find_it)',
      '  find_library(X_LIB x REQUIRED)',
      'endfunction()',
      'find_library(V_LIB NAMES ${PREFIX}v)',
      'target_link_libraries(app ${V_LIB})',
      'find_path(P_DIR "p.h" REQUIRED)',
    ].join('\n');
    // z is optional (its use is under if()); x is required but only when the function is called: kept as
    // REQUIRED says; v's name is a variable's.
    expect(finds({ 'CMakeLists.txt': text })).toEqual([
      'library:z:false',
      'library:x:true',
      'header:p.h:true',
    ]);
  });

  it('splits commands in one pass, with line numbers, quotes and comments', () => {
    expect(
      cmakeCommands('set(A "x)y" # )\n  b)\nif (A)\n  message(hi)\nendif()\n').map((c) => [
        c.name,
        c.line,
        c.nested,
      ]),
    ).toEqual([
      ['set', 1, false],
      ['if', 3, true],
      ['message', 4, true],
    ]);
    // A file of unclosed calls is one command that runs to the end (read once, not once per call).
    expect(cmakeCommands('find_library(\n'.repeat(20_000)).map((c) => [c.name, c.line])).toEqual([
      ['find_library', 1],
    ]);
  });
});
