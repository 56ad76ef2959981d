/**
 * The shared build cache: package downloads and compiler output kept on this machine between sandboxes
 * (and, in the Action, between workflow runs with @actions/cache). One folder on the host, mounted at
 * /var/cache/buildbench in rootfs and docker sandboxes:
 *
 * - `apt/`: `.deb` files. Each sandbox's own /var/cache/apt/archives is seeded with links to them, and the
 *   packages apt downloads are copied back before dpkg runs. apt's lock stays private to the sandbox, so
 *   builds running at the same time never wait for one another.
 * - `ccache/`: ccache's store (`CCACHE_DIR`); /usr/lib/ccache leads PATH, so cc, gcc, c++ and g++ go through
 *   it when ccache is installed (the rootfs toolchain layer has it; a docker image gets it at setup).
 *
 * The recipe does not depend on it: build.sh and the Dockerfile work the same without it (their compiler-flag
 * wrappers call ccache only where its links lead PATH). ccache is faithful (a hit needs the same compiler,
 * flags and every input file), so a replay whose recipe lacks a header still fails.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { CancelledError } from '../core/errors.js';
import { baseSandboxEnv, SANDBOX_PATH } from './common.js';
import type { CreateSandboxRequest, Sandbox } from './types.js';

/** Where the build cache is mounted inside a sandbox. */
export const BUILD_CACHE_MOUNT = '/var/cache/buildbench';
/** ccache's size limit, written to `ccache/ccache.conf` when that file does not exist yet. */
export const CCACHE_MAX_SIZE = '2G';
/** When `apt/` holds more than this, the oldest packages are removed down to `APT_PRUNE_TO_BYTES`. */
export const APT_LIMIT_BYTES = 2 * 1024 ** 3;
export const APT_PRUNE_TO_BYTES = 1.5 * 1024 ** 3;

export interface BuildCacheLayout {
  root: string;
  apt: string;
  ccache: string;
}

export function buildCacheLayout(root: string): BuildCacheLayout {
  return { root, apt: join(root, 'apt'), ccache: join(root, 'ccache') };
}

/** The allowlisted base environment of a rootfs or docker sandbox, with the build cache's variables when it has one. */
export function sandboxBaseEnv(buildCache: string | undefined): Record<string, string> {
  if (!buildCache) return baseSandboxEnv();
  return {
    ...baseSandboxEnv({ PATH: `/usr/lib/ccache:${SANDBOX_PATH}` }),
    CCACHE_DIR: `${BUILD_CACHE_MOUNT}/ccache`,
  };
}

/**
 * Creates the folders on this machine (once), writes ccache's size limit, and keeps `apt/` under its limit
 * by removing the packages copied in longest ago. Returns what was removed, for progress messages.
 */
export async function prepareBuildCache(root: string): Promise<{ layout: BuildCacheLayout; pruned: number }> {
  const layout = buildCacheLayout(root);
  await mkdir(layout.apt, { recursive: true });
  await mkdir(layout.ccache, { recursive: true });
  const conf = join(layout.ccache, 'ccache.conf');
  if (!existsSync(conf)) await writeFile(conf, `max_size = ${CCACHE_MAX_SIZE}\n`);
  return { layout, pruned: await pruneOldest(layout.apt, APT_LIMIT_BYTES, APT_PRUNE_TO_BYTES) };
}

/** Removes the oldest files of `dir` (by mtime) when it holds more than `limit` bytes, down to `target`. */
export async function pruneOldest(dir: string, limit: number, target: number): Promise<number> {
  const files: { path: string; size: number; mtimeMs: number }[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile()) files.push({ path, size: info.size, mtimeMs: info.mtimeMs });
  }
  let total = files.reduce((sum, f) => sum + f.size, 0);
  if (total <= limit) return 0;
  let removed = 0;
  for (const file of files.sort((a, b) => a.mtimeMs - b.mtimeMs)) {
    if (total <= target) break;
    await unlink(file.path).catch(() => undefined);
    total -= file.size;
    removed++;
  }
  return removed;
}

/**
 * Run once inside a fresh sandbox (as root) before its first command. It prints `ccache: yes|no`; its
 * failures are not the build's: a sandbox without the cache still builds.
 */
