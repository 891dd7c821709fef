//! rising, naive: the quadratic dynamic program.
mod abi;

#[no_mangle]
pub extern "C" fn longest_rise(pointer: i32, len: i32) -> i64 {
    let values = abi::ints(abi::input(pointer, len), "values");
    // best[i] is the length of the longest strictly rising run ending at values[i].
    let mut best = vec![1u32; values.len()];
    let mut longest = 0u32;
    for i in 0..values.len() {
        for j in 0..i {
            if values[j] < values[i] && best[j] + 1 > best[i] {
                best[i] = best[j] + 1;
            }
        }
        longest = longest.max(best[i]);
    }
    abi::answer(format!("{{\"length\":{}}}", longest))
}
