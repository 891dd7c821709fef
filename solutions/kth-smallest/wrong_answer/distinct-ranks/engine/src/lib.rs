//! kth-smallest, a wrong answer on purpose: it drops repeated values before indexing, so it
//! answers the k-th smallest DIFFERENT value (and the largest one when k is past them).
//! `smoke/repeats.json` catches it.
mod abi;

#[no_mangle]
pub extern "C" fn select_kth(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let mut values = abi::ints(input, "values");
    let queries = abi::ints(input, "queries");
    values.sort_unstable();
    values.dedup();
    let answers: Vec<i64> = queries
        .iter()
        .map(|&k| *values.get((k - 1) as usize).unwrap_or(&values[values.len() - 1]))
        .collect();
    abi::answer(format!("{{\"answers\":{}}}", abi::json_ints(&answers)))
}
