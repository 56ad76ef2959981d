"""A tiny GPU experiment: multiplies random matrices on the first CUDA device for a few seconds (long enough
for nvidia-smi to see the process), checks a product against the CPU, and writes results.json."""
import argparse
import json
import sys
import time

import torch


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0, help="keep the GPU busy this long")
    parser.add_argument("--size", type=int, default=4096)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print(f"CUDA is not available (torch {torch.__version__}, built for CUDA {torch.version.cuda})", file=sys.stderr)
        return 1
    dev = torch.device("cuda:0")
    name = torch.cuda.get_device_name(dev)
    print(f"device: {dev} ({name})", flush=True)

    n = args.size
    a = torch.randn(n, n, device=dev)
    b = torch.randn(n, n, device=dev)
    torch.cuda.synchronize()
    products = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        for _ in range(10):
            c = a @ b
        torch.cuda.synchronize()
        products += 10
    elapsed = time.perf_counter() - start
    tflops = products * 2 * n**3 / elapsed / 1e12

    torch.manual_seed(0)
    x = torch.randn(256, 256, dtype=torch.float64)
    y = torch.randn(256, 256, dtype=torch.float64)
    max_error = (x.to(dev) @ y.to(dev)).cpu().sub(x @ y).abs().max().item()
    print(f"matmul: {tflops:.1f} TFLOP/s, max error vs CPU {max_error:.2e}", flush=True)

    with open("results.json", "w") as f:
        json.dump(
            {
                "device": str(dev),
                "name": name,
                "capability": "%d.%d" % torch.cuda.get_device_capability(dev),
                "torch": torch.__version__,
                "cuda": torch.version.cuda,
                "products": products,
                "seconds": round(elapsed, 3),
                "tflops": round(tflops, 2),
                "max_error": max_error,
                "checksum": float(c[0, 0].item()),
            },
            f,
            indent=2,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
