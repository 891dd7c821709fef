//! max-subarray, prefix sums: the sum of values[i..=j] is prefix[j + 1] - prefix[i], so the best
//! run ending at j starts where the prefix before it is smallest. Keep the first position of the
//! smallest prefix seen so far (replaced only by a strictly smaller one: the earliest start) and
//! take a new best only when strictly larger (then the shortest run).
mod abi;

#[no_mangle]
pub extern "C" fn find_best_run(pointer: i32, len: i32) -> i64 {
    let values = abi::ints(abi::input(pointer, len), "values");
    let mut prefix = Vec::with_capacity(values.len() + 1);
    prefix.push(0i64);
    for &value in &values {
        prefix.push(prefix[prefix.len() - 1] + value);
    }
    let (mut lowest, mut lowest_at) = (prefix[0], 0usize);
    let (mut best, mut best_start, mut best_end) = (i64::MIN, 0usize, 0usize);
    for end in 0..values.len() {
        let sum = prefix[end + 1] - lowest;
        if sum > best {
            best = sum;
            best_start = lowest_at;
            best_end = end;
        }
        if prefix[end + 1] < lowest {
            lowest = prefix[end + 1];
            lowest_at = end + 1;
        }
    }
    abi::answer(format!("{{\"sum\":{},\"start\":{},\"end\":{}}}", best, best_start, best_end))
}
