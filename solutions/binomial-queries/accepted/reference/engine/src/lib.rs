//! binomial-queries, the reference: factorials up to the largest n asked, the inverse of the
//! last one by Fermat's little theorem (one modular power), and every other inverse factorial
//! from it downwards (1/i! = (i + 1) / (i + 1)!). Then each query is two multiplications:
//! C(n, k) = n! · (1/k!) · (1/(n - k)!). O(N + log p + q).
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

#[no_mangle]
pub extern "C" fn binomials(pointer: i32, len: i32) -> i64 {
    let flat = abi::ints(abi::input(pointer, len), "queries"); // [n, k] pairs, flattened
    let top = flat.chunks_exact(2).map(|q| q[0] as usize).max().unwrap_or(0);
    let mut factorial = vec![1u64; top + 1];
    for i in 1..=top {
        factorial[i] = factorial[i - 1] * i as u64 % MODULUS;
    }
    let mut inverse = vec![1u64; top + 1]; // inverse[i] = 1 / i!
    inverse[top] = power(factorial[top], MODULUS - 2);
    for i in (1..=top).rev() {
        inverse[i - 1] = inverse[i] * i as u64 % MODULUS;
    }
    let answers: Vec<i64> = flat
        .chunks_exact(2)
        .map(|q| {
            let (n, k) = (q[0] as usize, q[1] as usize);
            if k > n {
                0
            } else {
                (factorial[n] * inverse[k] % MODULUS * inverse[n - k] % MODULUS) as i64
            }
        })
        .collect();
    abi::answer(format!("{{\"answers\":{}}}", abi::json_ints(&answers)))
}
