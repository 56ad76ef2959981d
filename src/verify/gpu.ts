/**
 * The GPU environment of a sandbox, found from inside it: the devices, driver and CUDA versions
 * (`nvidia-smi`, `/proc/driver/nvidia/version`, `nvcc --version`) and the CUDA runtime the framework was built
 * for (`torch.version.cuda` when PyTorch imports), plus the classic mistakes that make a GPU run fail, caught
 * before the target runs: a CPU-only framework build on a machine with a GPU, a driver older than the CUDA
 * the framework needs, a driver library that does not load, and a framework built without kernels for this
 * GPU's compute capability.
 *
 * One script does it (`gpuCheckScript`), so the same check is a recipe step of a deploy run (it prints
 * `[buildbench gpu] error: …` lines that the layer-1 signatures in verifiers/signatures.yaml turn into findings
 * with repairs, and fails the step) and the harness's record for result.json (`detectGpuEnvironment` runs it
 * in report mode and parses its JSON line). The decisions are made in Python inside the sandbox because the
 * step must also work in the replayed build.sh, without this program; where no python3 exists, a shell
 * fallback records what nvidia-smi says.
 */
import type { Sandbox } from '../sandbox/types.js';

/** Every line the check prints starts with this. */
export const GPU_CHECK_PREFIX = '[buildbench gpu]';

export interface GpuDevice {
  name: string;
  /** e.g. `81559 MiB`, as nvidia-smi prints it. */
  memory?: string;
  /** e.g. `9.0`; absent on drivers whose nvidia-smi has no `compute_cap` field. */
  computeCapability?: string;
}

export interface GpuFramework {
  name: 'torch';
  version: string;
  /** The CUDA runtime it was built for (`torch.version.cuda`); undefined for a CPU-only build. */
  cuda?: string;
  /** `torch.cuda.is_available()`. */
  available: boolean;
  /** `torch.cuda.get_arch_list()`: the compute capabilities it carries kernels (sm_XY) or PTX (compute_XY) for. */
  archList?: string[];
  /** The device the framework sees, when it sees one. */
  device?: string;
  cudnn?: number;
}

/** What the check found (result.json `environment.gpu`). */
export interface GpuEnvironment {
  devices: GpuDevice[];
  /** The driver version nvidia-smi reports. */
  driver?: string;
  /** The newest CUDA version this driver supports (nvidia-smi's `CUDA Version`). */
  driverCuda?: string;
  /** The first line of /proc/driver/nvidia/version (the kernel module). */
  kernelModule?: string;
  /** The CUDA toolkit's compiler, e.g. `12.1` (from `nvcc --version`). */
  nvcc?: string;
  frameworks: GpuFramework[];
  /** What went wrong that stops a GPU run (the `error:` lines). */
  problems: string[];
  /** What is worth knowing but does not stop it (the `warning:` lines, and why a part could not be read). */
  notes: string[];
}

export interface GpuCheckOptions {
  /** The task requires a GPU: no visible device is an error, not a note. */
  required: boolean;
  /** `check`: exit 1 on a problem (a recipe step); `report`: always exit 0 (the harness's record). */
  mode: 'check' | 'report';
  /** The driver's version file (tests point it at a fake). */
  procVersion?: string;
  /** Sourced first when it exists (the deploy environment: a virtual environment's python). */
  envFile?: string;
}

/**
 * The check in Python: argv = required (0/1), mode, /proc version file. Prints facts, `warning:` and `error:`
 * lines, then one `json` line; exits 1 in check mode when there is an error.
 */
