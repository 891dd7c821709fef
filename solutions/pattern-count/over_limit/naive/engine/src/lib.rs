//! pattern-count, naive: compare the pattern with the text at every position, character by
//! character until the first mismatch. Correct, and fast on random text, but a repetitive text
//! makes nearly every comparison run the pattern's whole length.
mod abi;

/// The string values of `text` and `pattern` (lowercase letters, no escapes), read in one pass
/// over the input object, whichever order its keys come in.
fn text_and_pattern(input: &[u8]) -> (&[u8], &[u8]) {
    let (mut text, mut pattern): (&[u8], &[u8]) = (&[], &[]);
    let mut key: &[u8] = &[];
    let mut cursor = 0;
    while cursor < input.len() {
        if input[cursor] != b'"' {
            cursor += 1;
            continue;
        }
        let start = cursor + 1;
        let mut end = start;
        while end < input.len() && input[end] != b'"' {
            end += 1;
        }
        let string = &input[start..end];
        cursor = end + 1;
        while cursor < input.len() && (input[cursor] == b' ' || input[cursor] == b'\n') {
            cursor += 1;
        }
        if cursor < input.len() && input[cursor] == b':' {
            key = string; // a key is followed by a colon; a value is not
        } else if key == b"text" {
            text = string;
        } else if key == b"pattern" {
            pattern = string;
        }
    }
    (text, pattern)
}

#[no_mangle]
pub extern "C" fn count_matches(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let (text, pattern) = text_and_pattern(input);
    let m = pattern.len();
    let (mut count, mut first) = (0i64, -1i64);
    if m > 0 && m <= text.len() {
        for start in 0..=text.len() - m {
            let mut j = 0;
            while j < m && text[start + j] == pattern[j] {
                j += 1;
            }
            if j == m {
                if count == 0 {
                    first = start as i64;
                }
                count += 1;
            }
        }
    }
    abi::answer(format!("{{\"count\":{},\"first\":{}}}", count, first))
}
