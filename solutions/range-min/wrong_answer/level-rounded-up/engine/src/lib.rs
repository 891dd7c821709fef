//! range-min, wrong on purpose: a sparse table whose query picks the power of two at or ABOVE
//! the range's length (ceil(log2) instead of floor). The two runs then reach outside the range,
//! before its left end or past its right one, and may see a smaller value there.
mod abi;

#[no_mangle]
pub extern "C" fn range_minimums(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let values = abi::ints(input, "values");
    let queries = abi::ints(input, "queries");
    let n = values.len();
    let mut levels: Vec<Vec<i64>> = vec![values];
    let mut width = 1;
    while 2 * width <= n {
        let below = &levels[levels.len() - 1];
        let level: Vec<i64> = (0..=n - 2 * width).map(|i| below[i].min(below[i + width])).collect();
        levels.push(level);
        width *= 2;
    }
    let mut minimums = Vec::with_capacity(queries.len() / 2);
    for query in queries.chunks_exact(2) {
        let (left, right) = (query[0] as usize, query[1] as usize);
        let mut k = (right - left).next_power_of_two().trailing_zeros() as usize;
        while k >= levels.len() {
            k -= 1; // the widest run there is
        }
        let level = &levels[k];
        let first = left.min(level.len() - 1);
        let second = right.saturating_sub(1 << k).min(level.len() - 1);
        minimums.push(level[first].min(level[second]));
    }
    abi::answer(format!("{{\"minimums\":{}}}", abi::json_ints(&minimums)))
}
