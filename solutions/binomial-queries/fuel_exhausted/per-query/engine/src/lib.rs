//! binomial-queries, slow: each query on its own. C(n, k) = C(n, n - k), so with
//! m = min(k, n - k) it multiplies out n (n - 1) … (n - m + 1) and m!, and divides by the
//! second with one modular power (Fermat). Correct, and cheap when k is near 0 or n, but a
//! query costs m steps: tens of thousands of queries with n up to 10^6 and k anywhere cost
//! billions.
mod abi;

const MODULUS: u64 = 1_000_000_007;

fn power(mut base: u64, mut exponent: u64) -> u64 {
    let mut result = 1;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = result * base % MODULUS;
        }
        base = base * base % MODULUS;
        exponent >>= 1;
    }
    result
}

fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let m = k.min(n - k);
    let (mut above, mut below) = (1u64, 1u64);
    for i in 0..m {
        above = above * (n - i) % MODULUS;
        below = below * (i + 1) % MODULUS;
    }
    above * power(below, MODULUS - 2) % MODULUS
}

#[no_mangle]
pub extern "C" fn binomials(pointer: i32, len: i32) -> i64 {
    let flat = abi::ints(abi::input(pointer, len), "queries"); // [n, k] pairs, flattened
    let answers: Vec<i64> = flat.chunks_exact(2).map(|q| binomial(q[0] as u64, q[1] as u64) as i64).collect();
    abi::answer(format!("{{\"answers\":{}}}", abi::json_ints(&answers)))
}
