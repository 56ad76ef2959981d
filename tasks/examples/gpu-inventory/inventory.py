"""Lists the GPUs nvidia-smi reports and writes results.json (gpus, names, memory in MiB)."""
import json
import subprocess
import sys


def main() -> int:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader,nounits"],
            check=True, capture_output=True, text=True, timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError) as error:
        print(f"no GPU: {error}", file=sys.stderr)
        return 1
    gpus = []
    for line in out.splitlines():
        name, _, memory = line.rpartition(",")
        if name:
            gpus.append({"name": name.strip(), "memory_mib": int(memory.strip())})
    with open("results.json", "w", encoding="utf-8") as f:
        json.dump({"gpus": len(gpus), "devices": gpus}, f, indent=2)
    for gpu in gpus:
        print(f"gpu: {gpu['name']} ({gpu['memory_mib']} MiB)")
    return 0 if gpus else 1


if __name__ == "__main__":
    sys.exit(main())
