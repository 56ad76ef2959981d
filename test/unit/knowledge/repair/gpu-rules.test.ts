/**
 * GPU failures from real-looking logs (the GPU check's lines, PyTorch's and the loader's own messages) to
 * findings and repairs: the layer-1 parse picks the root cause, the rules answer it from verifiers/gpu.yaml.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';

import { analyzeLog } from '../../../../src/knowledge/diagnose/log-parser.js';
import { diagnoseLog } from '../../../../src/knowledge/diagnose/diagnosis.js';
import { RuleKnowledge } from '../../../../src/knowledge/repair/rules/index.js';
import { cudaFromDriverApi, gpuFacts, torchCudaBuild } from '../../../../src/knowledge/repair/rules/gpu.js';
import { DEFAULT_GPU_TABLES_URL, parseGpuTables } from '../../../../src/knowledge/repair/gpu-tables.js';
import type { RepairInput } from '../../../../src/knowledge/repair/repair.js';
import { withGpuCheck, isGpuCheckStep } from '../../../../src/deploy/gpu.js';
import type { DeployGoal } from '../../../../src/deploy/types.js';
import type { Recipe } from '../../../../src/recipe/model.js';
import { emptyFixes } from '../../../../src/recipe/model.js';
import { repoInfo } from '../../../fakes/repo-info.js';

const GOAL: DeployGoal = {
  target: { command: 'python3 train.py', cwd: '.', timeoutMs: 60_000, evidence: {} },
  requires: ['gpu'],
  registries: { mode: 'auto', mirrors: {} },
};

const SETUP: Recipe = withGpuCheck(
  {
    id: 'deploy:python',
    system: 'deploy',
    label: 'python venv',
    evidence: 'requirements.txt',
    dir: '',
    tools: [],
    steps: [
      {
        purpose: 'dependencies',
        command: 'python3 -m venv .venv && .venv/bin/pip install -r requirements.txt',
      },
    ],
  },
  GOAL,
);

async function repairsFor(log: string, goal: DeployGoal | undefined = GOAL) {
  const analysis = analyzeLog(log);
  const rootCause = analysis.rootCause!;
  const input: RepairInput = {
    rootCause,
    findings: analysis.findings,
    recipe: SETUP,
    fixes: emptyFixes(),
    repo: repoInfo(),
    output: log,
    ...(goal ? { goal } : {}),
  };
  return { rootCause, repairs: await new RuleKnowledge().propose(input, {}) };
}

const CHECK_HEAD = [
  '+ python3 -m venv .venv',
  'Successfully installed torch-2.3.1+cpu',
  '[buildbench gpu] device 0: NVIDIA H200, 143771 MiB, compute capability 9.0',
  '[buildbench gpu] driver 550.54.15 (supports CUDA up to 12.4)',
  '[buildbench gpu] kernel module: NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Fri Feb  9 19:57:28 UTC 2024',
  '[buildbench gpu] nvcc: not installed',
];

describe('GPU failures → root cause → repair', () => {
  it('a CPU-only torch wheel gets the CUDA build the driver supports, installed before the check', async () => {
    const log = [
      ...CHECK_HEAD,
      '[buildbench gpu] torch 2.3.1+cpu built for CUDA none (CPU-only); torch.cuda.is_available() is False',
      '[buildbench gpu] error: torch 2.3.1+cpu is a CPU-only build (torch.version.cuda is None, torch.cuda.is_available() is False) on a machine with a GPU (NVIDIA H200)',
      '[buildbench gpu] json {}',
    ].join('\n');
    const { rootCause, repairs } = await repairsFor(log);
    expect(rootCause).toMatchObject({ id: 'gpu-cpu-only-framework', category: 'gpu' });
    expect(rootCause.message).toBe('torch 2.3.1+cpu is a CPU-only build on a machine with a GPU');
    expect(repairs).toHaveLength(1);
    const repair = repairs[0]!;
    expect(repair).toMatchObject({
      rule: 'install-cuda-torch',
      key: 'torch:torch==2.3.1+cu121',
      env: { PIP_EXTRA_INDEX_URL: 'https://download.pytorch.org/whl/cu121' },
    });
    expect(repair.reason).toContain('the driver supports CUDA up to 12.4');
    const steps = repair.recipe!.steps;
    expect(steps).toHaveLength(3);
    expect(steps[1]!.command).toContain(
      'python3 -m pip install --force-reinstall --no-deps torch==2.3.1+cu121 --index-url https://download.pytorch.org/whl/cu121',
    );
    expect(steps[1]!.command).toContain('. ./.buildbench/deploy-env.sh');
    expect(isGpuCheckStep(steps[2]!)).toBe(true);
  });

  it('PyTorch’s own "not compiled with CUDA" gets the same repair', async () => {
    const log = [
      ...CHECK_HEAD,
      '[buildbench gpu] torch 2.5.1+cpu built for CUDA none (CPU-only); torch.cuda.is_available() is False',
      'Traceback (most recent call last):',
      '  File "train.py", line 3, in <module>',
      'AssertionError: Torch not compiled with CUDA enabled',
    ].join('\n');
    const { rootCause, repairs } = await repairsFor(log);
    expect(rootCause.id).toBe('torch-not-compiled-with-cuda');
    expect(repairs[0]?.key).toBe('torch:torch==2.5.1+cu124');
  });

  it('a driver older than the CUDA torch was built for gets a build for an older CUDA', async () => {
    const log = [
      '[buildbench gpu] device 0: Tesla T4, 15360 MiB, compute capability 7.5',
      '[buildbench gpu] driver 470.82.01 (supports CUDA up to 11.4)',
      '[buildbench gpu] torch 2.3.1+cu121 built for CUDA 12.1; torch.cuda.is_available() is False',
      '[buildbench gpu] error: the NVIDIA driver 470.82.01 supports CUDA up to 11.4, older than CUDA 12.1 that torch 2.3.1+cu121 was built for',
      '[buildbench gpu] error: torch.cuda.init() failed: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx',
    ].join('\n');
    const { rootCause, repairs } = await repairsFor(log);
    expect(rootCause).toMatchObject({
      id: 'gpu-driver-too-old',
      captures: { driver_cuda: '11.4', runtime_cuda: '12.1' },
    });
    // PyTorch 2.3 has CUDA 11.8 and 12.1 builds; neither is ≤ 11.4: nothing inside the sandbox can fix it.
    expect(repairs).toEqual([]);
    // PyTorch 1.12 has an 11.3 build.
    const old = await repairsFor(
      log.replaceAll('2.3.1+cu121', '1.12.1+cu116').replaceAll('CUDA 12.1', 'CUDA 11.6'),
    );
    expect(old.repairs[0]?.key).toBe('torch:torch==1.12.1+cu113');
  });

  it('reads the driver’s CUDA from PyTorch’s "too old (found version 11080)" alone', async () => {
    const log = [
      '[buildbench gpu] torch 2.4.0+cu124 built for CUDA 12.4; torch.cuda.is_available() is False',
      'RuntimeError: The NVIDIA driver on your system is too old (found version 11080). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver.',
    ].join('\n');
    const { rootCause, repairs } = await repairsFor(log);
    expect(rootCause.id).toBe('torch-driver-too-old');
    expect(repairs[0]?.key).toBe('torch:torch==2.4.0+cu118');
  });

  it('proposes nothing offline, where PyTorch’s index is out of reach', async () => {
    const log = [
      ...CHECK_HEAD,
      '[buildbench gpu] error: torch 2.3.1+cpu is a CPU-only build (torch.version.cuda is None, torch.cuda.is_available() is False) on a machine with a GPU (NVIDIA H200)',
    ].join('\n');
    const { repairs } = await repairsFor(log, { ...GOAL, registries: { mode: 'offline', mirrors: {} } });
    expect(repairs).toEqual([]);
  });

  it('a missing libcudnn gets NVIDIA’s wheel and its lib/ on LD_LIBRARY_PATH; libcuda is left to the host', async () => {
    const log = [
      ...CHECK_HEAD,
      '[buildbench gpu] error: torch does not import: ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory',
    ].join('\n');
    const { rootCause, repairs } = await repairsFor(log);
    expect(rootCause).toMatchObject({ id: 'cuda-library-missing', captures: { library: 'libcudnn.so.8' } });
    expect(repairs[0]).toMatchObject({
      rule: 'install-cuda-library-wheel',
      key: 'cuda-wheel:nvidia-cudnn-cu12==8.*',
    });
    const step = repairs[0]!.recipe!.steps[1]!.command;
    expect(step).toContain("python3 -m pip install 'nvidia-cudnn-cu12==8.*'");
    expect(step).toContain('import nvidia.cudnn as m; print(list(m.__path__)[0])');
    expect(step).toContain('>> .buildbench/deploy-env.sh');

    const cublas = await repairsFor(
      './train: error while loading shared libraries: libcublas.so.11: cannot open shared object file: No such file or directory',
    );
    expect(cublas.repairs[0]?.key).toBe('cuda-wheel:nvidia-cublas-cu11');

    const driver = await repairsFor(
      '[buildbench gpu] error: the CUDA driver library does not load: libcuda.so.1: cannot open shared object file: No such file or directory',
    );
    expect(driver.rootCause.id).toBe('cuda-library-missing');
    expect(driver.rootCause.hint).toContain('passed into the sandbox');
    expect(driver.repairs).toEqual([]);
  });

  it('follows PyTorch’s allocator advice only when its out-of-memory message gives it', async () => {
    const advised = await repairsFor(
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 6.69 MiB is free. Of the allocated memory 78.46 GiB is allocated by PyTorch, and 124.70 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.',
    );
    expect(advised.rootCause.id).toBe('cuda-out-of-memory');
    expect(advised.repairs[0]).toMatchObject({
      rule: 'pytorch-expandable-segments',
      env: { PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True' },
    });
    expect(advised.repairs[0]!.prelude![0]).toContain('>> .buildbench/deploy-env.sh');
    const plain = await repairsFor('RuntimeError: CUDA driver error: CUDA_ERROR_OUT_OF_MEMORY');
    expect(plain.rootCause.id).toBe('cuda-out-of-memory');
    expect(plain.repairs).toEqual([]);
  });

  it('leaves a missing GPU and a build without kernels for this GPU as root causes with hints', async () => {
    const none = await repairsFor(
      '[buildbench gpu] error: the task requires a GPU and no GPU is visible in the sandbox (nvidia-smi is not installed or not passed into the sandbox; kernel module: none loaded)',
    );
    expect(none.rootCause.id).toBe('gpu-required-none-visible');
    expect(none.rootCause.hint).toContain('--gpus all');
    expect(none.repairs).toEqual([]);
    const sm = await repairsFor(
      '[buildbench gpu] error: torch 1.7.1+cu110 has no kernels for NVIDIA H200 (compute capability 9.0, sm_90): it was built for sm_37 sm_50 sm_60 sm_70 sm_80',
    );
    expect(sm.rootCause).toMatchObject({ id: 'gpu-no-kernels-for-capability', captures: { arch: 'sm_90' } });
    expect(sm.repairs).toEqual([]);
  });
});

describe('GPU facts and tables', () => {
  it('decodes the driver API’s CUDA version', () => {
    expect(cudaFromDriverApi('11040')).toBe('11.4');
    expect(cudaFromDriverApi('12020')).toBe('12.2');
    expect(cudaFromDriverApi('x')).toBeUndefined();
  });

  it('reads the check’s lines', () => {
    expect(
      gpuFacts(
        '[buildbench gpu] driver 550.54.15 (supports CUDA up to 12.4)\n[buildbench gpu] torch 2.3.1+cu121 built for CUDA 12.1; x',
      ),
    ).toEqual({
      driverCuda: '12.4',
      torch: { version: '2.3.1+cu121', cuda: '12.1' },
    });
  });

  it('picks the newest build the driver supports, or the oldest when the driver is unknown', () => {
    expect(torchCudaBuild('2.6.0+cpu', '12.5')?.tag).toBe('cu124');
    expect(torchCudaBuild('2.6.0', undefined)?.tag).toBe('cu118');
    expect(torchCudaBuild('0.4.1', '12.4')).toBeUndefined();
  });

  it('validates the table with errors that name the entry', () => {
    const text = readFileSync(DEFAULT_GPU_TABLES_URL, 'utf8');
    expect(parseGpuTables(text).pytorchCudaBuilds.get('2.1')).toEqual(['11.8', '12.1']);
    expect(() => parseGpuTables(text.replace("'2.1': ['11.8', '12.1']", "'2.1': ['cu118']"))).toThrow(
      /pytorch_cuda_builds\.2\.1: "cu118" is not a CUDA version/,
    );
    expect(() => parseGpuTables(`${text}\nextra: 1\n`)).toThrow(/unknown section "extra"/);
  });
});

describe('buildbench diagnose on a GPU log', () => {
  it('suggests the PyTorch CUDA build the driver supports, from the lines around the finding', async () => {
    const log = [
      'Successfully installed torch-2.3.1+cpu',
      '[buildbench gpu] device 0: NVIDIA H200, 143771 MiB, compute capability 9.0',
      '[buildbench gpu] driver 550.54.15 (supports CUDA up to 12.4)',
      '[buildbench gpu] error: torch 2.3.1+cpu is a CPU-only build (torch.version.cuda is None, torch.cuda.is_available() is False) on a machine with a GPU (NVIDIA H200)',
    ].join('\n');
    // the plan the engine's install-cuda-torch rule makes, rendered: one knowledge for both readers
    const d = await diagnoseLog(log);
    expect(d).toMatchObject({
      rootCause: { id: 'gpu-cpu-only-framework' },
      fix: { kind: 'commands', rule: 'install-cuda-torch' },
    });
    const fix = d.found ? d.fix : undefined;
    expect(fix?.summary).toContain('PyTorch 2.3.1 is published for CUDA 12.1');
    expect(fix?.summary).toContain('the driver supports CUDA up to 12.4');
    expect(fix?.commands).toEqual([
      'python3 -m pip install --force-reinstall --no-deps torch==2.3.1+cu121 --index-url https://download.pytorch.org/whl/cu121',
      'export PIP_EXTRA_INDEX_URL="https://download.pytorch.org/whl/cu121"',
    ]);
  });
});
