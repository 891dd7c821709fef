//! kth-smallest, radix: an LSD radix sort (four passes of 8 bits over keys that order as the
//! values do), then each query is an index. No comparisons at all.
mod abi;

#[no_mangle]
pub extern "C" fn select_kth(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let values = abi::ints(input, "values");
    let queries = abi::ints(input, "queries");
    // Every value fits an i32; flipping the sign bit makes unsigned order the signed order.
    let mut keys: Vec<u32> = values.iter().map(|&value| (value as i32 as u32) ^ 0x8000_0000).collect();
    let mut spare = vec![0u32; keys.len()];
    for shift in [0u32, 8, 16, 24] {
        let mut counts = [0usize; 257];
        for &key in &keys {
            counts[((key >> shift) & 0xff) as usize + 1] += 1;
        }
        for digit in 0..256 {
            counts[digit + 1] += counts[digit];
        }
        for &key in &keys {
            let digit = ((key >> shift) & 0xff) as usize;
            spare[counts[digit]] = key;
            counts[digit] += 1;
        }
        std::mem::swap(&mut keys, &mut spare);
    }
    let answers: Vec<i64> = queries
        .iter()
        .map(|&k| (keys[(k - 1) as usize] ^ 0x8000_0000) as i32 as i64)
        .collect();
    abi::answer(format!("{{\"answers\":{}}}", abi::json_ints(&answers)))
}