const CHECK_PY = String.raw`
import json, os, re, shutil, subprocess, sys
P = '[buildbench gpu]'
required, mode, proc_version = sys.argv[1] == '1', sys.argv[2], sys.argv[3]
env = {'devices': [], 'frameworks': [], 'problems': [], 'notes': []}

def say(text):
    print(P, text, flush=True)

def problem(text):
    env['problems'].append(text)
    say('error: ' + text)

def note(text):
    env['notes'].append(text)
    say('warning: ' + text)

def run(cmd, timeout=60):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
        return r.returncode, r.stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)

def last_line(text):
    lines = [l for l in (text or '').strip().splitlines() if l.strip()]
    return lines[-1].strip() if lines else ''

def version_tuple(v):
    return tuple(int(x) for x in re.findall(r'\d+', v or '')[:2])

smi = shutil.which('nvidia-smi')
smi_error = 'nvidia-smi is not installed or not passed into the sandbox'
if smi:
    rc, out = run([smi, '--query-gpu=name,driver_version,memory.total,compute_cap', '--format=csv,noheader'])
    fields = 4
    if rc != 0 and 'compute_cap' in out:
        rc, out = run([smi, '--query-gpu=name,driver_version,memory.total', '--format=csv,noheader'])
        fields = 3
    if rc == 0:
        for line in out.splitlines():
            parts = [p.strip() for p in line.split(',')]
            if len(parts) < fields or not parts[0]:
                continue
            device = {'name': parts[0], 'memory': parts[2]}
            if fields == 4 and re.match(r'^\d+\.\d+$', parts[3]):
                device['computeCapability'] = parts[3]
            env['devices'].append(device)
            env['driver'] = parts[1]
        rc2, header = run([smi])
        m = re.search(r'CUDA Version:\s*(\d+\.\d+)', header or '')
        if m:
            env['driverCuda'] = m.group(1)
    else:
        smi_error = 'nvidia-smi failed: ' + last_line(out)
        say(smi_error)
try:
    with open(proc_version) as f:
        env['kernelModule'] = f.readline().strip()
except OSError:
    pass
nvcc = shutil.which('nvcc') or ('/usr/local/cuda/bin/nvcc' if os.access('/usr/local/cuda/bin/nvcc', os.X_OK) else None)
if nvcc:
    rc, out = run([nvcc, '--version'])
    m = re.search(r'release (\d+\.\d+)', out or '')
    if m:
        env['nvcc'] = m.group(1)

for i, d in enumerate(env['devices']):
    cap = d.get('computeCapability')
    say('device %d: %s, %s%s' % (i, d['name'], d.get('memory', '?'), ', compute capability ' + cap if cap else ''))
if env.get('driver'):
    say('driver %s (supports CUDA up to %s)' % (env['driver'], env.get('driverCuda', '?')))
if env.get('kernelModule'):
    say('kernel module: ' + env['kernelModule'])
say('nvcc: CUDA ' + env['nvcc'] if env.get('nvcc') else 'nvcc: not installed')

has_gpu = len(env['devices']) > 0
if not has_gpu:
    why = 'no GPU is visible in the sandbox (%s; kernel module: %s)' % (smi_error if not env.get('driver') else 'nvidia-smi lists no device', env.get('kernelModule') or 'none loaded')
    if required:
        problem('the task requires a GPU and ' + why)
    else:
        say(why)

if has_gpu:
    try:
        import ctypes
        ctypes.CDLL('libcuda.so.1')
    except OSError as e:
        problem('the CUDA driver library does not load: %s' % e)

TORCH_PROBE = r'''
import json, sys
try:
    import torch
except ModuleNotFoundError as e:
    if e.name == 'torch':
        print(json.dumps({'absent': True})); sys.exit(0)
    print(json.dumps({'error': '%s: %s' % (type(e).__name__, e)})); sys.exit(0)
except Exception as e:
    print(json.dumps({'error': '%s: %s' % (type(e).__name__, e)})); sys.exit(0)
info = {'version': str(torch.__version__), 'cuda': torch.version.cuda}
try:
    info['available'] = bool(torch.cuda.is_available())
except Exception as e:
    info['available'] = False
    info['initError'] = str(e)
try:
    info['archList'] = list(torch.cuda.get_arch_list())
except Exception:
    info['archList'] = []
if info['available']:
    try:
        info['device'] = torch.cuda.get_device_name(0)
    except Exception as e:
        info['initError'] = str(e)
elif info['cuda'] and 'initError' not in info:
    try:
        torch.cuda.init()
    except Exception as e:
        info['initError'] = str(e)
try:
    v = torch.backends.cudnn.version()
    if v:
        info['cudnn'] = int(v)
except Exception as e:
    info['cudnnError'] = str(e)
print(json.dumps(info))
'''
try:
    r = subprocess.run([sys.executable, '-c', TORCH_PROBE], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    rc, out = r.returncode, r.stdout
    for line in r.stderr.splitlines()[-40:]:
        print(line, flush=True)
except (OSError, subprocess.TimeoutExpired) as e:
    rc, out = None, str(e)
try:
    torch_info = json.loads(last_line(out))
except ValueError:
    torch_info = {'error': last_line(out) or 'the torch probe printed nothing (exit %s)' % rc}
if torch_info.get('error'):
    problem('torch does not import: ' + torch_info['error'])
elif not torch_info.get('absent'):
    t = torch_info
    fw = {'name': 'torch', 'version': t['version'], 'available': bool(t.get('available'))}
    for key in ('cuda', 'archList', 'device', 'cudnn'):
        if t.get(key):
            fw[key] = t[key]
    env['frameworks'].append(fw)
    say('torch %s built for CUDA %s; torch.cuda.is_available() is %s' % (t['version'], t.get('cuda') or 'none (CPU-only)', bool(t.get('available'))))
    gpu_name = env['devices'][0]['name'] if has_gpu else None
    if has_gpu and (not t.get('cuda') or '+cpu' in t['version']):
        problem('torch %s is a CPU-only build (torch.version.cuda is None, torch.cuda.is_available() is False) on a machine with a GPU (%s)' % (t['version'], gpu_name))
    elif has_gpu and t.get('cuda') and env.get('driverCuda'):
        need, have = version_tuple(t['cuda']), version_tuple(env['driverCuda'])
        if need[:1] > have[:1] or (need > have and need[0] < 11):
            problem('the NVIDIA driver %s supports CUDA up to %s, older than CUDA %s that torch %s was built for' % (env.get('driver'), env['driverCuda'], t['cuda'], t['version']))
        elif need > have:
            note('torch %s was built for CUDA %s and the driver supports CUDA up to %s: it relies on CUDA minor version compatibility (no PTX JIT)' % (t['version'], t['cuda'], env['driverCuda']))
    if has_gpu and t.get('cuda') and t.get('archList'):
        for d in env['devices']:
            cap = d.get('computeCapability')
            if not cap:
                continue
            major, minor = version_tuple(cap)
            ok = False
            for arch in t['archList']:
                m = re.match(r'^(sm|compute)_(\d+)(\d)a?$', arch)
                if not m:
                    continue
                a_major, a_minor = int(m.group(2)), int(m.group(3))
                if m.group(1) == 'sm' and a_major == major and a_minor <= minor:
                    ok = True
                if m.group(1) == 'compute' and (a_major, a_minor) <= (major, minor):
                    ok = True
            if not ok:
                problem('torch %s has no kernels for %s (compute capability %s, sm_%d%d): it was built for %s' % (t['version'], d['name'], cap, major, minor, ' '.join(t['archList'])))
    if t.get('initError') and has_gpu and t.get('cuda'):
        problem('torch.cuda.init() failed: ' + t['initError'])
    elif has_gpu and t.get('cuda') and not t.get('available') and not env['problems']:
        problem('torch %s was built for CUDA %s but torch.cuda.is_available() is False' % (t['version'], t['cuda']))

say('json ' + json.dumps(env, sort_keys=True))
sys.exit(1 if mode == 'check' and env['problems'] else 0)
`;

