//! max-subarray, reference: Kadane's scan. `run` is the best sum of a subarray ending at the
//! current index, started as early as possible: it extends the previous run while that run's sum
//! is not negative (a zero-sum run keeps the earlier start), and restarts otherwise. The best is
//! replaced only by a strictly larger sum, which keeps the earliest start, then the shortest.
mod abi;

#[no_mangle]
pub extern "C" fn find_best_run(pointer: i32, len: i32) -> i64 {
    let values = abi::ints(abi::input(pointer, len), "values");
    let (mut best, mut best_start, mut best_end) = (values[0], 0usize, 0usize);
    let (mut run, mut run_start) = (values[0], 0usize);
    for (index, &value) in values.iter().enumerate().skip(1) {
        if run >= 0 {
            run += value;
        } else {
            run = value;
            run_start = index;
        }
        if run > best {
            best = run;
            best_start = run_start;
            best_end = index;
        }
    }
    abi::answer(format!("{{\"sum\":{},\"start\":{},\"end\":{}}}", best, best_start, best_end))
}
