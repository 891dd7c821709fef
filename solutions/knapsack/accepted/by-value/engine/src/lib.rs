//! knapsack, another approach: the dynamic programme over values. lightest[t] is the least
//! weight of a subset of the items seen so far whose values add up to exactly t (or "none");
//! the answer is the largest t whose lightest subset fits. The table has one entry per unit of
//! total value, so it is small when values are small, whatever the capacity.
mod abi;

const NONE: u32 = u32::MAX / 2; // "none", and none + a weight does not overflow

#[no_mangle]
pub extern "C" fn pack_knapsack(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let capacity = abi::int(input, "capacity") as u32;
    let items = abi::ints(input, "items");
    let total: usize = items.chunks_exact(2).map(|item| item[1] as usize).sum();
    let mut lightest = vec![NONE; total + 1];
    lightest[0] = 0;
    let mut before: Vec<u32> = Vec::with_capacity(total + 1);
    let mut reach = 0usize; // the total value of the items so far
    for item in items.chunks_exact(2) {
        let (weight, value) = (item[0] as u32, item[1] as usize);
        if weight > capacity {
            continue;
        }
        reach += value;
        before.clear();
        before.extend_from_slice(&lightest[..=reach - value]);
        for (slot, &without) in lightest[value..=reach].iter_mut().zip(&before) {
            let taken = without + weight;
            if taken < *slot {
                *slot = taken;
            }
        }
    }
    let best = (0..=reach).rev().find(|&target| lightest[target] <= capacity).unwrap_or(0);
    abi::answer(format!("{{\"value\":{}}}", best))
}
