//! prime-count, odd sieve: 2 is the only even prime, so sieve the odd numbers alone (slot i
//! stands for 2i + 1), crossing out odd multiples only, and keep a running count per slot.
mod abi;

#[no_mangle]
pub extern "C" fn count_primes(pointer: i32, len: i32) -> i64 {
    let queries = abi::ints(abi::input(pointer, len), "queries");
    let top = queries.iter().copied().max().unwrap_or(0).max(1) as usize;
    let slots = (top - 1) / 2 + 1; // the odd numbers 1, 3, …, up to top
    let mut composite = vec![false; slots];
    composite[0] = true; // 1 is not a prime
    let mut slot = 1;
    loop {
        let factor = 2 * slot + 1;
        if factor * factor > top {
            break;
        }
        if !composite[slot] {
            // factor², then every other multiple: the odd ones, 2·factor apart, `factor` slots.
            let mut multiple = factor * factor / 2;
            while multiple < slots {
                composite[multiple] = true;
                multiple += factor;
            }
        }
        slot += 1;
    }
    // odd_primes[i] is the number of odd primes <= 2i + 1.
    let mut odd_primes = vec![0u32; slots];
    let mut running = 0u32;
    for index in 0..slots {
        if !composite[index] {
            running += 1;
        }
        odd_primes[index] = running;
    }
    let counts: Vec<i64> = queries
        .iter()
        .map(|&n| if n < 2 { 0 } else { 1 + odd_primes[((n - 1) / 2) as usize] as i64 })
        .collect();
    abi::answer(format!("{{\"counts\":{}}}", abi::json_ints(&counts)))
}
