/** Runs once before all test files. Integration tests share the cached rootfs (see test/helpers/sandbox.ts). */
export default function globalSetup(): void {
  process.env.BUILDBENCH_TEST = '1';
}
