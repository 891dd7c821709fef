//! The solution ABI and a little JSON reading, with no crates (builds offline).
#![allow(dead_code)] // each solution uses the helpers it needs
//!
//! `alloc(len)` hands the host a buffer; the entry returns `(pointer << 32) | length` of the
//! answer, which must stay alive after returning, so it is leaked on purpose.

#[no_mangle]
pub extern "C" fn alloc(len: i32) -> i32 {
    let mut buffer: Vec<u8> = Vec::with_capacity(len.max(1) as usize);
    let pointer = buffer.as_mut_ptr();
    std::mem::forget(buffer);
    pointer as i32
}

/// The input the host wrote at `[pointer, pointer + len)`.
pub fn input<'a>(pointer: i32, len: i32) -> &'a [u8] {
    unsafe { std::slice::from_raw_parts(pointer as *const u8, len as usize) }
}

/// Hand `output` to the host.
pub fn answer(output: String) -> i64 {
    let bytes = output.into_bytes().into_boxed_slice();
    let packed = ((bytes.as_ptr() as i64) << 32) | bytes.len() as i64;
    std::mem::forget(bytes);
    packed
}

/// Where the value of `"key":` starts, if the key is present.
fn value_start(input: &[u8], key: &str) -> Option<usize> {
    let quoted = format!("\"{}\"", key);
    let needle = quoted.as_bytes();
    let mut index = 0;
    while index + needle.len() <= input.len() {
        if &input[index..index + needle.len()] == needle {
            let mut cursor = index + needle.len();
            while cursor < input.len() && (input[cursor] == b' ' || input[cursor] == b':' || input[cursor] == b'\n') {
                cursor += 1;
            }
            return Some(cursor);
        }
        index += 1;
    }
    None
}

/// The integers inside the array value of `key`, nested arrays flattened, in order.
pub fn ints(input: &[u8], key: &str) -> Vec<i64> {
    let mut values = Vec::new();
    let mut cursor = match value_start(input, key) {
        Some(start) => start,
        None => return values,
    };
    let mut depth = 0;
    while cursor < input.len() {
        let byte = input[cursor];
        if byte == b'[' {
            depth += 1;
        } else if byte == b']' {
            depth -= 1;
            if depth == 0 {
                break;
            }
        } else if byte == b'-' || byte.is_ascii_digit() {
            let negative = byte == b'-';
            if negative {
                cursor += 1;
            }
            let mut value: i64 = 0;
            while cursor < input.len() && input[cursor].is_ascii_digit() {
                value = value * 10 + (input[cursor] - b'0') as i64;
                cursor += 1;
            }
            values.push(if negative { -value } else { value });
            continue;
        }
        cursor += 1;
    }
    values
}

/// The integer value of `key`.
pub fn int(input: &[u8], key: &str) -> i64 {
    let mut cursor = value_start(input, key).unwrap_or(input.len());
    let negative = cursor < input.len() && input[cursor] == b'-';
    if negative {
        cursor += 1;
    }
    let mut value: i64 = 0;
    while cursor < input.len() && input[cursor].is_ascii_digit() {
        value = value * 10 + (input[cursor] - b'0') as i64;
        cursor += 1;
    }
    if negative { -value } else { value }
}

/// The strings inside the array value of `key` (plain strings without escapes).
pub fn strings(input: &[u8], key: &str) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    let mut cursor = match value_start(input, key) {
        Some(start) => start + 1,
        None => return found,
    };
    while cursor < input.len() && input[cursor] != b']' {
        if input[cursor] == b'"' {
            let start = cursor + 1;
            let mut end = start;
            while end < input.len() && input[end] != b'"' {
                end += 1;
            }
            found.push(input[start..end].to_vec());
            cursor = end;
        }
        cursor += 1;
    }
    found
}

/// `[a,b,c]`
pub fn json_ints(values: &[i64]) -> String {
    let mut text = String::with_capacity(values.len() * 8 + 2);
    text.push('[');
    for (index, value) in values.iter().enumerate() {
        if index > 0 {
            text.push(',');
        }
        text.push_str(&value.to_string());
    }
    text.push(']');
    text
}
