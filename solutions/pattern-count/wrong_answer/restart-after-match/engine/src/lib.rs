//! pattern-count, a wrong answer on purpose: Knuth–Morris–Pratt that starts the pattern afresh
//! after each match instead of falling back to the matched part's border, so it misses matches
//! that overlap the previous one; a smoke input catches it.
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
        let mut border = vec![0usize; m];
        let mut k = 0;
        for i in 1..m {
            while k > 0 && pattern[i] != pattern[k] {
                k = border[k - 1];
            }
            if pattern[i] == pattern[k] {
                k += 1;
            }
            border[i] = k;
        }
        let mut matched = 0;
        for (i, &c) in text.iter().enumerate() {
            while matched > 0 && c != pattern[matched] {
                matched = border[matched - 1];
            }
            if c == pattern[matched] {
                matched += 1;
            }
            if matched == m {
                if count == 0 {
                    first = (i + 1 - m) as i64;
                }
                count += 1;
                matched = 0;
            }
        }
    }
    abi::answer(format!("{{\"count\":{},\"first\":{}}}", count, first))
}
