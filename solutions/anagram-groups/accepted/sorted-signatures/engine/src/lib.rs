//! anagram-groups, another approach: sort each word's letters (its signature), sort the list of
//! signatures, and count the runs of equal ones. Two words are anagrams exactly when their
//! signatures are equal, so each run is a group.
mod abi;

#[no_mangle]
pub extern "C" fn group_anagrams(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let mut signatures: Vec<Vec<u8>> = abi::strings(input, "words");
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
