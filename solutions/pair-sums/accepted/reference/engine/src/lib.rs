//! pair-sums, the reference: a hash map from each value to how often it occurs, built once;
//! for each target, every distinct value `v` below its partner `t - v` is looked up once
//! (`v == t - v` contributes `c (c - 1) / 2` pairs from its own count).
mod abi;

/// An open-addressing table (linear probing) from value to count; its size a power of two at
/// least twice the number of values.
struct Counts {
    keys: Vec<i64>,
    counts: Vec<u32>,
    mask: usize,
}

impl Counts {
    fn new(expected: usize) -> Counts {
        let size = (expected * 2).max(2).next_power_of_two();
        Counts { keys: vec![0; size], counts: vec![0; size], mask: size - 1 }
    }

    fn slot(&self, key: i64) -> usize {
        ((key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & self.mask
    }

    /// Count one more `key`.
    fn add(&mut self, key: i64) {
        let mut slot = self.slot(key);
        loop {
            if self.counts[slot] == 0 {
                self.keys[slot] = key;
                self.counts[slot] = 1;
                return;
            }
            if self.keys[slot] == key {
                self.counts[slot] += 1;
                return;
            }
            slot = (slot + 1) & self.mask;
        }
    }

    fn get(&self, key: i64) -> u64 {
        let mut slot = self.slot(key);
        loop {
            if self.counts[slot] == 0 {
                return 0;
            }
            if self.keys[slot] == key {
                return self.counts[slot] as u64;
            }
            slot = (slot + 1) & self.mask;
        }
    }
}

#[no_mangle]
pub extern "C" fn count_pairs(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let values = abi::ints(input, "values");
    let targets = abi::ints(input, "targets");
    let mut counts = Counts::new(values.len());
    for &value in &values {
        counts.add(value);
    }
    // Every distinct value with its count, read from the table once.
    let distinct: Vec<(i64, u64)> = (0..counts.keys.len())
        .filter(|&slot| counts.counts[slot] > 0)
        .map(|slot| (counts.keys[slot], counts.counts[slot] as u64))
        .collect();
    let mut answers = Vec::with_capacity(targets.len());
    for &target in &targets {
        let mut pairs: u64 = 0;
        for &(value, count) in &distinct {
            let partner = target - value;
            if value < partner {
                pairs += count * counts.get(partner);
            } else if value == partner {
                pairs += count * (count - 1) / 2;
            }
        }
        answers.push(pairs as i64);
    }
    abi::answer(format!("{{\"counts\":{}}}", abi::json_ints(&answers)))
}
