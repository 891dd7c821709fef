//! pair-sums, sort and two pointers: the values sorted once and grouped into runs of equal
//! values; for each target, one pointer walks up from the smallest run and one down from the
//! largest, meeting in the middle.
mod abi;

#[no_mangle]
pub extern "C" fn count_pairs(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let mut values = abi::ints(input, "values");
    let targets = abi::ints(input, "targets");
    values.sort_unstable();
    // (value, how many times it occurs), in increasing order of value.
    let mut runs: Vec<(i64, u64)> = Vec::new();
    for &value in &values {
        match runs.last_mut() {
            Some(last) if last.0 == value => last.1 += 1,
            _ => runs.push((value, 1)),
        }
    }
    let mut answers = Vec::with_capacity(targets.len());
    for &target in &targets {
        let mut pairs: u64 = 0;
        if !runs.is_empty() {
            let (mut low, mut high) = (0usize, runs.len() - 1);
            while low < high {
                let sum = runs[low].0 + runs[high].0;
                if sum < target {
                    low += 1;
                } else if sum > target {
                    high -= 1;
                } else {
                    pairs += runs[low].1 * runs[high].1;
                    low += 1;
                    high -= 1;
                }
            }
            if low == high && runs[low].0 * 2 == target {
                pairs += runs[low].1 * (runs[low].1 - 1) / 2;
            }
        }
        answers.push(pairs as i64);
    }
    abi::answer(format!("{{\"counts\":{}}}", abi::json_ints(&answers)))
}
