//! knapsack, wrong on purpose: the one-row programme with capacities running UPWARDS, so best[c - w]
//! may already hold the same item, and an item is taken as many times as it fits (the unbounded
//! knapsack).
mod abi;

#[no_mangle]
pub extern "C" fn pack_knapsack(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let capacity = abi::int(input, "capacity") as usize;
    let items = abi::ints(input, "items");
    let mut best = vec![0u64; capacity + 1];
    for item in items.chunks_exact(2) {
        let (weight, value) = (item[0] as usize, item[1] as u64);
        for room in weight..=capacity {
            best[room] = best[room].max(best[room - weight] + value);
        }
    }
    abi::answer(format!("{{\"value\":{}}}", best[capacity]))
}
