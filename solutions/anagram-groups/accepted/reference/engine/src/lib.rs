//! anagram-groups, the reference: a hash map keyed by letter counts. Each word is read once,
//! counting its letters into 26 bytes (a word has at most 100 letters, so a count fits) and
//! adding a fixed random 64-bit number per letter, a hash that does not depend on the letters'
//! order. Words whose hashes agree are compared by their counts, so the answer is exact.
mod abi;

/// A fixed random 64-bit number per letter (splitmix64 of 1, 2, …).
const KEYS: [u64; 26] = {
    let mut keys = [0u64; 26];
    let mut state: u64 = 0;
    let mut index = 0;
    while index < 26 {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut mixed = state;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        keys[index] = mixed ^ (mixed >> 31);
        index += 1;
    }
    keys
};

/// Where the array value of `"words"` starts (just past its `[`).
fn words_start(input: &[u8]) -> usize {
    let needle = b"\"words\"";
    let mut index = 0;
    while index + needle.len() <= input.len() {
        if &input[index..index + needle.len()] == needle {
            let mut cursor = index + needle.len();
            while cursor < input.len() && input[cursor] != b'[' {
                cursor += 1;
            }
            return cursor + 1;
        }
        index += 1;
    }
    input.len()
}

#[no_mangle]
pub extern "C" fn group_anagrams(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let mut cursor = words_start(input);
    // At most one word per three bytes of input ("a",): a table at least twice that, a power of two.
    let mut bits = 4;
    while (1usize << bits) < 2 * (input.len() / 3 + 1) {
        bits += 1;
    }
    let mask = (1usize << bits) - 1;
    let mut slot_hash = vec![0u64; 1 << bits];
    let mut slot_group = vec![u32::MAX; 1 << bits];
    let mut group_counts: Vec<[u64; 4]> = Vec::new();
    let mut group_sizes: Vec<u32> = Vec::new();
    let mut largest = 0u32;
    while cursor < input.len() && input[cursor] != b']' {
        if input[cursor] != b'"' {
            cursor += 1;
            continue;
        }
        cursor += 1;
        let mut counts = [0u8; 32];
        let mut hash = 0u64;
        while input[cursor] != b'"' {
            let letter = (input[cursor] - b'a') as usize;
            counts[letter] += 1;
            hash = hash.wrapping_add(KEYS[letter]);
            cursor += 1;
        }
        cursor += 1;
        let key: [u64; 4] = unsafe { core::mem::transmute(counts) };
        let mut slot = (hash >> (64 - bits)) as usize;
        let group = loop {
            let found = slot_group[slot];
            if found == u32::MAX {
                slot_hash[slot] = hash;
                slot_group[slot] = group_counts.len() as u32;
                group_counts.push(key);
                group_sizes.push(0);
                break group_sizes.len() - 1;
            }
            if slot_hash[slot] == hash && group_counts[found as usize] == key {
                break found as usize;
            }
            slot = (slot + 1) & mask;
        };
        group_sizes[group] += 1;
        if group_sizes[group] > largest {
            largest = group_sizes[group];
        }
    }
    abi::answer(format!("{{\"groups\":{},\"largest\":{}}}", group_sizes.len(), largest))
}
