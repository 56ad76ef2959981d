/**
 * src/sandbox/ (floor 1) owns where build commands run: the `Sandbox` interface (`types.ts`: create fresh,
 * exec a script with a limit and an environment allowlist, read files, dispose) and its three backends,
 * `rootfs` (bubblewrap over a cached Debian root, `rootfs.ts`), `docker` (`docker.ts`) and `host` (`host.ts`),
 * which share the exec queue and dispose (`queued.ts`) and the environment, copy and removal helpers
 * (`common.ts`). Around them: choosing a backend (`factory.ts`), what a sandbox isolates (`isolation.ts`,
 * `seccomp.ts`), the build cache (`build-cache.ts`), bounded and redacted logs (`output-policy.ts`,
 * `log-file.ts`), git credentials for the build (`git-credentials.ts`) and the work folders
 * (`work-dirs.ts`). Commands on this machine itself run through `base/process.ts`. A failed command is a
 * result, never an exception; only a sandbox that cannot work throws `SandboxError`.
 */
export * from './types.js';
export * from '../base/process.js';
export * from './common.js';
export * from './queued.js';
export * from './rootfs.js';
export * from './docker.js';
export * from './host.js';
export * from './factory.js';
export * from './build-cache.js';
export * from './switchable.js';
