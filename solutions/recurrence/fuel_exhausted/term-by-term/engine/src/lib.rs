//! recurrence, slow: the recurrence itself, one term after another, up to the largest query
//! (the last d terms kept in a ring). Correct, and quick for n in the thousands, but it takes n
//! steps of d multiplications: n near 10^18 would take longer than anyone can wait.
mod abi;

const MODULUS: u64 = 998_244_353;

#[no_mangle]
pub extern "C" fn nth_terms(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let coefficients: Vec<u64> = abi::ints(input, "coefficients").iter().map(|&c| c as u64).collect();
    let initial: Vec<u64> = abi::ints(input, "initial").iter().map(|&a| a as u64).collect();
    let wanted: Vec<u64> = abi::strings(input, "queries")
        .iter()
        .map(|digits| digits.iter().fold(0u64, |n, &c| n * 10 + (c - b'0') as u64))
        .collect();
    let d = coefficients.len();
    // Queries in increasing order of n, answered as the terms go by.
    let mut order: Vec<usize> = (0..wanted.len()).collect();
    order.sort_unstable_by_key(|&q| wanted[q]);
    let mut terms = vec![0i64; wanted.len()];
    let mut ring = initial.clone(); // a_n … a_{n+d-1}, with a_m at ring[m % d]
    let (mut n, mut at) = (0u64, 0usize); // at = n mod d
    for q in order {
        while n < wanted[q] {
            // a_{n+d} = Σ c_{i+1} a_{n+d-1-i} takes the place of a_n, no longer needed.
            let mut next = 0u64;
            for i in 0..d {
                next = (next + coefficients[i] * ring[(at + d - 1 - i) % d]) % MODULUS;
            }
            ring[at] = next;
            n += 1;
            at = if at + 1 == d { 0 } else { at + 1 };
        }
        terms[q] = ring[at] as i64;
    }
    abi::answer(format!("{{\"terms\":{}}}", abi::json_ints(&terms)))
}
