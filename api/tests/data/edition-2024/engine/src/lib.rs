//! range-sums, written as current Rust writes it: edition 2024 (`#[unsafe(no_mangle)]`), `let … else`,
//! and a Cargo.lock of version 4 beside it.

#[unsafe(no_mangle)]
pub extern "C" fn alloc(len: i32) -> i32 {
    let mut buffer: Vec<u8> = Vec::with_capacity(len.max(1) as usize);
    let pointer = buffer.as_mut_ptr();
    std::mem::forget(buffer);
    pointer as i32
}

/// The integers of the array `"key": [...]` (flattened: `[[0, 2], [1, 3]]` gives 0, 2, 1, 3).
fn integers(text: &str, key: &str) -> Vec<i64> {
    let Some(start) = text.find(&format!("\"{key}\"")) else { return Vec::new() };
    let Some(open) = text[start..].find('[') else { return Vec::new() };
    let mut depth = 0;
    let mut numbers = Vec::new();
    let mut current = String::new();
    for character in text[start + open..].chars() {
        match character {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ => {}
        }
        if character == '-' || character.is_ascii_digit() {
            current.push(character);
        } else if let Ok(number) = current.parse::<i64>() {
            numbers.push(number);
            current.clear();
        } else {
            current.clear();
        }
        if depth == 0 {
            break;
        }
    }
    numbers
}

#[unsafe(no_mangle)]
pub extern "C" fn sum_ranges(pointer: i32, len: i32) -> i64 {
    let bytes = unsafe { std::slice::from_raw_parts(pointer as *const u8, len as usize) };
    let Ok(text) = std::str::from_utf8(bytes) else { return 0 };
    let values = integers(text, "values");
    let bounds = integers(text, "queries");
    let mut prefix = vec![0i64];
    for value in &values {
        prefix.push(prefix[prefix.len() - 1] + value);
    }
    let sums: Vec<String> =
        bounds.chunks(2).map(|pair| (prefix[pair[1] as usize] - prefix[pair[0] as usize]).to_string()).collect();
    let answer = format!("{{\"sums\":[{}]}}", sums.join(",")).into_bytes().into_boxed_slice();
    let packed = ((answer.as_ptr() as i64) << 32) | answer.len() as i64;
    std::mem::forget(answer);
    packed
}
