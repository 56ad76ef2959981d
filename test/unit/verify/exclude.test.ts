import { describe, expect, it } from '@jest/globals';
import { excludeBuildScratch } from '../../../src/verify/exclude.js';

describe('build scratch exclusion', () => {
  it('drops CMake compiler-identification binaries and other build-system scratch', () => {
    expect(excludeBuildScratch('build/CMakeFiles/3.25.1/CompilerIdC/a.out', false)).toBe(true);
    expect(excludeBuildScratch('build/CMakeFiles', true)).toBe(true);
    expect(excludeBuildScratch('builddir/meson-private/sanitycheckc.exe', false)).toBe(true);
    expect(excludeBuildScratch('.git', true)).toBe(true);
    expect(excludeBuildScratch('conftest', false)).toBe(true);
    expect(excludeBuildScratch('.buildbench/checks/x/stdout', false)).toBe(true); // verifier scratch
  });

  it('keeps real products', () => {
    expect(excludeBuildScratch('build/hello', false)).toBe(false);
    expect(excludeBuildScratch('build/lib/libfoo.so.1', false)).toBe(false);
    expect(excludeBuildScratch('src/cmake', true)).toBe(false);
  });
});
