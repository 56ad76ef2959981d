/**
 * The build cache: package downloads and compiler output kept on this machine between sandboxes (and, in the
 * Action, between workflow runs with @actions/cache). One folder on the host; a sandbox sees three parts of it
 * under /var/cache/buildbench (`buildCacheMounts`), none of which lets one repository's build change what a
 * later build of another repository compiles or installs:
 *
 * - `ccache/<key>/`: ccache's store for one repository (`CCACHE_DIR`), read-write. The key hashes the
 *   repository's identity (`repositoryCacheKey`), so a build can spoil only later builds of its own
 *   repository. ccache's configuration comes from the environment alone: `CCACHE_CONFIGPATH=/dev/null` makes
 *   ccache read no configuration file (neither a `ccache.conf` in the store nor /etc/ccache.conf), so a
 *   `prefix_command` a build writes there is never used. /usr/lib/ccache leads PATH, so cc, gcc, c++ and g++
 *   go through it when ccache is installed (the rootfs toolchain layer has it; a docker image gets it at setup).
 * - `apt/`: `.deb` files named by their SHA-256 (`<sha256>.deb`, written by this process only), read-only.
 *   apt uses a package already in /var/cache/apt/archives when its size matches the index, without checking
 *   its hash (pkgAcqArchive in acquire-item.cc; tried: a same-size forged .deb was installed and its postinst
 *   ran), so a sandbox links into its archives/ only the cached files whose hash its own package index (signed,
 *   from the image or its own apt-get update) gives for a package, under that package's file name. A forged or
 *   stale file matches no index entry and is never offered. Reading the index takes a few tenths of a second,
 *   so it happens on apt's first use (apt-get and apt wrappers in /usr/local/bin) and after each update.
 * - `incoming/<sandbox id>/`: the packages this sandbox downloaded (copied there before dpkg runs), read-write
 *   and its own. This process copies them into apt/ under their hash (regular files only, read without
 *   following links) when the next sandbox is made and when the sandbox is released. apt's lock stays private
 *   to each sandbox, so builds running at the same time never wait for one another.
 *
 * The recipe does not depend on it: build.sh and the Dockerfile work the same without it (their compiler-flag
 * wrappers call ccache only where its links lead PATH). ccache is faithful (a hit needs the same compiler,
 * flags and every input file), so a replay whose recipe lacks a header still fails.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import {
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { CancelledError } from '../base/errors.js';
import { baseSandboxEnv, SANDBOX_PATH } from './common.js';
import type { CreateSandboxRequest, Sandbox } from './types.js';

/** Where the build cache's parts are mounted inside a sandbox. */
export const BUILD_CACHE_MOUNT = '/var/cache/buildbench';
/** ccache's size limit for one repository's store (CCACHE_MAXSIZE). */
export const CCACHE_MAX_SIZE = '1G';
/** The stores of this many repositories are kept (the most recently used); older ones are removed. */
export const CCACHE_KEEP_REPOSITORIES = 8;
/** When `apt/` holds more than this, the oldest packages are removed down to `APT_PRUNE_TO_BYTES`. */
export const APT_LIMIT_BYTES = 2 * 1024 ** 3;
export const APT_PRUNE_TO_BYTES = 1.5 * 1024 ** 3;
/** A downloaded file larger than this is not kept. */
export const MAX_PACKAGE_BYTES = 1024 ** 3;
/** An empty `incoming/<id>/` left by a sandbox that was never released is removed after this long. */
const STALE_INCOMING_MS = 24 * 3600_000;

export interface BuildCacheLayout {
  root: string;
  apt: string;
  /** Holds one store per repository, `ccache/<key>/`. */
  ccache: string;
  /** Holds one folder per sandbox, `incoming/<sandbox id>/`. */
  incoming: string;
  /**
   * One file per live sandbox, `ccache-users/<sandbox id>`, holding its repository's store key: a store in
   * use is never pruned (outside `ccache/`, which sandboxes mount read-write, so no build can remove it).
   */
  ccacheUsers: string;
}

export function buildCacheLayout(root: string): BuildCacheLayout {
  return {
    root,
    apt: join(root, 'apt'),
    ccache: join(root, 'ccache'),
    incoming: join(root, 'incoming'),
    ccacheUsers: join(root, 'ccache-users'),
  };
}

/** One bind mount of a sandbox: a folder on this machine at `target` inside. */
export interface BuildCacheMount {
  host: string;
  target: string;
  readOnly: boolean;
}

const KEY = /^[0-9a-f]{32}$/;

