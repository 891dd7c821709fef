//! distinct-substrings, a suffix automaton (Blumer et al.): the smallest automaton accepting
//! every suffix, built one letter at a time in amortised constant time per letter. Each state
//! stands for the substrings of lengths (len(link), len]; the answer is the sum of those counts.
mod abi;

const LETTERS: usize = 26;
const NONE: u32 = u32::MAX;

/// The string value of `"text"` (lowercase letters, no escapes).
fn text_of(input: &[u8]) -> &[u8] {
    let key = b"\"text\"";
    let mut cursor = 0;
    while cursor + key.len() <= input.len() && &input[cursor..cursor + key.len()] != key {
        cursor += 1;
    }
    cursor += key.len();
    while cursor < input.len() && input[cursor] != b'"' {
        cursor += 1;
    }
    let start = (cursor + 1).min(input.len());
    let mut end = start;
    while end < input.len() && input[end] != b'"' {
        end += 1;
    }
    &input[start..end]
}

#[no_mangle]
pub extern "C" fn count_substrings(pointer: i32, len: i32) -> i64 {
    let text = text_of(abi::input(pointer, len));
    let most = 2 * text.len() + 1;
    let mut length: Vec<u32> = Vec::with_capacity(most);
    let mut link: Vec<u32> = Vec::with_capacity(most);
    let mut next: Vec<u32> = Vec::with_capacity(most * LETTERS);
    length.push(0);
    link.push(NONE);
    next.extend_from_slice(&[NONE; LETTERS]);
    let mut last = 0usize;
    for &byte in text {
        let c = (byte - b'a') as usize;
        let current = length.len();
        length.push(length[last] + 1);
        link.push(0);
        next.extend_from_slice(&[NONE; LETTERS]);
        let mut p = last as u32;
        while p != NONE && next[p as usize * LETTERS + c] == NONE {
            next[p as usize * LETTERS + c] = current as u32;
            p = link[p as usize];
        }
        if p != NONE {
            let q = next[p as usize * LETTERS + c] as usize;
            if length[p as usize] + 1 == length[q] {
                link[current] = q as u32;
            } else {
                // q stands for longer substrings too: split off the ones of length len(p) + 1.
                let clone = length.len();
                length.push(length[p as usize] + 1);
                link.push(link[q]);
                next.extend_from_within(q * LETTERS..(q + 1) * LETTERS);
                while p != NONE && next[p as usize * LETTERS + c] == q as u32 {
                    next[p as usize * LETTERS + c] = clone as u32;
                    p = link[p as usize];
                }
                link[q] = clone as u32;
                link[current] = clone as u32;
            }
        }
        last = current;
    }
    let mut distinct: u64 = 0;
    for state in 1..length.len() {
        distinct += (length[state] - length[link[state] as usize]) as u64;
    }
    abi::answer(format!("{{\"distinct\":{}}}", distinct))
}