export const BUILD_CACHE_SETUP_SCRIPT = `set -u
c=${BUILD_CACHE_MOUNT}
x=/usr/local/libexec
mkdir -p /var/cache/apt/archives/partial /etc/apt/apt.conf.d "$x"
# Packages already in the image (debootstrap leaves its own) are not the build's: only those written later
# (by ctime: apt sets a download's mtime to the server's) are kept.
touch /var/cache/apt/archives/.buildbench-since
cat > "$x/buildbench-keep-debs" <<'EOF'
#!/bin/sh
# Run by apt before dpkg: copies the packages it downloaded into the shared build cache.
find /var/cache/apt/archives -maxdepth 1 -type f -name '*.deb' -cnewer /var/cache/apt/archives/.buildbench-since |
while IFS= read -r f; do
  b=\${f##*/}
  [ -e "${BUILD_CACHE_MOUNT}/apt/$b" ] && continue
  t="${BUILD_CACHE_MOUNT}/apt/.$b.$$.part"
  if cp "$f" "$t" 2>/dev/null; then mv -f "$t" "${BUILD_CACHE_MOUNT}/apt/$b"; else rm -f "$t"; fi
done
exit 0
EOF
cat > "$x/buildbench-ccache-links" <<'EOF'
#!/bin/sh
# Run by apt after dpkg: /usr/lib/ccache links exactly the compilers that are installed, so a compiler
# that is missing stays missing (command -v cc must not find ccache alone).
[ -x /usr/bin/ccache ] || exit 0
command -v update-ccache-symlinks >/dev/null 2>&1 && update-ccache-symlinks >/dev/null 2>&1
mkdir -p /usr/lib/ccache
for t in cc c++ gcc g++; do
  if [ -x "/usr/bin/$t" ]; then [ -e "/usr/lib/ccache/$t" ] || ln -s ../../bin/ccache "/usr/lib/ccache/$t"
  else rm -f "/usr/lib/ccache/$t"; fi
done
exit 0
EOF
chmod 755 "$x/buildbench-keep-debs" "$x/buildbench-ccache-links"
printf '%s\\n' 'DPkg::Pre-Invoke { "/usr/local/libexec/buildbench-keep-debs"; };' \\
  'DPkg::Post-Invoke { "/usr/local/libexec/buildbench-ccache-links"; };' \\
  'Binary::apt::APT::Keep-Downloaded-Packages "true";' > /etc/apt/apt.conf.d/00buildbench-cache
for f in "$c"/apt/*.deb; do
  [ -e "$f" ] || continue
  ln -sf "$f" /var/cache/apt/archives/
done
if ! command -v ccache >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  q='-y -q --no-install-recommends'
  apt-get install $q ccache >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install $q ccache >/dev/null 2>&1; } || true
fi
"$x/buildbench-ccache-links"
if command -v ccache >/dev/null 2>&1; then echo 'ccache: yes'; else echo 'ccache: no'; fi
`;

/** What the setup found; `reason` says why the cache is not (fully) in use. */
export interface BuildCacheSetup {
  ccache: boolean;
  reason?: string;
}

/** Runs the setup script in a fresh sandbox. Never throws for the script's own failures. */
export async function setUpBuildCache(
  sandbox: Pick<Sandbox, 'exec'>,
  request: Pick<CreateSandboxRequest, 'onProgress' | 'signal'>,
): Promise<BuildCacheSetup> {
  const result = await sandbox.exec(BUILD_CACHE_SETUP_SCRIPT, {
    timeoutMs: 5 * 60_000,
    ...(request.signal ? { signal: request.signal } : {}),
  });
  if (result.cancelled) throw new CancelledError('setting up the build cache was cancelled');
  const ccache = /^ccache: yes$/m.test(result.output);
  if (result.exitCode !== 0 || !/^ccache: (yes|no)$/m.test(result.output)) {
    const reason = `the build cache setup failed (exit code ${result.exitCode}); building without it: ${result.output.trim().split('\n').slice(-3).join(' | ')}`;
    request.onProgress?.(reason);
    return { ccache, reason };
  }
  if (!ccache) {
    const reason =
      'ccache is not installed in the sandbox and could not be installed: compiling without a compiler cache';
    request.onProgress?.(reason);
    return { ccache, reason };
  }
  return { ccache };
}
