//! multi-pattern, the slow way: Knuth, Morris and Pratt's algorithm, once per pattern. Each
//! pattern gets its failure function, then the whole text is read against it, counting every
//! match and falling back along the borders so that overlapping matches count. Correct, and
//! linear for one pattern; for k patterns the text is read k times.
mod abi;

/// Where the value of `"key":` starts (just after the colon). Only a quoted key followed by a
/// colon counts, so a string spelled like the key (a pattern, or the text) is never taken for it.
fn value_of(input: &[u8], key: &str) -> Option<usize> {
    let needle = format!("\"{}\"", key);
    let needle = needle.as_bytes();
    let mut index = 0;
    while index + needle.len() <= input.len() {
        if input[index] == b'"' && &input[index..index + needle.len()] == needle {
            let mut cursor = index + needle.len();
            while cursor < input.len() && input[cursor].is_ascii_whitespace() {
                cursor += 1;
            }
            if cursor < input.len() && input[cursor] == b':' {
                return Some(cursor + 1);
            }
        }
        index += 1;
    }
    None
}

/// The text: the string value of `"text":` (lowercase letters, no escapes).
fn text(input: &[u8]) -> &[u8] {
    let Some(mut cursor) = value_of(input, "text") else { return &[] };
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

/// The patterns: the strings of the array value of `"patterns":`, as ranges of the input.
fn patterns(input: &[u8]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let Some(mut cursor) = value_of(input, "patterns") else { return found };
    while cursor < input.len() && input[cursor] != b'[' {
        cursor += 1;
    }
    while cursor < input.len() && input[cursor] != b']' {
        if input[cursor] == b'"' {
            let start = cursor + 1;
            let mut end = start;
            while end < input.len() && input[end] != b'"' {
                end += 1;
            }
            found.push((start, end));
            cursor = end;
        }
        cursor += 1;
    }
    found
}

#[no_mangle]
pub extern "C" fn count_patterns(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let text = text(input);
    let ranges = patterns(input);
    let mut border: Vec<usize> = Vec::new();
    let mut counts = Vec::with_capacity(ranges.len());
    for &(start, end) in &ranges {
        let pattern = &input[start..end];
        let m = pattern.len();
        if m > text.len() {
            counts.push(0);
            continue;
        }
        // border[i]: the length of the longest proper border of pattern[..i + 1].
        border.clear();
        border.resize(m, 0);
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
        let mut found = 0i64;
        let mut k = 0;
        for &letter in text {
            while k > 0 && letter != pattern[k] {
                k = border[k - 1];
            }
            if letter == pattern[k] {
                k += 1;
            }
            if k == m {
                found += 1;
                k = border[m - 1];
            }
        }
        counts.push(found);
    }
    abi::answer(format!("{{\"counts\":{}}}", abi::json_ints(&counts)))
}
