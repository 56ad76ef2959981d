//! Counts the integer points (x, y) with x² + y² ≤ R² (Gauss's circle problem), column by column with an
//! integer square root, and writes `results.json` with R, the count and the estimate of π it gives. The
//! integers are formatted with the `itoa` crate, the one dependency (Debian: librust-itoa-dev).
use std::env;
use std::fs;

/// The largest y with y² ≤ n (Newton's method on integers).
fn isqrt(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut x = n;
    let mut y = (x + 1) / 2;
    while y < x {
        x = y;
        y = (x + n / x) / 2;
    }
    x
}

/// The lattice points in the closed disc of radius `r` centred on the origin.
fn lattice_points(r: u64) -> u64 {
    let rr = r * r;
    (0..=r).map(|x| 2 * isqrt(rr - x * x) + 1).sum::<u64>() * 2 - (2 * r + 1)
}

fn main() {
    let r: u64 = env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let points = lattice_points(r);
    let pi = points as f64 / (r * r).max(1) as f64;
    let mut a = itoa::Buffer::new();
    let mut b = itoa::Buffer::new();
    let json = format!(
        "{{\"r\": {}, \"points\": {}, \"pi_estimate\": {:.6}}}\n",
        a.format(r),
        b.format(points),
        pi
    );
    fs::write("results.json", &json).expect("cannot write results.json");
    println!("lattice points within radius {}: {} (pi ~ {:.6})", r, points, pi);
}
