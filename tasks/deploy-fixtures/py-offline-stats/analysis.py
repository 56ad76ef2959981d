"""A tiny "paper": fit a line to noisy samples and report the estimate.

Usage: python3 analysis.py [samples]
Writes results.json with the fitted slope and intercept.
"""
import json
import sys

import numpy as np
import yaml


def main():
    with open("params.txt") as f:
        params = yaml.safe_load(f)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else int(params["samples"])
    rng = np.random.default_rng(params["seed"])
    x = rng.uniform(-1.0, 1.0, n)
    y = params["slope"] * x + params["intercept"] + rng.normal(0.0, params["noise"], n)
    slope, intercept = np.polyfit(x, y, 1)
    results = {"n": n, "slope": float(slope), "intercept": float(intercept), "numpy": np.__version__}
    with open("results.json", "w") as f:
        json.dump(results, f, indent=2)
    print(f"fitted {n} samples: slope={slope:.3f} intercept={intercept:.3f}")


if __name__ == "__main__":
    main()
