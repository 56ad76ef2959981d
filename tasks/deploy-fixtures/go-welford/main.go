// A tiny "paper": the mean and variance of a deterministic series computed two ways (two-pass and
// Welford's online update), checked to agree with go-cmp's approximate equality, written to results.json.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

type stats struct {
	N        int     `json:"n"`
	Mean     float64 `json:"mean"`
	Variance float64 `json:"variance"`
}

func series(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = math.Sin(float64(i)) * 10
	}
	return xs
}

func twoPass(xs []float64) stats {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return stats{len(xs), mean, ss / float64(len(xs)-1)}
}

func welford(xs []float64) stats {
	mean, m2 := 0.0, 0.0
	for i, x := range xs {
		d := x - mean
		mean += d / float64(i+1)
		m2 += d * (x - mean)
	}
	return stats{len(xs), mean, m2 / float64(len(xs)-1)}
}

func main() {
	n := 100000
	if len(os.Args) > 1 {
		if v, err := strconv.Atoi(os.Args[1]); err == nil && v > 1 {
			n = v
		}
	}
	xs := series(n)
	a, b := twoPass(xs), welford(xs)
	agree := cmp.Equal(a, b, cmpopts.EquateApprox(1e-9, 1e-12))
	out, _ := json.Marshal(map[string]any{"n": n, "mean": b.Mean, "variance": b.Variance, "agree": agree})
	if err := os.WriteFile("results.json", append(out, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("n=%d mean=%.6f variance=%.6f agree=%v\n", n, b.Mean, b.Variance, agree)
}
