//! knapsack, the reference: the dynamic programme over capacities in one row. best[c] is the
//! largest value of a subset of the items seen so far that weighs at most c; an item of weight w
//! and value v makes best[c] = max(best[c], best[c - w] + v) for every c >= w, all from the row
//! before the item (so each item is counted once). Capacities beyond the total weight seen so far
//! hold the same value as that total, and are only filled in as the total grows.
mod abi;

#[no_mangle]
pub extern "C" fn pack_knapsack(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let capacity = abi::int(input, "capacity") as usize;
    let items = abi::ints(input, "items");
    let mut best = vec![0u32; capacity + 1];
    let mut before: Vec<u32> = Vec::with_capacity(capacity + 1);
    let mut reach = 0usize; // the total weight of the items so far, at most the capacity
    for item in items.chunks_exact(2) {
        let (weight, value) = (item[0] as usize, item[1] as u32);
        if weight > capacity {
            continue;
        }
        let grown = (reach + weight).min(capacity);
        let top = best[reach];
        best[reach + 1..=grown].fill(top);
        reach = grown;
        // the row before this item, for the capacities that can take it
        before.clear();
        before.extend_from_slice(&best[..=reach - weight]);
        for (slot, &without) in best[weight..=reach].iter_mut().zip(&before) {
            let taken = without + value;
            if taken > *slot {
                *slot = taken;
            }
        }
    }
    // best[reach] is the best over every subset that fits.
    abi::answer(format!("{{\"value\":{}}}", best[reach]))
}
