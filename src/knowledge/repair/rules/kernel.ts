/**
 * Linux kernel builds (guest tasks, issue 15): the failures a kernel tree adds to a C build's. Most of a
 * kernel build's missing pieces are ordinary ones the package rules already answer (`flex: not found`,
 * `gelf.h: No such file or directory`, `openssl/opensslv.h` …); these rules answer the kernel's own words
 * for them, and a new compiler's warnings as errors the kernel's way:
 *
 * - Kbuild names the package it needs (`please install libelf-dev, libelf-devel or elfutils-libelf-devel`:
 *   the first is Debian's) → install it;
 * - a script's own check names the program (`*** 'cpio' could not be found.`) → the package index's answer;
 * - objtool or resolve_btfids cannot be built without libelf's headers → the package that ships them;
 * - `-Werror` in a kernel tree → `KCFLAGS=-Wno-error` (Documentation/kbuild/kbuild.rst: KCFLAGS is appended
 *   to the compiler's flags, so it comes after -Werror and wins) and `HOSTCFLAGS=-Wno-error` for the host
 *   tools (objtool builds with -Werror), and `CONFIG_WERROR` (Linux ≥ 5.15, init/Kconfig) switched off in
 *   an existing .config with the tree's own `scripts/config`.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';

import type { Finding } from '../../diagnose/types.js';
import type { Repair, RepairInput } from '../repair.js';
import { cap, installFor, type Rule } from './rule.js';

/** A Debian package name as a kernel message names it (checked again: the log is untrusted text). */
const PACKAGE_NAME = /^[a-z0-9][a-z0-9.+-]+$/;

/** True when the repository is a Linux kernel tree (or the task says it builds one). */
export async function isKernelTree(input: Pick<RepairInput, 'repo' | 'goal'>): Promise<boolean> {
  if (input.goal?.guest?.kind === 'kernel') return true;
  const root = input.repo.root;
  // lstat: a link named Kbuild is not a kernel tree's file, and nothing is followed out of the checkout.
  const kbuild = await lstat(path.join(root, 'Kbuild')).catch(() => undefined);
  const kconfig = await lstat(path.join(root, 'scripts', 'kconfig')).catch(() => undefined);
  return Boolean(kbuild?.isFile() && kconfig?.isDirectory());
}

/** The kernel's way out of `-Werror`: flags its Makefile reads, and CONFIG_WERROR off where a .config is. */
export function kernelWerrorRepair(finding: Finding): Repair {
  return {
    rule: 'kernel-no-werror',
    key: 'kernel:no-werror',
    reason: `${finding.message}: a newer compiler warns where the kernel's authors' did not; KCFLAGS/HOSTCFLAGS=-Wno-error keep the warnings as warnings and CONFIG_WERROR is switched off`,
    env: { KCFLAGS: '-Wno-error', HOSTCFLAGS: '-Wno-error' },
    prelude: [
      'if [ -f .config ] && [ -f scripts/config ]; then bash scripts/config --file .config --disable WERROR; fi',
    ],
  };
}

export const KERNEL_RULES: readonly Rule[] = [
  {
    ids: ['kernel-needs-package'],
    propose(f) {
      const pkg = cap(f, 'package');
      if (!pkg || !PACKAGE_NAME.test(pkg)) return [];
      return [
        {
          rule: 'install-kernel-package',
          key: `pkg:${pkg}`,
          reason: `${f.message}: the kernel's Makefile names ${pkg}`,
          packages: [pkg],
        },
      ];
    },
  },
  {
    ids: ['kernel-command-not-found'],
    propose(f, _input, { services }) {
      const command = cap(f, 'command');
      if (!command) return [];
      return installFor(
        'install-command-package',
        [{ kind: 'command', name: command }],
        `command ${command} is not installed`,
        services,
      );
    },
  },
  {
    ids: ['kernel-tool-missing-libelf'],
    propose(f, _input, { services }) {
      const header = cap(f, 'header') ?? 'gelf.h';
      return installFor(
        'install-header-package',
        [{ kind: 'header', name: header }],
        `${f.message}: header ${header} is missing`,
        services,
      );
    },
  },
];
