//! prime-count, a wrong answer on purpose: an off-by-one in the running count, which reads the
//! primes below n instead of the primes up to n (wrong whenever n is itself a prime).
//! `smoke/edges.json` (n = 2) catches it.
mod abi;

#[no_mangle]
pub extern "C" fn count_primes(pointer: i32, len: i32) -> i64 {
    let queries = abi::ints(abi::input(pointer, len), "queries");
    let top = queries.iter().copied().max().unwrap_or(0).max(1) as usize;
    let mut composite = vec![false; top + 1];
    let mut factor = 2;
    while factor * factor <= top {
        if !composite[factor] {
            let mut multiple = factor * factor;
            while multiple <= top {
                composite[multiple] = true;
                multiple += factor;
            }
        }
        factor += 1;
    }
    // below[n] is the number of primes < n.
    let mut below = vec![0u32; top + 1];
    let mut running = 0u32;
    for n in 0..=top {
        below[n] = running;
        if n >= 2 && !composite[n] {
            running += 1;
        }
    }
    let counts: Vec<i64> = queries.iter().map(|&n| below[n as usize] as i64).collect();
    abi::answer(format!("{{\"counts\":{}}}", abi::json_ints(&counts)))
}