/** Without python3: what nvidia-smi says, and an error when a required GPU is not visible. */
function shellFallback(options: GpuCheckOptions): string {
  const fail = options.required && options.mode === 'check' ? 'exit 1' : 'exit 0';
  const p = GPU_CHECK_PREFIX;
  return [
    `  echo '${p} warning: python3 is not installed: only nvidia-smi was asked (no framework checks)'`,
    '  if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L; then exit 0; fi',
    options.required
      ? `  echo '${p} error: the task requires a GPU and no GPU is visible in the sandbox (nvidia-smi lists no device)'`
      : `  echo '${p} no GPU is visible in the sandbox'`,
    `  ${fail}`,
  ].join('\n');
}

/** The GPU check as one bash script (a recipe step, or the harness's record). */
export function gpuCheckScript(options: GpuCheckOptions): string {
  const proc = options.procVersion ?? '/proc/driver/nvidia/version';
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  return [
    '(',
    ...(options.envFile ? [`  if [ -f ${q(options.envFile)} ]; then . ./${options.envFile}; fi`] : []),
    '  if ! command -v python3 > /dev/null 2>&1; then',
    shellFallback(options),
    '  fi',
    `  python3 - ${options.required ? 1 : 0} ${options.mode} ${q(proc)} <<'BUILDBENCH_GPU_CHECK'`,
    CHECK_PY.trim(),
    'BUILDBENCH_GPU_CHECK',
    ')',
  ].join('\n');
}

