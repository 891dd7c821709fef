//! range-sums, naive: add up every range from scratch.
mod abi;

#[no_mangle]
pub extern "C" fn sum_ranges(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let values = abi::ints(input, "values");
    let bounds = abi::ints(input, "queries");
    let mut sums = Vec::with_capacity(bounds.len() / 2);
    for pair in bounds.chunks(2) {
        let mut total = 0i64;
        for index in pair[0] as usize..pair[1] as usize {
            total += values[index];
        }
        sums.push(total);
    }
    abi::answer(format!("{{\"sums\":{}}}", abi::json_ints(&sums)))
}
