//! Finds the start below N whose Collatz trajectory takes the most steps to reach 1, and writes
//! `results.json` with N, that start and its step count. The step counts of earlier starts are kept in a
//! table, so each trajectory stops as soon as it falls below its own start. The integers are formatted with
//! the `itoa` crate, the one dependency; Cargo.lock pins it at a release newer than Debian bookworm packages.
use std::env;
use std::fs;

/// The start below `n` with the longest trajectory (the smallest such start), and its number of steps.
fn longest_trajectory(n: u64) -> (u64, u32) {
    let mut steps = vec![0u32; n as usize];
    let mut best = (1, 0);
    for start in 2..n {
        let mut x = start;
        let mut k = 0u32;
        while x >= start {
            x = if x % 2 == 0 { x / 2 } else { 3 * x + 1 };
            k += 1;
        }
        let total = k + steps[x as usize];
        steps[start as usize] = total;
        if total > best.1 {
            best = (start, total);
        }
    }
    best
}

fn main() {
    let n: u64 = env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let (start, steps) = longest_trajectory(n.max(2));
    let mut a = itoa::Buffer::new();
    let mut b = itoa::Buffer::new();
    let mut c = itoa::Buffer::new();
    let json = format!(
        "{{\"n\": {}, \"start\": {}, \"steps\": {}}}\n",
        a.format(n),
        b.format(start),
        c.format(steps)
    );
    fs::write("results.json", &json).expect("cannot write results.json");
    println!("longest trajectory below {}: start {} takes {} steps", n, start, steps);
}
