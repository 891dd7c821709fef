//! knapsack, the slow way: try every subset of the items that fits (take or leave each item in
//! turn, dropping a branch once it is too heavy). Correct, and instant for a handful of items;
//! with fifty it has more subsets to visit than any fuel limit allows.
mod abi;

fn search(items: &[(u64, u64)], room: u64) -> u64 {
    match items.split_first() {
        None => 0,
        Some((&(weight, value), rest)) => {
            let left = search(rest, room);
            if weight <= room {
                left.max(value + search(rest, room - weight))
            } else {
                left
            }
        }
    }
}

#[no_mangle]
pub extern "C" fn pack_knapsack(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let capacity = abi::int(input, "capacity") as u64;
    let items: Vec<(u64, u64)> =
        abi::ints(input, "items").chunks_exact(2).map(|item| (item[0] as u64, item[1] as u64)).collect();
    abi::answer(format!("{{\"value\":{}}}", search(&items, capacity)))
}