/** The environment from the check's output (its `json` line); undefined when the check printed none. */
export function parseGpuCheck(output: string): GpuEnvironment | undefined {
  const marker = `${GPU_CHECK_PREFIX} json `;
  const line = output
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(marker));
  if (!line) return undefined;
  try {
    const raw = JSON.parse(line.slice(marker.length)) as Partial<GpuEnvironment>;
    return {
      devices: Array.isArray(raw.devices) ? raw.devices : [],
      ...(raw.driver ? { driver: raw.driver } : {}),
      ...(raw.driverCuda ? { driverCuda: raw.driverCuda } : {}),
      ...(raw.kernelModule ? { kernelModule: raw.kernelModule } : {}),
      ...(raw.nvcc ? { nvcc: raw.nvcc } : {}),
      frameworks: Array.isArray(raw.frameworks) ? raw.frameworks : [],
      problems: Array.isArray(raw.problems) ? raw.problems : [],
      notes: Array.isArray(raw.notes) ? raw.notes : [],
    };
  } catch {
    return undefined;
  }
}

/**
 * Runs the check in report mode in `sandbox` (after the setup, for result.json and the RUNBOOK). Never throws
 * for what the check finds; a sandbox without python3 gives what nvidia-smi printed as a note.
 */
export async function detectGpuEnvironment(
  sandbox: Pick<Sandbox, 'exec'>,
  options: Omit<GpuCheckOptions, 'mode'> & { timeoutMs?: number; signal?: AbortSignal },
): Promise<GpuEnvironment> {
  const result = await sandbox.exec(gpuCheckScript({ ...options, mode: 'report' }), {
    timeoutMs: options.timeoutMs ?? 10 * 60_000,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const parsed = parseGpuCheck(result.output);
  if (parsed) return parsed;
  const lines = result.output
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(-5);
  return {
    devices: [],
    frameworks: [],
    problems: [],
    notes: [
      `the GPU check printed no record (exit ${result.exitCode}${result.timedOut ? ', timed out' : ''}): ${lines.join(' | ')}`,
    ],
  };
}

/** One line for the RUNBOOK's Environment: devices, driver, CUDA, toolkit and frameworks. */
export function describeGpuEnvironment(env: GpuEnvironment): string {
  const devices =
    env.devices.length > 0
      ? env.devices
          .map(
            (d) =>
              `${d.name}${d.memory ? ` (${d.memory}` : ''}${d.computeCapability ? `${d.memory ? ', ' : ' ('}compute capability ${d.computeCapability}` : ''}${d.memory || d.computeCapability ? ')' : ''}`,
          )
          .join(', ')
      : 'no GPU visible';
  const parts = [
    devices,
    env.driver ? `driver ${env.driver}${env.driverCuda ? ` (CUDA up to ${env.driverCuda})` : ''}` : undefined,
    env.nvcc ? `nvcc ${env.nvcc}` : 'no nvcc',
    ...env.frameworks.map(
      (f) =>
        `${f.name} ${f.version} (${f.cuda ? `CUDA ${f.cuda}` : 'CPU-only'}, ${f.available ? 'sees the GPU' : 'does not see a GPU'})`,
    ),
  ].filter((p): p is string => p !== undefined);
  return parts.join('; ');
}

// ---------------------------------------------------------------------------------------------------------
// Evidence that a target used the GPU (layer-2 `gpu:` expectation, layer2.ts)

/** The nvidia-smi query a check samples while its command runs. */
export const COMPUTE_APPS_QUERY = [
  '--query-compute-apps=pid,process_name,used_memory',
  '--format=csv,noheader',
] as const;
/** …and the device memory, for when the driver hides other pid namespaces' processes. */
export const MEMORY_QUERY = ['--query-gpu=index,memory.used', '--format=csv,noheader,nounits'] as const;

export interface ComputeApp {
  pid: number;
  name: string;
  memory: string;
}

export interface GpuUseEvidence {
  /** Samples taken while the command ran. */
  samples: number;
  /** The strongest evidence in words, or undefined when there is none. */
  shown?: string;
  /** How strong: the target's own pid, its process name, or only device memory rising. */
  kind?: 'pid' | 'name' | 'memory';
}

function parseApp(line: string): ComputeApp | undefined {
  const m = /^\s*(\d+),\s*(.*?),\s*(\S.*?)\s*$/.exec(line);
  return m ? { pid: Number(m[1]), name: m[2]!, memory: m[3]! } : undefined;
}

/**
 * The sampler's file (layer2.ts's check script): `# sample <ms>` starts a sample, then nvidia-smi's compute-apps
 * lines, `mem <index>, <MiB>` lines of device memory, and `proc <pid> <comm>` lines for the command's own
 * processes (its process group, as the sandbox's pid namespace sees them). `before` is the compute-apps and
 * `mem` lines taken just before the command started.
 */
export function gpuUseEvidence(samplesText: string, before: string): GpuUseEvidence {
  const beforeApps = new Set(
    before
      .split('\n')
      .map(parseApp)
      .filter((a): a is ComputeApp => a !== undefined)
      .map((a) => a.pid),
  );
  const memBefore = new Map<string, number>();
  for (const m of before.matchAll(/^mem (\d+),\s*(\d+)\s*$/gm)) memBefore.set(m[1]!, Number(m[2]));
  const samples: { apps: ComputeApp[]; procs: Map<number, string>; mem: Map<string, number> }[] = [];
  for (const line of samplesText.split('\n')) {
    if (line.startsWith('# sample')) {
      samples.push({ apps: [], procs: new Map(), mem: new Map() });
      continue;
    }
    const current = samples[samples.length - 1];
    if (!current) continue;
    const proc = /^proc (\d+) (.*)$/.exec(line);
    const mem = /^mem (\d+),\s*(\d+)\s*$/.exec(line);
    if (proc) current.procs.set(Number(proc[1]), proc[2]!);
    else if (mem) current.mem.set(mem[1]!, Number(mem[2]));
    else {
      const app = parseApp(line);
      if (app) current.apps.push(app);
    }
  }
  const count = samples.length;
  const inSamples = (n: number): string => `in ${n} of ${count} sample${count === 1 ? '' : 's'}`;
  const own = samples.flatMap((s) => s.apps.filter((a) => s.procs.has(a.pid)));
  if (own.length > 0) {
    const first = own[0]!;
    const hits = samples.filter((s) => s.apps.some((a) => s.procs.has(a.pid))).length;
    return {
      samples: count,
      kind: 'pid',
      shown: `the target's process ${first.pid} (${first.name}) was a compute process on the GPU (${first.memory}) ${inSamples(hits)}`,
    };
  }
  const baseName = (name: string): string => (name.split('/').pop() ?? name).slice(0, 15);
  const named = samples.flatMap((s) =>
    s.apps.filter((a) => !beforeApps.has(a.pid) && [...s.procs.values()].includes(baseName(a.name))),
  );
  if (named.length > 0) {
    const first = named[0]!;
    return {
      samples: count,
      kind: 'name',
      shown: `a compute process named ${first.name} (${first.memory}; pid ${first.pid} as the driver reports it) appeared while the target ran a process of that name (matched by name: the sandbox's pid namespace hides the driver's pids)`,
    };
  }
  if (samples.every((s) => s.apps.length === 0)) {
    for (const s of samples) {
      for (const [index, used] of s.mem) {
        const was = memBefore.get(index);
        if (was !== undefined && used - was >= 64) {
          return {
            samples: count,
            kind: 'memory',
            shown: `GPU ${index}'s memory in use rose from ${was} to ${used} MiB while the target ran (weaker evidence: nvidia-smi shows no compute processes in this sandbox, so the process is not identified)`,
          };
        }
      }
    }
  }
  return { samples: count };
}
