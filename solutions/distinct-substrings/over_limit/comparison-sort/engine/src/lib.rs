//! distinct-substrings, slow on purpose: sort the suffixes with plain comparisons, then add up the
//! common prefixes of neighbours letter by letter. Correct, and quick on random text, where two
//! suffixes differ within a few letters; on a repetitive text each comparison reads hundreds of
//! letters, O(n^2 log n) at worst.
mod abi;

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
    let n = text.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&a, &b| text[a..].cmp(&text[b..]));
    let mut shared: u64 = 0;
    for pair in order.windows(2) {
        let (a, b) = (&text[pair[0]..], &text[pair[1]..]);
        shared += a.iter().zip(b).take_while(|(x, y)| x == y).count() as u64;
    }
    let total = (n as u64) * (n as u64 + 1) / 2;
    abi::answer(format!("{{\"distinct\":{}}}", total - shared))
}
