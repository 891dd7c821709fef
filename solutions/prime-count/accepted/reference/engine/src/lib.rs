//! prime-count, reference: one sieve of Eratosthenes up to the largest query, then a running
//! count of primes, so each query is a lookup.
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
    // count[n] is the number of primes <= n.
    let mut count = vec![0u32; top + 1];
    let mut running = 0u32;
    for n in 2..=top {
        if !composite[n] {
            running += 1;
        }
        count[n] = running;
    }
    let counts: Vec<i64> = queries.iter().map(|&n| count[n as usize] as i64).collect();
    abi::answer(format!("{{\"counts\":{}}}", abi::json_ints(&counts)))
}