/**
 * The folder name of a repository's ccache store: a hash of its identity (`repositoryIdentity` in
 * src/core/source.ts: its normalized URL, or for a local checkout its path with its remote or first commit).
 */
export function repositoryCacheKey(identity: string): string {
  return createHash('sha256').update(identity).digest('hex').slice(0, 32);
}

/** The key of the repository a sandbox is made for: its `cacheKey` identity, else its resolved path. */
export function requestCacheKey(request: Pick<CreateSandboxRequest, 'repoDir' | 'cacheKey'>): string {
  return repositoryCacheKey(request.cacheKey ?? `path:${resolve(request.repoDir)}`);
}

/** What a sandbox mounts of the build cache (after `prepareBuildCache` made the folders). */
export function buildCacheMounts(root: string, repoKey: string, sandboxId: string): BuildCacheMount[] {
  if (!KEY.test(repoKey)) throw new Error(`not a build cache key: ${JSON.stringify(repoKey)}`);
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(sandboxId)) {
    throw new Error(`not a sandbox id: ${JSON.stringify(sandboxId)}`);
  }
  const layout = buildCacheLayout(root);
  return [
    { host: join(layout.ccache, repoKey), target: `${BUILD_CACHE_MOUNT}/ccache`, readOnly: false },
    { host: layout.apt, target: `${BUILD_CACHE_MOUNT}/apt`, readOnly: true },
    { host: join(layout.incoming, sandboxId), target: `${BUILD_CACHE_MOUNT}/incoming`, readOnly: false },
  ];
}

/** The allowlisted base environment of a rootfs or docker sandbox, with the build cache's variables when it has one. */
export function sandboxBaseEnv(buildCache: string | undefined): Record<string, string> {
  if (!buildCache) return baseSandboxEnv();
  return {
    ...baseSandboxEnv({ PATH: `/usr/lib/ccache:${SANDBOX_PATH}` }),
    CCACHE_DIR: `${BUILD_CACHE_MOUNT}/ccache`,
    // No configuration file at all: the store is writable by the build, /etc is the sandbox's own.
    CCACHE_CONFIGPATH: '/dev/null',
    CCACHE_MAXSIZE: CCACHE_MAX_SIZE,
    // A first build misses every object, and a miss in ccache's default mode runs the preprocessor once more
    // per object (tmux from cold: ~18% slower than without ccache). Where the build writes dependency files
    // (-MD: automake, CMake), the depend mode hashes from them instead (tmux: ~5%); elsewhere ccache works
    // as before.
    CCACHE_DEPEND: 'true',
  };
}

export interface PreparedBuildCache {
  layout: BuildCacheLayout;
  /** Packages removed from `apt/` to keep it under its limit. */
  pruned: number;
  /** Packages taken from the sandboxes' `incoming/` folders into `apt/`. */
  collected: number;
  /** The sandbox's mounts; empty when no sandbox was named. */
  mounts: BuildCacheMount[];
}

/**
 * Creates the folders on this machine, takes the packages earlier sandboxes downloaded into `apt/`, and keeps
 * `apt/` and `ccache/` under their limits. With `sandbox`, makes that sandbox's folders and returns its mounts.
 */
export async function prepareBuildCache(
  root: string,
  sandbox?: { repoKey: string; sandboxId: string },
): Promise<PreparedBuildCache> {
  const layout = buildCacheLayout(root);
  await mkdir(layout.apt, { recursive: true });
  await mkdir(layout.ccache, { recursive: true });
  await mkdir(layout.incoming, { recursive: true });
  let mounts: BuildCacheMount[] = [];
  if (sandbox) {
    mounts = buildCacheMounts(root, sandbox.repoKey, sandbox.sandboxId);
    for (const mount of mounts) await mkdir(mount.host, { recursive: true });
    const now = new Date();
    await utimes(join(layout.ccache, sandbox.repoKey), now, now); // last use, for pruneRepositoryStores
    await mkdir(layout.ccacheUsers, { recursive: true });
    await writeFile(join(layout.ccacheUsers, sandbox.sandboxId), sandbox.repoKey);
  }
  await removeSharedCcacheStore(layout.ccache);
  const aptChanged = await aptChangedSinceCheck(layout);
  if (aptChanged) await hashLegacyPackages(layout.apt);
  await pruneRepositoryStores(layout.ccache, CCACHE_KEEP_REPOSITORIES, await storesInUse(layout.ccacheUsers));
  let collected = 0;
  for (const name of await readdir(layout.incoming).catch(() => [] as string[])) {
    const dir = join(layout.incoming, name);
    collected += await collectDownloads(dir, layout.apt);
    await removeIfStale(dir);
  }
  const pruned =
    aptChanged || collected > 0 ? await pruneOldest(layout.apt, APT_LIMIT_BYTES, APT_PRUNE_TO_BYTES) : 0;
  await recordAptCheck(layout);
  return { layout, collected, pruned, mounts };
}

