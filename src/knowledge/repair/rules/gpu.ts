/**
 * Rules for GPU failures (the `gpu` signatures, most raised by the GPU check a deploy run makes before its
 * target, src/verify/gpu.ts): a CPU-only PyTorch or one built for a CUDA newer than the driver supports gets
 * the PyTorch build for a CUDA the driver does support, from PyTorch's wheel index; a missing cuDNN/cuBLAS/CUDA
 * runtime gets NVIDIA's pip wheel with its `lib/` on LD_LIBRARY_PATH; PyTorch's own advice on a fragmented
 * out-of-memory is followed. What no repair inside a sandbox can fix — no GPU, the driver's own libraries, a
 * build without kernels for this GPU — is left as the root cause, whose hint says what to do. The facts are
 * data (verifiers/gpu.yaml); the versions come from the failure and the check's lines in the same log.
 */
import { shq } from '../../../base/shell.js';
import { DEPLOY_ENV_FILE, SOURCE_DEPLOY_ENV } from '../../../deploy/types.js';
import type { Finding } from '../../diagnose/types.js';
import { defaultGpuTables, type GpuTables } from '../gpu-tables.js';
import type { Repair, RepairInput } from '../repair.js';
import { cap, type Rule } from './rule.js';

/** What the GPU check (or the framework) printed earlier in the same log. */
export interface GpuFacts {
  /** The newest CUDA the driver supports, e.g. `12.4`. */
  driverCuda?: string;
  torch?: { version: string; cuda?: string };
}

/** `(found version 11040)` → `11.4`: CUDA encodes 1000 × major + 10 × minor. */
export function cudaFromDriverApi(found: string): string | undefined {
  const n = Number(found);
  if (!Number.isInteger(n) || n < 1000) return undefined;
  return `${Math.floor(n / 1000)}.${Math.floor((n % 1000) / 10)}`;
}

/** The facts the GPU check's lines give, from a turn's output. */
export function gpuFacts(output: string, finding?: Finding): GpuFacts {
  const facts: GpuFacts = {};
  const driver = /\[buildbench gpu\] driver \S+ \(supports CUDA up to (\d+\.\d+)\)/.exec(output);
  if (driver) facts.driverCuda = driver[1]!;
  const torch = /\[buildbench gpu\] torch (\S+) built for CUDA (\d+\.\d+|none)/.exec(output);
  if (torch) facts.torch = { version: torch[1]!, ...(torch[2] !== 'none' ? { cuda: torch[2]! } : {}) };
  if (finding) {
    const driverCuda = cap(finding, 'driver_cuda') ?? cudaFromDriverApi(cap(finding, 'found') ?? '');
    if (driverCuda) facts.driverCuda = driverCuda;
    const version = cap(finding, 'version');
    if (cap(finding, 'framework') === 'torch' && version)
      facts.torch = {
        version,
        ...(cap(finding, 'runtime_cuda') ? { cuda: cap(finding, 'runtime_cuda')! } : {}),
      };
  }
  return facts;
}

function versionTuple(v: string): number[] {
  return v.split('.').map(Number);
}

function notNewer(a: string, b: string): boolean {
  const [a1 = 0, a2 = 0] = versionTuple(a);
  const [b1 = 0, b2 = 0] = versionTuple(b);
  return a1 < b1 || (a1 === b1 && a2 <= b2);
}

/**
 * The CUDA build of `torch` to install: the newest the release has that the driver supports, or — when the
 * driver's CUDA is not known — the oldest (the one older drivers are most likely to run). Undefined when the
 * table does not know the release or no build fits.
 */
export function torchCudaBuild(
  torchVersion: string,
  driverCuda: string | undefined,
  tables: GpuTables = defaultGpuTables(),
): { base: string; cuda: string; tag: string; index: string } | undefined {
  const base = torchVersion.split('+')[0] ?? torchVersion;
  const release = /^(\d+\.\d+)/.exec(base)?.[1];
  const builds = release ? tables.pytorchCudaBuilds.get(release) : undefined;
  if (!builds) return undefined;
  const fitting = driverCuda ? builds.filter((b) => notNewer(b, driverCuda)) : builds.slice(0, 1);
  const cuda = fitting[fitting.length - 1];
  if (!cuda) return undefined;
  const tag = `cu${cuda.replace('.', '')}`;
  return { base, cuda, tag, index: `${tables.pytorchIndex}${tag}` };
}

/** A step that runs in the deploy environment (its virtual environment's python), or the system's without one. */
function inDeployEnv(marker: string, lines: string[]): string {
  return [`# buildbench: ${marker}`, SOURCE_DEPLOY_ENV, ...lines].join('\n');
}

/**
 * The deploy recipes' GPU step helpers (and the GPU check script they carry), imported when a GPU repair is made,
 * not with the rules: a diagnosis of a C build never loads them (issue 32).
 */
function deployGpu(): Promise<typeof import('../../../deploy/gpu.js')> {
  return import('../../../deploy/gpu.js');
}

function offline(input: RepairInput): boolean {
  return input.goal?.registries.mode === 'offline';
}

