/**
 * Rules for the checkout and the build machine rather than the code: git refusing a repository owned by
 * another user, scripts that lost their executable bit, submodules that are not checked out, and compilers
 * running out of memory (fewer parallel jobs).
 */
import { submodulesThatMatter } from '../submodules.js';
import { serialRetry } from './parallel.js';
import { cap, type Rule } from './rule.js';

export const LAYOUT_RULES: Rule[] = [
  {
    ids: ['git-dubious-ownership'],
    propose: () => [
      {
        rule: 'git-safe-directory',
        key: 'safe-directory',
        reason: 'git refuses a repository owned by another user; it is marked safe.directory',
        prelude: ["git config --global --add safe.directory '*'"],
      },
    ],
  },
  {
    ids: ['script-permission-denied', 'permission-denied'],
    propose(f) {
      const file = cap(f, 'file') ?? cap(f, 'path');
      if (!file || !/^(\.{0,2}\/)?[\w./-]+$/.test(file) || file.startsWith('/')) return [];
      return [
        {
          rule: 'make-executable',
          key: `chmod:${file}`,
          reason: `${file} is not executable (the executable bit was lost, e.g. by an archive or a Windows checkout)`,
          prelude: [`[ -f '${file}' ] && chmod +x '${file}' || true`],
        },
      ];
    },
  },
  {
    ids: [
      'cmake-subdirectory-missing',
      'cmake-subdirectory-not-existing',
      'source-file-missing',
      'source-file-missing-clang',
      'meson-no-build-file',
    ],
    needsTree: 'whether a git submodule is not checked out is read from the repository',
    async propose(f, input) {
      const missing = await submodulesThatMatter(
        input.repo.root,
        input.recipe.dir,
        input.repo.submodules.filter((s) => !s.populated),
      );
      // Not a missing checkout: an object another target makes, under a parallel make (issue 12, class 6).
      if (missing.length === 0) return serialRetry(f, input);
      return [
        {
          rule: 'fetch-submodules',
          key: 'submodules',
          reason: `${f.message}: git submodules ${missing.map((s) => s.path).join(', ')} are not checked out`,
          packages: ['git', 'ca-certificates'],
          prelude: [
            "git config --global --add safe.directory '*'",
            'git submodule update --init --recursive --depth 1',
          ],
        },
      ];
    },
  },
  {
    ids: [
      'oom-killed-compiler',
      'virtual-memory-exhausted',
      'cannot-allocate-memory',
      'oom-killer',
      'process-killed',
    ],
    propose: (f) => [
      {
        rule: 'fewer-parallel-jobs',
        key: 'jobs:1',
        reason: `${f.message}: the compiler ran out of memory; building with one job at a time needs less`,
        env: { BB_JOBS: '1' },
      },
    ],
  },
];
