//! recurrence, accepted: Kitamasa's method, polynomials instead of matrices. With
//! f(x) = x^d - c_1 x^{d-1} - … - c_d, every term a_n is Σ r_i a_i where x^n mod f(x) = Σ r_i x^i
//! (shifting by x is one step of the recurrence, and f(x) ≡ 0 is the recurrence itself). Each
//! query computes x^n mod f by squaring and multiplying by x, from its top bit down: d^2 work per
//! bit for the square and as much for the reduction. O(q d^2 log N), nothing shared.
mod abi;

const MODULUS: u64 = 998_244_353;
const SQUARE: u64 = MODULUS * MODULUS;

/// r(x)^2 mod f(x), where f(x) = x^d - Σ c_{i+1} x^{d-1-i}, so that x^d ≡ Σ c_{i+1} x^{d-1-i}.
fn square_mod(r: &[u64], coefficients: &[u64], wide: &mut Vec<u64>) -> Vec<u64> {
    let d = r.len();
    wide.clear();
    wide.resize(2 * d - 1, 0);
    for i in 0..d {
        if r[i] == 0 {
            continue;
        }
        for j in 0..d {
            let sum = wide[i + j] + r[i] * r[j];
            wide[i + j] = if sum >= SQUARE { sum - SQUARE } else { sum };
        }
    }
    let mut reduced: Vec<u64> = wide.iter().map(|&w| w % MODULUS).collect();
    // Fold every power from 2d - 2 down to d back into lower ones.
    for power in (d..2 * d - 1).rev() {
        let top = reduced[power];
        if top == 0 {
            continue;
        }
        for (i, &c) in coefficients.iter().enumerate() {
            let at = power - 1 - i;
            reduced[at] = (reduced[at] + top * c) % MODULUS;
        }
    }
    reduced.truncate(d);
    reduced
}

/// r(x) · x mod f(x).
fn shift_mod(r: &[u64], coefficients: &[u64]) -> Vec<u64> {
    let d = r.len();
    let top = r[d - 1];
    let mut shifted = vec![0u64; d];
    for i in (1..d).rev() {
        shifted[i] = r[i - 1];
    }
    for (i, &c) in coefficients.iter().enumerate() {
        shifted[d - 1 - i] = (shifted[d - 1 - i] + top * c) % MODULUS;
    }
    shifted
}

fn term(n: u64, coefficients: &[u64], initial: &[u64], wide: &mut Vec<u64>) -> u64 {
    let d = coefficients.len();
    if n < d as u64 {
        return initial[n as usize];
    }
    let mut r = vec![0u64; d];
    r[0] = 1; // x^0
    for bit in (0..64 - n.leading_zeros()).rev() {
        r = square_mod(&r, coefficients, wide);
        if n >> bit & 1 == 1 {
            r = shift_mod(&r, coefficients);
        }
    }
    let mut sum = 0u64;
    for i in 0..d {
        sum = (sum + r[i] * initial[i]) % MODULUS;
    }
    sum
}

#[no_mangle]
pub extern "C" fn nth_terms(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let coefficients: Vec<u64> = abi::ints(input, "coefficients").iter().map(|&c| c as u64).collect();
    let initial: Vec<u64> = abi::ints(input, "initial").iter().map(|&a| a as u64).collect();
    let mut wide = Vec::new();
    let terms: Vec<i64> = abi::strings(input, "queries")
        .iter()
        .map(|digits| {
            let n = digits.iter().fold(0u64, |n, &c| n * 10 + (c - b'0') as u64);
            term(n, &coefficients, &initial, &mut wide) as i64
        })
        .collect();
    abi::answer(format!("{{\"terms\":{}}}", abi::json_ints(&terms)))
}
