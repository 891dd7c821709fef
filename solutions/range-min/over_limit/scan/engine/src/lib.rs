//! range-min, the slow way: scan every value of every range. Correct, and quick when the ranges
//! are short; when each range covers most of the array it reads the whole array per query.
mod abi;

#[no_mangle]
pub extern "C" fn range_minimums(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let values = abi::ints(input, "values");
    let queries = abi::ints(input, "queries");
    let minimums: Vec<i64> = queries
        .chunks_exact(2)
        .map(|query| {
            let mut least = values[query[0] as usize];
            for index in query[0] as usize + 1..query[1] as usize {
                if values[index] < least {
                    least = values[index];
                }
            }
            least
        })
        .collect();
    abi::answer(format!("{{\"minimums\":{}}}", abi::json_ints(&minimums)))
}
