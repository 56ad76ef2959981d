//! Counts the primes below N (Eratosthenes) and writes `results.json` with N and the count.
//! The integers are formatted with the `itoa` crate, the one dependency (Debian: librust-itoa-dev).
use std::env;
use std::fs;

fn count_primes(n: usize) -> usize {
    if n < 3 {
        return 0;
    }
    let mut composite = vec![false; n];
    let mut count = 0;
    for i in 2..n {
        if !composite[i] {
            count += 1;
            let mut j = i * i;
            while j < n {
                composite[j] = true;
                j += i;
            }
        }
    }
    count
}

fn main() {
    let n: usize = env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let primes = count_primes(n);
    let mut a = itoa::Buffer::new();
    let mut b = itoa::Buffer::new();
    let json = format!("{{\"n\": {}, \"primes\": {}}}\n", a.format(n), b.format(primes));
    fs::write("results.json", &json).expect("cannot write results.json");
    println!("primes below {}: {}", n, primes);
}
