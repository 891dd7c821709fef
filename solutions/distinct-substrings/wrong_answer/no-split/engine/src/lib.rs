//! distinct-substrings, wrong on purpose: a suffix automaton that never splits a state. When a
//! transition leads to a state that also stands for longer substrings, it links to it as it is,
//! so some substrings are counted twice (or not at all). Right on texts with no such repeat.
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
            link[current] = q as u32; // the bug: q may stand for longer substrings too
        }
        last = current;
    }
    let mut distinct: u64 = 0;
    for state in 1..length.len() {
        distinct += (length[state] - length[link[state] as usize]) as u64;
    }
    abi::answer(format!("{{\"distinct\":{}}}", distinct))
}
