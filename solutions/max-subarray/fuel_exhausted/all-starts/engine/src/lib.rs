//! max-subarray, every start: correct, but for each start it adds up every run that begins
//! there, so the work grows with the square of the array's length.
mod abi;

#[no_mangle]
pub extern "C" fn find_best_run(pointer: i32, len: i32) -> i64 {
    let values = abi::ints(abi::input(pointer, len), "values");
    let (mut best, mut best_start, mut best_end) = (i64::MIN, 0usize, 0usize);
    for start in 0..values.len() {
        let mut sum = 0i64;
        for end in start..values.len() {
            sum += values[end];
            if sum > best {
                best = sum;
                best_start = start;
                best_end = end;
            }
        }
    }
    abi::answer(format!("{{\"sum\":{},\"start\":{},\"end\":{}}}", best, best_start, best_end))
}
