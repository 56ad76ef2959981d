/**
 * The GPU repair rules' facts as data (`verifiers/gpu.yaml`): which CUDA builds each PyTorch release has on
 * PyTorch's wheel index, which NVIDIA pip wheel ships a missing CUDA library, and which libraries come with
 * the driver (never installed, only passed in). Loaded once and validated like the other tables: an error
 * names the file and the entry.
 */
import { readFileSync } from 'node:fs';
import { parseShippedYaml } from '../../base/shipped-yaml.js';
import { ConfigError } from '../../base/errors.js';

/** Where the table shipped with the tool lives (ncc copies it into dist/). */
export const DEFAULT_GPU_TABLES_URL = new URL('../../../verifiers/gpu.yaml', import.meta.url);

export interface CudaLibraryWheel {
  /** The pip wheel, with `{cuda}` for the CUDA major version, e.g. `nvidia-cudnn-cu{cuda}`. */
  wheel: string;
  /** The Python package whose `lib/` folder holds the shared objects, e.g. `nvidia.cudnn`. */
  module: string;
  /** The library's major version is the CUDA major version (libcublas.so.12). */
  cudaFromSoname: boolean;
}

export interface GpuTables {
  /** e.g. `https://download.pytorch.org/whl/`; a build's index is this plus `cu121`. */
  pytorchIndex: string;
  /** PyTorch `major.minor` → the CUDA versions it was published for. */
  pytorchCudaBuilds: ReadonlyMap<string, readonly string[]>;
  /** A library's name before `.so` (`libcudnn`) → its wheel. */
  cudaLibraryWheels: ReadonlyMap<string, CudaLibraryWheel>;
  /** Libraries of the driver itself (`libcuda`). */
  driverLibraries: ReadonlySet<string>;
}

const VERSION = /^\d+\.\d+$/;

function fail(where: string, message: string): never {
  throw new ConfigError(`${where}: ${message}`, 'fix the GPU tables (verifiers/gpu.yaml)');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function record(doc: Record<string, unknown>, key: string, source: string): Record<string, unknown> {
  const value = doc[key];
  if (!isRecord(value) || Object.keys(value).length === 0)
    fail(`${source}: ${key}`, 'must be a non-empty mapping');
  return value;
}

function builds(raw: unknown, where: string): string[] {
  if (!Array.isArray(raw) || raw.length === 0) fail(where, 'must be a non-empty list of CUDA versions');
  return raw.map((v) => {
    if (typeof v !== 'string' || !VERSION.test(v))
      fail(where, `"${String(v)}" is not a CUDA version like 12.1`);
    return v;
  });
}

function wheel(raw: unknown, where: string): CudaLibraryWheel {
  if (!isRecord(raw)) fail(where, 'must be a mapping with wheel, module and cuda_from_soname');
  for (const key of Object.keys(raw))
    if (!['wheel', 'module', 'cuda_from_soname'].includes(key)) fail(where, `unknown field "${key}"`);
  const { wheel: name, module, cuda_from_soname: fromSoname } = raw;
  if (typeof name !== 'string' || !/^[a-z0-9-]*\{cuda\}[a-z0-9-]*$/.test(name))
    fail(where, '"wheel" must be a pip name with {cuda} in it');
  if (typeof module !== 'string' || !/^[a-z_][a-z0-9_.]*$/.test(module))
    fail(where, '"module" must be a Python package name');
  if (typeof fromSoname !== 'boolean') fail(where, '"cuda_from_soname" must be true or false');
  return { wheel: name, module, cudaFromSoname: fromSoname };
}

/** Checks a parsed gpu.yaml; throws ConfigError naming the entry. */
export function validateGpuTables(doc: unknown, source = 'gpu.yaml'): GpuTables {
  if (!isRecord(doc)) fail(source, 'must be a mapping');
  for (const key of Object.keys(doc))
    if (
      ![
        'version',
        'pytorch_index',
        'pytorch_cuda_builds',
        'cuda_library_wheels',
        'driver_libraries',
      ].includes(key)
    )
      fail(source, `unknown section "${key}"`);
  if (doc.version !== 1) fail(`${source}: version`, 'must be 1');
  const index = doc.pytorch_index;
  if (typeof index !== 'string' || !/^https:\/\/\S+\/$/.test(index))
    fail(`${source}: pytorch_index`, 'must be an https URL ending in /');
  const pytorch = new Map<string, string[]>();
  for (const [release, raw] of Object.entries(record(doc, 'pytorch_cuda_builds', source))) {
    if (!VERSION.test(release))
      fail(`${source}: pytorch_cuda_builds`, `"${release}" is not a release like 2.3`);
    pytorch.set(release, builds(raw, `${source}: pytorch_cuda_builds.${release}`));
  }
  const wheels = new Map<string, CudaLibraryWheel>();
  for (const [lib, raw] of Object.entries(record(doc, 'cuda_library_wheels', source))) {
    if (!/^lib\w+$/.test(lib))
      fail(`${source}: cuda_library_wheels`, `"${lib}" is not a library name like libcudnn`);
    wheels.set(lib, wheel(raw, `${source}: cuda_library_wheels.${lib}`));
  }
  const driver = doc.driver_libraries;
  if (!Array.isArray(driver) || driver.some((d) => typeof d !== 'string' || !/^lib[\w-]+$/.test(d)))
    fail(`${source}: driver_libraries`, 'must be a list of library names like libcuda');
  return {
    pytorchIndex: index,
    pytorchCudaBuilds: pytorch,
    cudaLibraryWheels: wheels,
    driverLibraries: new Set(driver as string[]),
  };
}

export function parseGpuTables(text: string, source = 'gpu.yaml'): GpuTables {
  let doc: unknown;
  try {
    doc = parseShippedYaml(text, source);
  } catch (error) {
    fail(source, `not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  return validateGpuTables(doc, source);
}

let cached: GpuTables | undefined;

/** The tables shipped with the tool (read once). */
export function defaultGpuTables(): GpuTables {
  cached ??= parseGpuTables(readFileSync(DEFAULT_GPU_TABLES_URL, 'utf8'), 'verifiers/gpu.yaml');
  return cached;
}
