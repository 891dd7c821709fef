//! binomial-queries, accepted: no modular power at all. The inverses of 1 … N by the linear
//! recurrence 1/i = -(p div i) · 1/(p mod i) (mod p), which holds because
//! p = (p div i) · i + (p mod i); the inverse factorials are their running products. Then each
//! query is C(n, k) = n! · (1/k!) · (1/(n - k)!). O(N + q), with a division per i.
mod abi;

const MODULUS: u64 = 1_000_000_007;

#[no_mangle]
pub extern "C" fn binomials(pointer: i32, len: i32) -> i64 {
    let flat = abi::ints(abi::input(pointer, len), "queries"); // [n, k] pairs, flattened
    let top = flat.chunks_exact(2).map(|q| q[0] as usize).max().unwrap_or(0);
    let mut factorial = vec![1u64; top + 1];
    let mut inverse_factorial = vec![1u64; top + 1];
    let mut inverse = vec![1u64; top.max(1) + 1]; // inverse[i] = 1 / i
    for i in 1..=top {
        if i > 1 {
            let i = i as u64;
            inverse[i as usize] = (MODULUS - MODULUS / i) * inverse[(MODULUS % i) as usize] % MODULUS;
        }
        factorial[i] = factorial[i - 1] * i as u64 % MODULUS;
        inverse_factorial[i] = inverse_factorial[i - 1] * inverse[i] % MODULUS;
    }
    let answers: Vec<i64> = flat
        .chunks_exact(2)
        .map(|q| {
            let (n, k) = (q[0] as usize, q[1] as usize);
            if k > n {
                0
            } else {
                (factorial[n] * inverse_factorial[k] % MODULUS * inverse_factorial[n - k] % MODULUS) as i64
            }
        })
        .collect();
    abi::answer(format!("{{\"answers\":{}}}", abi::json_ints(&answers)))
}
