/**
 * A simulated NVIDIA machine for tests on machines without a GPU: a fake `nvidia-smi` on PATH that answers the
 * queries buildbench makes (devices, the header with the driver's CUDA version, compute apps, `-L`), a fake
 * /proc/driver/nvidia/version, a fake `libcuda.so.1` (an empty shared object, so `dlopen` works) and a fake
 * `torch` Python package whose version, CUDA build, availability and errors come from the test. The outputs
 * copy the shape of real ones (nvidia-smi 550's CSV and header, torch's attributes).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface FakeDevice {
  name: string;
  memoryMiB: number;
  /** e.g. `9.0`; omit to simulate an old driver whose nvidia-smi has no compute_cap field. */
  computeCapability?: string;
}

export interface FakeTorch {
  version: string;
  cuda: string | null;
  available: boolean;
  arch?: string[];
  device?: string;
  cudnn?: number;
  /** torch.cuda.init() raises RuntimeError with this message. */
  initError?: string;
  /** `import torch` raises ImportError with this message. */
  importError?: string;
  /** Printed on stderr when torch is imported (a UserWarning, say). */
  stderr?: string;
}

export interface FakeGpuOptions {
  devices?: FakeDevice[];
  driver?: string;
  /** The header's `CUDA Version`. */
  driverCuda?: string;
  /** `nvidia-smi` fails with this message (no driver). */
  smiFailure?: string;
  /** No nvidia-smi on PATH at all. */
  noSmi?: boolean;
  /** Lines of `--query-compute-apps=pid,process_name,used_memory --format=csv,noheader`. */
  computeApps?: string[];
  /** Report the running processes named this as compute apps (by their real pids), when sampled. */
  computeAppNamed?: string;
  torch?: FakeTorch;
  /** The CUDA toolkit's nvcc release on PATH (default 12.1; this machine's own nvcc would differ). */
  nvcc?: string;
  /** Provide a loadable libcuda.so.1 (default true when there are devices). */
  libcuda?: boolean;
}

export interface FakeGpu {
  dir: string;
  bin: string;
  procVersion: string;
  /** Environment for a command that should see the fake machine (PATH first, PYTHONPATH, LD_LIBRARY_PATH). */
  env: Record<string, string>;
  cleanup(): void;
}

/** A here-document that prints `text` exactly (the delimiter cannot occur in nvidia-smi's output). */
function heredoc(text: string): string {
  return `cat <<'FAKE_SMI_EOF'\n${text}FAKE_SMI_EOF\n`;
}

/**
 * The fake nvidia-smi: self-contained (its outputs are written into it), so it also works when it is bound
 * into a sandbox that cannot see this machine's temp folder. Compute apps: the fixed lines, plus every
 * running process named `computeAppNamed` (by its pid as this pid namespace sees it), like a real driver.
 */
function smiScript(o: {
  failure?: string;
  noComputeCap: boolean;
  queryCap: string;
  query: string;
  list: string;
  header: string;
  apps: string;
  appName?: string;
}): string {
  return `#!/bin/bash
${o.failure ? `echo ${JSON.stringify(o.failure)}; exit 9` : ''}
case "$*" in
  *--query-gpu=*compute_cap*)
    ${o.noComputeCap ? `echo 'Field "compute_cap" is not a valid field to query.'; exit 2` : heredoc(o.queryCap)} ;;
  *--query-gpu=*) ${heredoc(o.query)} ;;
  *--query-compute-apps=*)
    ${heredoc(o.apps)}
    want=${JSON.stringify(o.appName ?? '')}
    if [ -n "$want" ]; then
      for s in /proc/[0-9]*/comm; do
        read -r c < "$s" 2> /dev/null || continue
        [ "$c" = "$want" ] || continue
        p=\${s#/proc/}; echo "\${p%/comm}, $c, 512 MiB"
      done
    fi ;;
  -L) ${heredoc(o.list)} ;;
  '') ${heredoc(o.header)} ;;
  *) echo "fake nvidia-smi: unknown arguments $*"; exit 2 ;;
esac
`;
}

