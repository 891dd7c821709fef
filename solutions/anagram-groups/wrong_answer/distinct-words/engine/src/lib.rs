//! anagram-groups, wrong on purpose: drops repeated words before grouping, so a word listed three
//! times counts once, and the largest group comes out too small.
mod abi;

#[no_mangle]
pub extern "C" fn group_anagrams(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let mut words = abi::strings(input, "words");
    words.sort_unstable();
    words.dedup();
    let mut signatures: Vec<Vec<u8>> = words;
    for signature in signatures.iter_mut() {
        signature.sort_unstable();
    }
    signatures.sort_unstable();
    let (mut groups, mut largest, mut run) = (0u32, 0u32, 0u32);
    for index in 0..signatures.len() {
        if index == 0 || signatures[index] != signatures[index - 1] {
            groups += 1;
            run = 0;
        }
        run += 1;
        largest = largest.max(run);
    }
    abi::answer(format!("{{\"groups\":{},\"largest\":{}}}", groups, largest))
}
