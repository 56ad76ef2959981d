#!/usr/bin/env bash
# The real-GPU check of issue 15, prepared for the day a machine with an NVIDIA GPU is lent (the `device`
# tool) or for a self-hosted GPU runner. NOT run in CI (no GPU there). Run from the repository root:
#
#   OUT=/tmp/gpu-check bash scripts/gpu-device-check.sh
#
# It prints, and keeps under $OUT: the machine (nvidia-smi, /proc/driver/nvidia/version, nvcc, the driver's
# libraries), the GPU check of src/verify/gpu.ts (when lib/ is built and node is there), the fixture
# tasks/gpu/torch-gpu-check run as its verifier would (nvidia-smi's compute apps sampled every
# 0.5 s while it runs, the target's pids alongside), and — when `buildbench deploy` exists and node_modules
# is installed — the whole deploy in the host sandbox. The last line is the verdict:
#   GPU CHECK: PASS (…evidence…) | GPU CHECK: FAIL (…why…)
# Exit status: 0 pass, 1 fail, 2 could not run (no GPU, no PyTorch).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/gpu-device-check-out}
FIX=$ROOT/tasks/gpu/torch-gpu-check
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu-device-check.log") 2>&1

section() { printf '\n=== %s ===\n' "$*"; }
verdict() {
  echo
  echo "GPU CHECK: $1"
  exit "$2"
}

section "machine"
uname -a
if command -v nvidia-smi > /dev/null 2>&1; then
  nvidia-smi
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader
else
  echo 'nvidia-smi: not installed'
fi
cat /proc/driver/nvidia/version 2> /dev/null || echo '/proc/driver/nvidia/version: absent (no NVIDIA kernel module)'
ls -l /dev/nvidia* 2> /dev/null || echo '/dev/nvidia*: none'
(command -v nvcc > /dev/null && nvcc --version) || ([ -x /usr/local/cuda/bin/nvcc ] && /usr/local/cuda/bin/nvcc --version) || echo 'nvcc: not installed'
ldconfig -p 2> /dev/null | grep -E 'libcuda\.so|libnvidia-ml' || echo 'ldconfig: no libcuda'
command -v docker > /dev/null && docker info --format '{{json .Runtimes}} CDI: {{json .CDISpecDirs}}' 2> /dev/null
ls /etc/cdi /var/run/cdi 2> /dev/null

if ! ls /dev/nvidia[0-9]* > /dev/null 2>&1; then
  verdict "FAIL (could not run: this machine has no NVIDIA GPU device node)" 2
fi

section "the GPU check (src/verify/gpu.ts)"
if command -v node > /dev/null 2>&1 && [ -f "$ROOT/lib/verify/gpu.js" ]; then
  node --input-type=module -e "
    const m = await import('$ROOT/lib/verify/gpu.js');
    process.stdout.write(m.gpuCheckScript({ required: true, mode: 'report' }));
  " > "$OUT/gpu-check.sh" && bash "$OUT/gpu-check.sh" | tee "$OUT/gpu-check.out"
else
  echo 'skipped: needs node and lib/ (npm run build)'
fi

section "PyTorch"
if ! python3 -c 'import torch' > /dev/null 2>&1; then
  echo 'torch is not importable; trying pip install -r requirements.txt (needs a reachable index)…'
  timeout 900 python3 -m pip install -r "$FIX/artifact/requirements.txt" || true
fi
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' ||
  verdict "FAIL (could not run: PyTorch is not installed and could not be installed)" 2

section "the target, sampled as the layer-2 verifier samples it"
WORK=$OUT/work
rm -rf "$WORK" && cp -r "$FIX/artifact" "$WORK"
(cd "$WORK" && exec python3 gpu_check.py --seconds 5) > "$OUT/target.out" 2>&1 &
pid=$!
: > "$OUT/samples.txt"
while kill -0 "$pid" 2> /dev/null; do
  {
    echo "# sample $(date +%s.%N)"
    nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader 2>&1
    echo "target pid $pid"
  } >> "$OUT/samples.txt"
  sleep 0.5
done
wait "$pid"
rc=$?
cat "$OUT/target.out"
echo "exit code $rc"
cat "$WORK/results.json" 2> /dev/null
seen=$(grep -E "^${pid}," "$OUT/samples.txt" | head -n 1)
device=$(grep -E '^device: cuda:[0-9]+ \(.+\)$' "$OUT/target.out" | head -n 1)
echo "samples: $(grep -c '^# sample' "$OUT/samples.txt"); the target among the compute apps: ${seen:-no}"

section "buildbench deploy (the whole job, host sandbox)"
if command -v node > /dev/null 2>&1 && [ -d "$ROOT/node_modules" ] && node "$ROOT/bin/buildbench.js" deploy --help > /dev/null 2>&1; then
  CI=true node "$ROOT/bin/buildbench.js" deploy "$FIX/artifact" --task "$FIX/torch-gpu-check.yml" --sandbox host \
    --out "$OUT/deploy" || true
  [ -f "$OUT/deploy/result.json" ] && node -e "
    const r = JSON.parse(require('fs').readFileSync('$OUT/deploy/result.json', 'utf8'));
    console.log('status', r.status, '-', r.reason);
    console.log('environment.gpu', JSON.stringify(r.environment?.gpu));
    for (const c of r.verification?.layer2?.checks ?? r.verification?.hidden?.checks ?? []) console.log(c.name, c.passed, c.detail);
  "
else
  echo 'skipped: needs node, node_modules and the deploy command (issue 17)'
fi

if [ "$rc" -ne 0 ] || [ ! -s "$WORK/results.json" ]; then
  verdict "FAIL (the target exited $rc or left no results.json: $(tail -n 1 "$OUT/target.out"))" 1
fi
if [ -n "$seen" ]; then
  verdict "PASS (the target's process $pid was a compute process: $seen; ${device:-no device line})" 0
fi
if [ -n "$device" ]; then
  verdict "PASS (the target reported the device: $device; nvidia-smi did not list its pid)" 0
fi
verdict "FAIL (results.json was written but nothing shows the GPU was used)" 1
