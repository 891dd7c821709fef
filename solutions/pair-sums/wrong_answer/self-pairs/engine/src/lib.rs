//! pair-sums, a wrong answer on purpose: for each value, the number of values equal to its
//! partner `target - value`, halved as each pair is met from both ends. A value that is its own
//! partner meets itself too (i = j), so those pairs count wrongly; a smoke input catches it.
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
        let mut met = 0;
        for &value in &values {
            met += counts.get(&(target - value)).copied().unwrap_or(0);
        }
        answers.push(met / 2);
    }
    abi::answer(format!("{{\"counts\":{}}}", abi::json_ints(&answers)))
}
