//! rising, fast: patience sorting, O(n log n).
mod abi;

#[no_mangle]
pub extern "C" fn longest_rise(pointer: i32, len: i32) -> i64 {
    let values = abi::ints(abi::input(pointer, len), "values");
    // tails[k] is the smallest last value of a strictly rising run of length k + 1.
    let mut tails: Vec<i64> = Vec::new();
    for value in values {
        let position = tails.partition_point(|tail| *tail < value);
        if position == tails.len() {
            tails.push(value);
        } else {
            tails[position] = value;
        }
    }
    abi::answer(format!("{{\"length\":{}}}", tails.len()))
}
