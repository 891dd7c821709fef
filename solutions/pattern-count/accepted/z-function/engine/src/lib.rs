//! pattern-count, the Z-function: for the string `pattern # text`, z[i] is the length of the
//! longest common prefix of the whole string and its suffix at i, computed left to right in
//! linear time by reusing the rightmost match window; the pattern occurs in the text wherever
//! z reaches its length.
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
        let mut joined = Vec::with_capacity(m + 1 + text.len());
        joined.extend_from_slice(pattern);
        joined.push(b'#'); // never in the text or the pattern: no match crosses it
        joined.extend_from_slice(text);
        let total = joined.len();
        let mut z = vec![0u32; total];
        let (mut left, mut right) = (0usize, 0usize); // the window [left, right) matches a prefix
        for i in 1..total {
            let mut length = if i < right { (z[i - left] as usize).min(right - i) } else { 0 };
            while i + length < total && joined[length] == joined[i + length] {
                length += 1;
            }
            z[i] = length as u32;
            if i + length > right {
                left = i;
                right = i + length;
            }
            if i > m && length >= m {
                if count == 0 {
                    first = (i - m - 1) as i64;
                }
                count += 1;
            }
        }
    }
    abi::answer(format!("{{\"count\":{},\"first\":{}}}", count, first))
}