/** Where the mtime of `apt/` at the last full check is kept (outside `apt/`, whose mtime it records). */
function aptCheckStamp(layout: BuildCacheLayout): string {
  return join(layout.root, '.apt-checked');
}

/**
 * Whether `apt/` changed since the last full check (its mtime moves whenever a file is added, renamed or
 * removed, and only this process writes there: sandboxes see it read-only). A full cache holds thousands of
 * packages; reading and stat-ing every one on each sandbox made creation grow with the cache.
 */
async function aptChangedSinceCheck(layout: BuildCacheLayout): Promise<boolean> {
  const info = await lstat(layout.apt).catch(() => undefined);
  const seen = await readFile(aptCheckStamp(layout), 'utf8').catch(() => '');
  return !info || seen.trim() !== String(Math.round(info.mtimeMs));
}

/** Records the mtime of `apt/` after a check (best effort: without it the next sandbox checks again). */
async function recordAptCheck(layout: BuildCacheLayout): Promise<void> {
  const info = await lstat(layout.apt).catch(() => undefined);
  if (info) await writeFile(aptCheckStamp(layout), String(Math.round(info.mtimeMs))).catch(() => undefined);
}

/** Called when a sandbox is disposed: takes its downloads into `apt/` and removes its `incoming/` folder. */
export async function releaseBuildCache(root: string, sandboxId: string): Promise<number> {
  const layout = buildCacheLayout(root);
  const dir = join(layout.incoming, sandboxId);
  const collected = await collectDownloads(dir, layout.apt, { all: true });
  await rm(dir, { recursive: true, force: true });
  await rm(join(layout.ccacheUsers, sandboxId), { force: true });
  return collected;
}

/**
 * The store keys of the sandboxes that are live: a `ccache-users/` file younger than a day (a sandbox of a
 * crashed run never released its file; after a day it no longer protects the store, and is removed).
 */
export async function storesInUse(users: string, now = Date.now()): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const name of await readdir(users).catch(() => [] as string[])) {
    const path = join(users, name);
    const info = await lstat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    if (now - info.mtimeMs > STALE_INCOMING_MS) {
      await rm(path, { force: true }).catch(() => undefined);
      continue;
    }
    const key = (await readFile(path, 'utf8').catch(() => '')).trim();
    if (KEY.test(key)) keys.add(key);
  }
  return keys;
}

/** A package's file name as apt stores it (`name_version_arch.deb`, an epoch's colon as %3a). */
const PACKAGE_FILE = /^[A-Za-z0-9][A-Za-z0-9+.~%-]*_[A-Za-z0-9+.~%-]+_[A-Za-z0-9-]+\.deb$/;
/** A package in `apt/`: named by the SHA-256 of its bytes. */
const CACHED_PACKAGE = /^[0-9a-f]{64}\.deb$/;

/**
 * Copies the packages a sandbox left in `from` into `apt` under their SHA-256 and removes everything in
 * `from`. Only regular files with a package's file name are taken, read through a descriptor opened without
 * following links (the sandbox may still be running and may swap a file for a link); the hash is of the bytes
 * this process wrote into its own file, which no sandbox can write. Whether they are a real package is not
 * known here: a sandbox uses a cached file only where its package index gives that hash.
 */
export async function collectDownloads(
  from: string,
  apt: string,
  options: { all?: boolean } = {},
): Promise<number> {
  let collected = 0;
  for (const name of await readdir(from).catch(() => [] as string[])) {
    const source = join(from, name);
    if (PACKAGE_FILE.test(name)) {
      if (await copyByHash(source, apt)) collected++;
    } else if (!options.all && name.startsWith('.')) {
      // A copy still being written by a running sandbox (`.<name>.<pid>.part`) is left to its owner.
      const info = await lstat(source).catch(() => undefined);
      if (info && Date.now() - info.mtimeMs < 3600_000) continue;
    }
    await rm(source, { recursive: true, force: true }).catch(() => undefined);
  }
  return collected;
}

