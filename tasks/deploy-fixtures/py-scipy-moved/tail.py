"""A tiny "paper" written for SciPy 1.2: the upper tail of a binomial distribution, exactly (binomial
coefficients summed in log space), by its Poisson approximation and by simulation.

It takes comb, logsumexp and factorial from scipy.misc, aliases that SciPy 1.0 deprecated and 1.3 removed
(they live in scipy.special). Writes results.json.
Usage: python3 tail.py [trials]
"""
import json
import sys

import numpy as np
import scipy.misc
from scipy.misc import comb, logsumexp

N, P, K = 40, 0.1, 8


def log_tail(n, k, p):
    """log P(X >= k) for X ~ Binomial(n, p)."""
    j = np.arange(k, n + 1)
    return logsumexp(np.log(comb(n, j)) + j * np.log(p) + (n - j) * np.log1p(-p))


def poisson_tail(lam, k):
    """P(Y >= k) for Y ~ Poisson(lam)."""
    j = np.arange(k)
    return 1.0 - np.sum(np.exp(-lam) * lam**j / scipy.misc.factorial(j))


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    exact = float(np.exp(log_tail(N, K, P)))
    approx = float(poisson_tail(N * P, K))
    rng = np.random.RandomState(5)
    simulated = float(np.mean(rng.binomial(N, P, size=trials) >= K))
    with open("results.json", "w") as f:
        json.dump(
            {"trials": trials, "exact": exact, "poisson": approx, "simulated": simulated,
             "error": abs(simulated - exact)},
            f,
        )
    print("binomial tail P(X>=%d), n=%d p=%.2f: exact=%.4f poisson=%.4f simulated=%.4f (%d trials)"
          % (K, N, P, exact, approx, simulated, trials))


if __name__ == "__main__":
    main()
