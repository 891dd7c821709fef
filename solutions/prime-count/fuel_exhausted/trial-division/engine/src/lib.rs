//! prime-count, trial division: correct, but it tests every number up to the largest query on
//! its own, dividing it by 2, 3, 4, … up to its square root; a prime pays for every divisor.
mod abi;

fn is_prime(n: u32) -> bool {
    if n < 2 {
        return false;
    }
    let mut divisor = 2;
    while divisor * divisor <= n {
        if n % divisor == 0 {
            return false;
        }
        divisor += 1;
    }
    true
}

#[no_mangle]
pub extern "C" fn count_primes(pointer: i32, len: i32) -> i64 {
    let queries = abi::ints(abi::input(pointer, len), "queries");
    let top = queries.iter().copied().max().unwrap_or(0) as u32;
    // count[n] is the number of primes <= n.
    let mut count = vec![0u32; top as usize + 1];
    let mut running = 0u32;
    for n in 0..=top {
        if is_prime(n) {
            running += 1;
        }
        count[n as usize] = running;
    }
    let counts: Vec<i64> = queries.iter().map(|&n| count[n as usize] as i64).collect();
    abi::answer(format!("{{\"counts\":{}}}", abi::json_ints(&counts)))
}