/** Copies one regular file (never through a link) into `dir` as `<sha256>.deb`; false when it was not taken. */
async function copyByHash(source: string, dir: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return false; // a link, or gone
  }
  const part = join(dir, `.${randomBytes(6).toString('hex')}.part`);
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size === 0 || info.size > MAX_PACKAGE_BYTES) return false;
    const hash = createHash('sha256');
    const out = await open(part, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    try {
      const buffer = Buffer.alloc(1024 * 1024);
      let total = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        total += bytesRead;
        if (total > MAX_PACKAGE_BYTES) throw new Error('too large');
        const chunk = buffer.subarray(0, bytesRead);
        hash.update(chunk);
        await out.write(chunk);
      }
    } finally {
      await out.close();
    }
    await rename(part, join(dir, `${hash.digest('hex')}.deb`));
    return true;
  } catch {
    await unlink(part).catch(() => undefined);
    return false;
  } finally {
    await handle.close();
  }
}

/**
 * Files in `apt/` from before it was named by hash (sandboxes wrote them: `name_version_arch.deb`) are moved to
 * their hash's name, or removed; so is anything else but a cached package.
 */
async function hashLegacyPackages(apt: string): Promise<void> {
  for (const name of await readdir(apt).catch(() => [] as string[])) {
    if (CACHED_PACKAGE.test(name)) continue;
    const path = join(apt, name);
    if (name.startsWith('.')) {
      // another buildbench's copy in progress, or one a crash left behind
      const info = await lstat(path).catch(() => undefined);
      if (info && Date.now() - info.mtimeMs < 3600_000) continue;
    } else if (PACKAGE_FILE.test(name)) {
      await copyByHash(path, apt);
    }
    await rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function removeIfStale(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => undefined);
  if (!info) return;
  if (!info.isDirectory()) {
    await rm(dir, { force: true });
    return;
  }
  if (Date.now() - info.mtimeMs < STALE_INCOMING_MS) return;
  if ((await readdir(dir).catch(() => ['?'])).length === 0) await rm(dir, { recursive: true, force: true });
}

/**
 * Removes what is left of the store all repositories once shared (`ccache/ccache.conf`, `ccache/0`…`f`, its
 * stats): anything in `ccache/` that is not a repository's store. Its objects and configuration may have been
 * written by any build.
 */
async function removeSharedCcacheStore(ccache: string): Promise<void> {
  for (const name of await readdir(ccache).catch(() => [] as string[])) {
    if (!KEY.test(name))
      await rm(join(ccache, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Keeps the `keep` most recently used repository stores (by the folder's mtime) and removes the others, but
 * never a store a live sandbox uses (`inUse`: a long build's store is older than those of the builds that
 * started after it, and removing it under the build broke the sandboxes that had yet to mount it).
 */
export async function pruneRepositoryStores(
  ccache: string,
  keep: number,
  inUse: ReadonlySet<string> = new Set(),
): Promise<number> {
  const stores: { path: string; mtimeMs: number }[] = [];
  for (const name of await readdir(ccache).catch(() => [] as string[])) {
    if (!KEY.test(name) || inUse.has(name)) continue;
    const path = join(ccache, name);
    const info = await lstat(path).catch(() => undefined);
    if (info?.isDirectory()) stores.push({ path, mtimeMs: info.mtimeMs });
  }
  const old = stores.sort((a, b) => b.mtimeMs - a.mtimeMs).slice(keep);
  for (const store of old) await rm(store.path, { recursive: true, force: true }).catch(() => undefined);
  return old.length;
}

/** Removes the oldest files of `dir` (by mtime) when it holds more than `limit` bytes, down to `target`. */
export async function pruneOldest(dir: string, limit: number, target: number): Promise<number> {
  const files: { path: string; size: number; mtimeMs: number }[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name);
    const info = await lstat(path).catch(() => undefined);
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
x=/usr/local/libexec
mkdir -p /var/cache/apt/archives/partial /etc/apt/apt.conf.d "$x"
# Packages already in the image (debootstrap leaves its own) are not the build's: only those written later
# (by ctime: apt sets a download's mtime to the server's) are kept.
touch /var/cache/apt/archives/.buildbench-since
cat > "$x/buildbench-keep-debs" <<'EOF'
#!/bin/sh
# Run by apt before dpkg: copies the packages it downloaded to this sandbox's incoming folder; buildbench
# takes them into the shared apt/ folder (read-only here) under their hash when the sandbox is released.
i=${BUILD_CACHE_MOUNT}/incoming
[ -d "$i" ] || exit 0
find /var/cache/apt/archives -maxdepth 1 -type f -name '*.deb' -cnewer /var/cache/apt/archives/.buildbench-since |
while IFS= read -r f; do
  b=\${f##*/}
  [ -e "$i/$b" ] && continue
  t="$i/.$b.$$.part"
  if cp "$f" "$t" 2>/dev/null; then mv -f "$t" "$i/$b"; else rm -f "$t"; fi
done
exit 0
EOF
cat > "$x/buildbench-seed-debs" <<'EOF'
#!/bin/sh
# Links into /var/cache/apt/archives the cached packages (named <sha256>.deb) whose hash this sandbox's package
# index gives for a package, under that package's file name. apt uses a file there on its size alone, so only
# a file with the index's very bytes may be there. Run at setup and after each apt-get update (the index may
# have changed: the links made for the old one are removed first).
a=${BUILD_CACHE_MOUNT}/apt
d=/var/cache/apt/archives
[ -d "$a" ] && [ -d "$d" ] || exit 0
find "$d" -maxdepth 1 -type l -lname "$a/*" -delete 2>/dev/null
export LC_ALL=C
h=$(mktemp) || exit 0
i=$(mktemp) || { rm -f "$h"; exit 0; }
find "$a" -maxdepth 1 -type f -name '*.deb' -printf '%f\\n' 2>/dev/null | sed -n 's/^\\([0-9a-f]\\{64\\}\\)\\.deb$/\\1/p' | sort -u > "$h"
if [ -s "$h" ]; then
  # Packages files list Package, Version and Architecture before SHA256 in each stanza.
  for l in /var/lib/apt/lists/*_Packages*; do
    [ -f "$l" ] && /usr/lib/apt/apt-helper cat-file "$l"
  done 2>/dev/null | awk '
    NR == FNR { want[$1] = 1; next }
    /^Package: / { p = $2; v = r = "" } /^Version: / { v = $2 } /^Architecture: / { r = $2 }
    /^SHA256: / { if (($2 in want) && p != "" && v != "" && r != "") { gsub(/:/, "%3a", v); print $2 " " p "_" v "_" r ".deb" } }' "$h" - > "$i"
  while read -r s b; do
    case "$b" in */*|.*) continue ;; esac
    [ -e "$d/$b" ] || [ -L "$d/$b" ] || ln -s "$a/$s.deb" "$d/$b"
  done < "$i"
fi
rm -f "$h" "$i"
: > "$d/.buildbench-seeded"
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
chmod 755 "$x/buildbench-keep-debs" "$x/buildbench-seed-debs" "$x/buildbench-ccache-links"
printf '%s\\n' 'DPkg::Pre-Invoke { "/usr/local/libexec/buildbench-keep-debs"; };' \\
  'DPkg::Post-Invoke { "/usr/local/libexec/buildbench-ccache-links"; };' \\
  'APT::Update::Post-Invoke-Success { "/usr/local/libexec/buildbench-seed-debs"; };' \\
  'Binary::apt::APT::Keep-Downloaded-Packages "true";' > /etc/apt/apt.conf.d/00buildbench-cache
# Reading the index costs a few tenths of a second, so it waits for apt's first use: apt-get and apt are
# wrappers in /usr/local/bin (first on PATH) that seed once, then run the real one.
for t in apt-get apt; do
  [ -x "/usr/bin/$t" ] || continue
  printf '#!/bin/sh\\n# buildbench: offers the build cache to apt on its first use here (see %s)\\n[ -e /var/cache/apt/archives/.buildbench-seeded ] || %s\\nexec /usr/bin/%s "$@"\\n' \\
    "$x/buildbench-seed-debs" "$x/buildbench-seed-debs" "$t" > "/usr/local/bin/$t" && chmod 755 "/usr/local/bin/$t"
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

/** What the setup script's `ccache: yes|no` line says; undefined when it printed none. */
export function ccacheFromSetupOutput(output: string): boolean | undefined {
  const said = /^ccache: (yes|no)$/m.exec(output)?.[1];
  return said === undefined ? undefined : said === 'yes';
}

/** The setup's finding, with why the compiler cache is not in use when ccache is missing. */
export function buildCacheSetupFor(ccache: boolean): BuildCacheSetup {
  return ccache
    ? { ccache }
    : {
        ccache,
        reason:
          'ccache is not installed in the sandbox and could not be installed: compiling without a compiler cache',
      };
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
  const said = ccacheFromSetupOutput(result.output);
  if (result.exitCode !== 0 || said === undefined) {
    const reason = `the build cache setup failed (exit code ${result.exitCode}); building without it: ${result.output.trim().split('\n').slice(-3).join(' | ')}`;
    request.onProgress?.(reason);
    return { ccache: said === true, reason };
  }
  const setup = buildCacheSetupFor(said);
  if (setup.reason) request.onProgress?.(setup.reason);
  return setup;
}
