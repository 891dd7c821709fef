//! max-subarray, a wrong answer on purpose: the textbook Kadane that starts from an empty run of
//! sum 0, so when every value is negative it answers 0 instead of the largest value.
//! `smoke/all-negative.json` catches it.
mod abi;

#[no_mangle]
pub extern "C" fn find_best_run(pointer: i32, len: i32) -> i64 {
    let values = abi::ints(abi::input(pointer, len), "values");
    let (mut best, mut best_start, mut best_end) = (0i64, 0usize, 0usize);
    let (mut run, mut run_start) = (0i64, 0usize);
    for (index, &value) in values.iter().enumerate() {
        run += value;
        if run > best {
            best = run;
            best_start = run_start;
            best_end = index;
        }
        if run < 0 {
            run = 0;
            run_start = index + 1;
        }
    }
    abi::answer(format!("{{\"sum\":{},\"start\":{},\"end\":{}}}", best, best_start, best_end))
}
