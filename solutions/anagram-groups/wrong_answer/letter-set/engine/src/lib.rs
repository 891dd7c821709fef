//! anagram-groups, wrong on purpose: keys each word by the SET of its letters (a 26-bit mask),
//! so `ab`, `aab` and `abb` land in one group although they are not anagrams.
mod abi;

#[no_mangle]
pub extern "C" fn group_anagrams(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let mut masks: Vec<u32> = abi::strings(input, "words")
        .iter()
        .map(|word| word.iter().fold(0u32, |mask, &letter| mask | 1 << (letter - b'a')))
        .collect();
    masks.sort_unstable();
    let (mut groups, mut largest, mut run) = (0u32, 0u32, 0u32);
    for index in 0..masks.len() {
        if index == 0 || masks[index] != masks[index - 1] {
            groups += 1;
            run = 0;
        }
        run += 1;
        largest = largest.max(run);
    }
    abi::answer(format!("{{\"groups\":{},\"largest\":{}}}", groups, largest))
}
