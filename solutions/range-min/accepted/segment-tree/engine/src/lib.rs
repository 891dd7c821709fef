//! range-min, another approach: a segment tree, stored bottom-up in one array (leaves at
//! size .. 2 * size); a query climbs from both ends of the range towards the root, taking the
//! minimum of the nodes that lie wholly inside it: O(log n) per query.
mod abi;

#[no_mangle]
pub extern "C" fn range_minimums(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let values = abi::ints(input, "values");
    let queries = abi::ints(input, "queries");
    let size = values.len().max(1);
    let mut tree = vec![i64::MAX; 2 * size];
    tree[size..size + values.len()].copy_from_slice(&values);
    for node in (1..size).rev() {
        tree[node] = tree[2 * node].min(tree[2 * node + 1]);
    }
    let mut minimums = Vec::with_capacity(queries.len() / 2);
    for query in queries.chunks_exact(2) {
        let (mut left, mut right) = (query[0] as usize + size, query[1] as usize + size);
        let mut least = i64::MAX;
        while left < right {
            if left & 1 == 1 {
                least = least.min(tree[left]);
                left += 1;
            }
            if right & 1 == 1 {
                right -= 1;
                least = least.min(tree[right]);
            }
            left /= 2;
            right /= 2;
        }
        minimums.push(least);
    }
    abi::answer(format!("{{\"minimums\":{}}}", abi::json_ints(&minimums)))
}
