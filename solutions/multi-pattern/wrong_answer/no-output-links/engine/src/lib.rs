//! multi-pattern, wrong: Aho and Corasick's automaton without its output links. The trie, the
//! suffix links and the completed transitions are right, and the text is read in one pass, but
//! each letter counts only for the node it reaches: a pattern that ends there as a proper suffix
//! of a longer one (`bc` inside `abc`) is never counted, because the counts are not passed up
//! the suffix-link tree.
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

    // The letters of the text, numbered 1 … sigma in the order they first appear (0: absent).
    let mut code = [0u8; 256];
    let mut sigma = 0usize;
    for &letter in text {
        if code[letter as usize] == 0 {
            sigma += 1;
            code[letter as usize] = sigma as u8;
        }
    }

    // The trie: node u's child by letter c is next[u * sigma + c - 1] (0: none; 0 is the root).
    let mut next: Vec<u32> = vec![0; sigma.max(1)];
    let mut nodes = 1usize;
    let mut node_of: Vec<u32> = Vec::with_capacity(ranges.len()); // u32::MAX: cannot occur
    for &(start, end) in &ranges {
        let pattern = &input[start..end];
        if pattern.len() > text.len() || pattern.iter().any(|&letter| code[letter as usize] == 0) {
            node_of.push(u32::MAX);
            continue;
        }
        let mut u = 0usize;
        for &letter in pattern {
            let slot = u * sigma + code[letter as usize] as usize - 1;
            if next[slot] == 0 {
                next[slot] = nodes as u32;
                nodes += 1;
                next.resize(nodes * sigma, 0);
            }
            u = next[slot] as usize;
        }
        node_of.push(u as u32);
    }

    // Suffix links in breadth-first order; a missing child becomes the link's child.
    let mut link = vec![0u32; nodes];
    let mut order: Vec<u32> = Vec::with_capacity(nodes);
    order.push(0);
    let mut head = 0;
    while head < order.len() {
        let u = order[head] as usize;
        head += 1;
        for c in 0..sigma {
            let v = next[u * sigma + c] as usize;
            if v != 0 {
                link[v] = if u == 0 { 0 } else { next[link[u] as usize * sigma + c] };
                order.push(v as u32);
            } else if u != 0 {
                next[u * sigma + c] = next[link[u] as usize * sigma + c];
            }
        }
    }

    // One pass over the text; each node keeps only what reached it.
    let mut hits = vec![0u32; nodes];
    if sigma > 0 {
        let mut u = 0usize;
        for &letter in text {
            u = next[u * sigma + code[letter as usize] as usize - 1] as usize;
            hits[u] += 1;
        }
    }
    let counts: Vec<i64> =
        node_of.iter().map(|&u| if u == u32::MAX { 0 } else { hits[u as usize] as i64 }).collect();
    abi::answer(format!("{{\"counts\":{}}}", abi::json_ints(&counts)))
}
