//! recurrence, a wrong answer on purpose: the reference's matrix powers, but the companion
//! matrix takes the coefficients in the wrong order — c_1 with the oldest of the last d terms and
//! c_d with the newest — a slip of indices. Right when the coefficients read the same both ways
//! (Fibonacci's 1, 1), and when every query is one of the initial terms; a smoke input with
//! lopsided coefficients catches it.
mod abi;

const MODULUS: u64 = 998_244_353;
/// Products of two residues are below MODULUS^2 < 2^60; sums are kept below this bound by one
/// subtraction each, and reduced once at the end.
const SQUARE: u64 = MODULUS * MODULUS;

type Matrix = Vec<u64>; // d × d, row by row

fn multiply(a: &Matrix, b: &Matrix, d: usize) -> Matrix {
    let mut product = vec![0u64; d * d];
    for i in 0..d {
        for j in 0..d {
            let mut sum = 0u64;
            for k in 0..d {
                sum += a[i * d + k] * b[k * d + j];
                if sum >= SQUARE {
                    sum -= SQUARE;
                }
            }
            product[i * d + j] = sum % MODULUS;
        }
    }
    product
}

/// The row vector v times the matrix m.
fn apply(v: &[u64], m: &Matrix, d: usize) -> Vec<u64> {
    (0..d)
        .map(|j| {
            let mut sum = 0u64;
            for k in 0..d {
                sum += v[k] * m[k * d + j];
                if sum >= SQUARE {
                    sum -= SQUARE;
                }
            }
            sum % MODULUS
        })
        .collect()
}

/// The decimal strings of the array `queries` (digits only).
fn queries(input: &[u8]) -> Vec<u64> {
    abi::strings(input, "queries")
        .iter()
        .map(|digits| digits.iter().fold(0u64, |n, &c| n * 10 + (c - b'0') as u64))
        .collect()
}

#[no_mangle]
pub extern "C" fn nth_terms(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let coefficients: Vec<u64> = abi::ints(input, "coefficients").iter().map(|&c| c as u64).collect();
    let initial: Vec<u64> = abi::ints(input, "initial").iter().map(|&a| a as u64).collect();
    let wanted = queries(input);
    let d = coefficients.len();
    let mut step: Matrix = vec![0u64; d * d];
    for j in 0..d - 1 {
        step[(j + 1) * d + j] = 1; // the entries shift down by one
    }
    for (i, &c) in coefficients.iter().enumerate() {
        step[i * d + d - 1] = c; // (the mistake: a_{n+d} = Σ c_{i+1} a_{n+i})
    }
    let top = wanted.iter().copied().max().unwrap_or(0);
    let bits = (64 - top.leading_zeros()) as usize;
    let mut powers: Vec<Matrix> = Vec::with_capacity(bits);
    for bit in 0..bits {
        let next = if bit == 0 { step.clone() } else { multiply(&powers[bit - 1], &powers[bit - 1], d) };
        powers.push(next);
    }
    let terms: Vec<i64> = wanted
        .iter()
        .map(|&n| {
            let mut v = initial.clone();
            for (bit, power) in powers.iter().enumerate() {
                if n >> bit & 1 == 1 {
                    v = apply(&v, power, d);
                }
            }
            v[0] as i64
        })
        .collect();
    abi::answer(format!("{{\"terms\":{}}}", abi::json_ints(&terms)))
}
