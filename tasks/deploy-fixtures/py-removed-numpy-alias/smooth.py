"""A tiny "paper" written for NumPy 1.19: a moving-average filter over a noisy signal.

It uses the aliases np.float and np.int, which NumPy 1.20 deprecated and 1.24 removed.
Writes results.json with the residual error of the smoothed signal.
"""
import json
import sys

import numpy as np


def smooth(signal, width):
    kernel = np.ones(width, dtype=np.float) / width
    return np.convolve(signal, kernel, mode="same")


def main():
    n = np.int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = np.random.RandomState(3)
    t = np.linspace(0, 2 * np.pi, n)
    clean = np.sin(t)
    noisy = clean + rng.normal(0, 0.2, n)
    smoothed = smooth(noisy, 15)
    inner = slice(15, n - 15)
    error = float(np.sqrt(np.mean((smoothed[inner] - clean[inner]) ** 2)))
    with open("results.json", "w") as f:
        json.dump({"n": int(n), "rmse": error}, f)
    print("smoothed %d points: rmse=%.4f" % (n, error))


if __name__ == "__main__":
    main()
