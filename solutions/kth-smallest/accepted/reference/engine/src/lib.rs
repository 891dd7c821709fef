//! kth-smallest, reference: sort the values once, then each query is an index.
mod abi;

#[no_mangle]
pub extern "C" fn select_kth(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let mut values = abi::ints(input, "values");
    let queries = abi::ints(input, "queries");
    values.sort_unstable();
    let answers: Vec<i64> = queries.iter().map(|&k| values[(k - 1) as usize]).collect();
    abi::answer(format!("{{\"answers\":{}}}", abi::json_ints(&answers)))
}
