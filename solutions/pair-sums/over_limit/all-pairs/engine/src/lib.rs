//! pair-sums, every pair: for each target, try every pair of indices i < j. Correct, and
//! quadratic in the number of values for every target.
mod abi;

#[no_mangle]
pub extern "C" fn count_pairs(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let values = abi::ints(input, "values");
    let targets = abi::ints(input, "targets");
    let mut answers = Vec::with_capacity(targets.len());
    for &target in &targets {
        let mut pairs: i64 = 0;
        for i in 0..values.len() {
            let partner = target - values[i];
            pairs += values[i + 1..].iter().filter(|&&later| later == partner).count() as i64;
        }
        answers.push(pairs);
    }
    abi::answer(format!("{{\"counts\":{}}}", abi::json_ints(&answers)))
}