/** The CUDA build of the same PyTorch release, for a CUDA the driver supports. */
async function installCudaTorch(finding: Finding, input: RepairInput, tables: GpuTables): Promise<Repair[]> {
  if (offline(input)) return [];
  const facts = gpuFacts(input.output, finding);
  if (!facts.torch) return [];
  const build = torchCudaBuild(facts.torch.version, facts.driverCuda, tables);
  if (!build) return [];
  // Already that build: another fix is needed (the driver itself, say).
  if (facts.torch.version === `${build.base}+${build.tag}`) return [];
  const spec = `torch==${build.base}+${build.tag}`;
  const driver = facts.driverCuda
    ? `the driver supports CUDA up to ${facts.driverCuda}`
    : 'the driver’s CUDA version is unknown, so the oldest build';
  const { withStepBeforeGpuCheck } = await deployGpu();
  return [
    {
      rule: 'install-cuda-torch',
      key: `torch:${spec}`,
      reason: `${finding.message}: PyTorch ${build.base} is published for CUDA ${build.cuda} (${build.index}); ${driver}`,
      // Later installs (the setup's own `pip install`) find the CUDA build first, too.
      env: { PIP_EXTRA_INDEX_URL: build.index },
      recipe: withStepBeforeGpuCheck(input.recipe, {
        purpose: 'dependencies',
        command: inDeployEnv(`install the CUDA build of PyTorch (${build.tag})`, [
          `python3 -m pip install --force-reinstall --no-deps ${shq(spec)} --index-url ${shq(build.index)}`,
        ]),
      }),
    },
  ];
}

/** `libcudnn.so.8` → { stem: libcudnn, major: 8 }; `libcudnn_cnn_infer.so.8` counts as libcudnn. */
function soname(library: string): { stem: string; major?: number } {
  const m = /^(lib[A-Za-z]+?)(?:_\w+)?\.so(?:\.(\d+))?/.exec(library);
  return { stem: m?.[1] ?? library, ...(m?.[2] ? { major: Number(m[2]) } : {}) };
}

/** NVIDIA's pip wheel of a missing CUDA library, its `lib/` folder added to the deploy environment. */
async function installCudaLibrary(
  finding: Finding,
  input: RepairInput,
  tables: GpuTables,
): Promise<Repair[]> {
  const library = cap(finding, 'library');
  if (!library || !input.goal || offline(input)) return [];
  const { stem, major } = soname(library);
  if (tables.driverLibraries.has(stem)) return []; // the driver's: passed in from the host, never installed
  const entry = tables.cudaLibraryWheels.get(stem);
  if (!entry || major === undefined) return [];
  const facts = gpuFacts(input.output);
  const frameworkCuda = facts.torch?.cuda ?? facts.driverCuda;
  const cudaMajor = entry.cudaFromSoname ? major : Number((frameworkCuda ?? '12').split('.')[0]);
  if (cudaMajor !== 11 && cudaMajor !== 12) return [];
  const wheel = entry.wheel.replace('{cuda}', String(cudaMajor));
  const spec = entry.cudaFromSoname ? wheel : `${wheel}==${major}.*`;
  const libDir = `$(python3 -c ${shq(`import ${entry.module} as m; print(list(m.__path__)[0])`)})/lib`;
  const { withStepBeforeGpuCheck } = await deployGpu();
  return [
    {
      rule: 'install-cuda-library-wheel',
      key: `cuda-wheel:${spec}`,
      reason: `${finding.message}: NVIDIA publishes it as the pip wheel ${wheel}; its lib/ folder goes on LD_LIBRARY_PATH in ${DEPLOY_ENV_FILE}`,
      recipe: withStepBeforeGpuCheck(input.recipe, {
        purpose: 'dependencies',
        command: inDeployEnv(`install ${library} from NVIDIA's wheel ${wheel}`, [
          `python3 -m pip install ${shq(spec)}`,
          `d="${libDir}"`,
          `mkdir -p "$(dirname ${DEPLOY_ENV_FILE})"`,
          `printf 'export LD_LIBRARY_PATH=%s${'$'}{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\\n' "$d" >> ${DEPLOY_ENV_FILE}`,
        ]),
      }),
    },
  ];
}

const EXPANDABLE = 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True';

/** PyTorch's own advice in its out-of-memory message, followed: only when the message gives it. */
function followAllocatorAdvice(finding: Finding, input: RepairInput): Repair[] {
  if (!input.output.includes(EXPANDABLE)) return [];
  return [
    {
      rule: 'pytorch-expandable-segments',
      key: 'env:PYTORCH_CUDA_ALLOC_CONF',
      reason: `${finding.message}; PyTorch reports memory reserved but unallocated and advises ${EXPANDABLE} against fragmentation`,
      env: { PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True' },
      ...(input.goal
        ? {
            prelude: [
              `mkdir -p "$(dirname ${DEPLOY_ENV_FILE})" && { grep -qs 'PYTORCH_CUDA_ALLOC_CONF' ${DEPLOY_ENV_FILE} || echo 'export ${EXPANDABLE}' >> ${DEPLOY_ENV_FILE}; }`,
            ],
          }
        : {}),
    },
  ];
}

export function gpuRules(tables?: GpuTables): Rule[] {
  const t = (): GpuTables => tables ?? defaultGpuTables();
  return [
    {
      ids: [
        'gpu-cpu-only-framework',
        'torch-not-compiled-with-cuda',
        'gpu-driver-too-old',
        'torch-driver-too-old',
        'cuda-driver-insufficient',
      ],
      propose: (f, input) => installCudaTorch(f, input, t()),
    },
    {
      ids: ['cuda-library-missing'],
      needsTree:
        "a deployment's repair: NVIDIA's wheel goes into the deploy recipe, when the sandbox can reach the registry",
      propose: (f, input) => installCudaLibrary(f, input, t()),
    },
    { ids: ['cuda-out-of-memory'], propose: followAllocatorAdvice },
  ];
}

export const GPU_RULES: Rule[] = gpuRules();
