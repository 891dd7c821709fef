//! range-min, wrong on purpose: reads [l, r] as a closed range, so a query also sees the value
//! at its right end (when there is one), which may be smaller than every value inside.
mod abi;

#[no_mangle]
pub extern "C" fn range_minimums(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let values = abi::ints(input, "values");
    let queries = abi::ints(input, "queries");
    let minimums: Vec<i64> = queries
        .chunks_exact(2)
        .map(|query| {
            let last = (query[1] as usize).min(values.len() - 1);
            values[query[0] as usize..=last].iter().copied().min().unwrap()
        })
        .collect();
    abi::answer(format!("{{\"minimums\":{}}}", abi::json_ints(&minimums)))
}
