//! pair-sums, a wrong answer on purpose: for each index i, the later indices j holding
//! `target - values[i]`, but looked up among all values, so every pair is counted from both of
//! its ends; a smoke input catches it.
mod abi;

use std::collections::HashMap;

#[no_mangle]
pub extern "C" fn count_pairs(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let values = abi::ints(input, "values");
    let targets = abi::ints(input, "targets");
    let mut counts: HashMap<i64, i64> = HashMap::new();
    for &value in &values {
        *counts.entry(value).or_insert(0) += 1;
    }
    let mut answers = Vec::with_capacity(targets.len());
    for &target in &targets {
        let mut pairs = 0;
        for &value in &values {
            let partner = target - value;
            pairs += counts.get(&partner).copied().unwrap_or(0);
            if partner == value {
                pairs -= 1; // never the value itself
            }
        }
        answers.push(pairs);
    }
    abi::answer(format!("{{\"counts\":{}}}", abi::json_ints(&answers)))
}
