//! binomial-queries, a wrong answer on purpose: the reference's tables, but each query multiplies
//! its three residues before reducing once: n! · (1/k!) · (1/(n - k)!) overflows 64 bits (and
//! wraps) whenever two of them are large. Right when k is 0 or n, where one factor is 1; a smoke
//! input with k strictly between catches it.
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
                (factorial[n] * inverse[k] * inverse[n - k] % MODULUS) as i64 // wraps in a release build
            }
        })
        .collect();
    abi::answer(format!("{{\"answers\":{}}}", abi::json_ints(&answers)))
}
