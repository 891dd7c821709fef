//! anagram-groups, the slow way: keep one word of every group found so far, and compare each new
//! word with each of them in turn (same length, then the same count of every letter). Correct,
//! and quick when there are few groups; when nearly every word is alone in its group, it compares
//! every pair of words.
mod abi;

fn anagrams(first: &[u8], second: &[u8]) -> bool {
    if first.len() != second.len() {
        return false;
    }
    let mut balance = [0i32; 26];
    for index in 0..first.len() {
        balance[(first[index] - b'a') as usize] += 1;
        balance[(second[index] - b'a') as usize] -= 1;
    }
    balance.iter().all(|&count| count == 0)
}

#[no_mangle]
pub extern "C" fn group_anagrams(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let words = abi::strings(input, "words");
    let mut members: Vec<usize> = Vec::new(); // one word of each group, by index
    let mut sizes: Vec<u32> = Vec::new();
    for (index, word) in words.iter().enumerate() {
        match members.iter().position(|&member| anagrams(&words[member], word)) {
            Some(group) => sizes[group] += 1,
            None => {
                members.push(index);
                sizes.push(1);
            }
        }
    }
    let largest = sizes.iter().copied().max().unwrap_or(0);
    abi::answer(format!("{{\"groups\":{},\"largest\":{}}}", sizes.len(), largest))
}