const TORCH_INIT = `import json as _json, os as _os, sys as _sys, types as _types
_c = _json.loads(_os.environ["FAKE_TORCH"])
if _c.get("stderr"):
    print(_c["stderr"], file=_sys.stderr)
if _c.get("importError"):
    raise ImportError(_c["importError"])
__version__ = _c["version"]
version = _types.SimpleNamespace(cuda=_c.get("cuda"))
class _Cuda:
    def is_available(self):
        return bool(_c.get("available"))
    def get_arch_list(self):
        return list(_c.get("arch") or [])
    def get_device_name(self, i=0):
        return _c.get("device", "fake device")
    def init(self):
        if _c.get("initError"):
            raise RuntimeError(_c["initError"])
cuda = _Cuda()
backends = _types.SimpleNamespace(cudnn=_types.SimpleNamespace(version=lambda: _c.get("cudnn")))
`;

export function createFakeGpu(options: FakeGpuOptions = {}): FakeGpu {
  const dir = mkdtempSync(path.join(tmpdir(), 'bb-fake-gpu-'));
  const bin = path.join(dir, 'bin');
  const lib = path.join(dir, 'lib');
  const py = path.join(dir, 'py');
  mkdirSync(bin);
  mkdirSync(lib);
  mkdirSync(path.join(py, 'torch'), { recursive: true });
  const devices = options.devices ?? [];
  const driver = options.driver ?? '550.54.15';
  const nvcc = options.nvcc ?? '12.1';
  writeFileSync(
    path.join(bin, 'nvcc'),
    `#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\necho 'Cuda compilation tools, release ${nvcc}, V${nvcc}.105'\n`,
  );
  chmodSync(path.join(bin, 'nvcc'), 0o755);
  if (!options.noSmi) {
    const smi = smiScript({
      ...(options.smiFailure ? { failure: options.smiFailure } : {}),
      noComputeCap: devices.some((d) => d.computeCapability === undefined),
      queryCap: devices
        .map((d) => `${d.name}, ${driver}, ${d.memoryMiB} MiB, ${d.computeCapability ?? ''}\n`)
        .join(''),
      query: devices.map((d) => `${d.name}, ${driver}, ${d.memoryMiB} MiB\n`).join(''),
      list: devices.map((d, i) => `GPU ${i}: ${d.name} (UUID: GPU-0000000${i}-fake)\n`).join(''),
      header: [
        'Tue Dec  1 19:00:00 2026',
        '+-----------------------------------------------------------------------------------------+',
        `| NVIDIA-SMI ${driver}              Driver Version: ${driver}      CUDA Version: ${options.driverCuda ?? '12.4'}     |`,
        '|-----------------------------------------+------------------------+----------------------+',
        '',
      ].join('\n'),
      apps: (options.computeApps ?? []).map((l) => `${l}\n`).join(''),
      ...(options.computeAppNamed ? { appName: options.computeAppNamed } : {}),
    });
    writeFileSync(path.join(bin, 'nvidia-smi'), smi);
    chmodSync(path.join(bin, 'nvidia-smi'), 0o755);
  }
  const procVersion = path.join(dir, 'nvidia-version');
  writeFileSync(
    procVersion,
    `NVRM version: NVIDIA UNIX x86_64 Kernel Module  ${driver}  Fri Feb  9 19:57:28 UTC 2024\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n`,
  );
  if (options.libcuda ?? devices.length > 0) {
    execFileSync('cc', ['-shared', '-fPIC', '-o', path.join(lib, 'libcuda.so.1'), '-x', 'c', '/dev/null']);
  }
  const env: Record<string, string> = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    LD_LIBRARY_PATH: lib,
  };
  if (options.torch) {
    writeFileSync(path.join(py, 'torch', '__init__.py'), TORCH_INIT);
    env.PYTHONPATH = py;
    env.FAKE_TORCH = JSON.stringify(options.torch);
  }
  return { dir, bin, procVersion, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
