//! knapsack, wrong on purpose: the greedy choice. Takes the items by value per unit of weight,
//! best first, each one that still fits; right for the fractional knapsack, not for this one.
mod abi;

#[no_mangle]
pub extern "C" fn pack_knapsack(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let mut room = abi::int(input, "capacity") as u64;
    let mut items: Vec<(u64, u64)> =
        abi::ints(input, "items").chunks_exact(2).map(|item| (item[0] as u64, item[1] as u64)).collect();
    // value_a / weight_a > value_b / weight_b, compared without division
    items.sort_by(|a, b| (b.1 * a.0).cmp(&(a.1 * b.0)));
    let mut total = 0;
    for (weight, value) in items {
        if weight <= room {
            room -= weight;
            total += value;
        }
    }
    abi::answer(format!("{{\"value\":{}}}", total))
}
