/**
 * Creates the cached rootfs layers (debootstrap base + toolchain layer) that the integration tests share,
 * with progress. Run by test/global-setup.ts before any test's timeout starts; a no-op when they exist.
 * Where the rootfs backend cannot run, it says why and exits 0: those tests skip or fail with their reason.
 */
import { defaultSandboxSettings } from '../../src/sandbox/factory.js';
import { ensureRootfsLayers, rootfsProblems } from '../../src/sandbox/rootfs.js';

const settings = defaultSandboxSettings(process.env);
const problems = await rootfsProblems(settings);
if (problems.length > 0) {
  process.stderr.write(`global setup: not preparing the rootfs layers (${problems.join('; ')})\n`);
} else {
  const started = Date.now();
  await ensureRootfsLayers({
    cacheDir: settings.cacheDir,
    suite: settings.suite,
    mirror: settings.mirror,
    toolchain: true,
    onProgress: (message) => process.stderr.write(`global setup: ${message}\n`),
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  if (seconds > 1) process.stderr.write(`global setup: rootfs layers ready in ${seconds} s\n`);
}
