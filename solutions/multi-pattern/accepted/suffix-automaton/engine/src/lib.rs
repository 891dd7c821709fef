//! multi-pattern, another way: a suffix automaton of the text (Blumer et al., 1985). Every
//! substring of the text leads from the start to one state, and the substrings of a state end at
//! the same set of places, whose size is counted once for all states (each prefix of the text
//! adds one where it ends, and a state passes its count to its suffix link, longest states
//! first). A pattern is then read through the automaton letter by letter: the state it reaches
//! holds its number of occurrences, and falling off means none. Linear in the text and in the
//! patterns together, with no automaton of the patterns at all.
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

    let mut code = [0u8; 256];
    let mut sigma = 0usize;
    for &letter in text {
        if code[letter as usize] == 0 {
            sigma += 1;
            code[letter as usize] = sigma as u8;
        }
    }
    let sigma = sigma.max(1);

    // State s: its longest substring's length, its suffix link, its transitions (0: none; no
    // transition ever leads back to the start, state 0) and its count.
    let most = 2 * text.len() + 1;
    let mut length = vec![0u32; most];
    let mut link = vec![u32::MAX; most];
    let mut next = vec![0u32; most * sigma];
    let mut count = vec![0u32; most];
    let mut states = 1usize;
    let mut last = 0usize;
    for &letter in text {
        let c = code[letter as usize] as usize - 1;
        let current = states;
        states += 1;
        length[current] = length[last] + 1;
        count[current] = 1;
        let mut p = last as u32;
        while p != u32::MAX && next[p as usize * sigma + c] == 0 {
            next[p as usize * sigma + c] = current as u32;
            p = link[p as usize];
        }
        if p == u32::MAX {
            link[current] = 0;
        } else {
            let p = p as usize;
            let q = next[p * sigma + c] as usize;
            if length[p] + 1 == length[q] {
                link[current] = q as u32;
            } else {
                let clone = states;
                states += 1;
                length[clone] = length[p] + 1;
                link[clone] = link[q];
                next.copy_within(q * sigma..(q + 1) * sigma, clone * sigma);
                let mut p = p as u32;
                while p != u32::MAX && next[p as usize * sigma + c] == q as u32 {
                    next[p as usize * sigma + c] = clone as u32;
                    p = link[p as usize];
                }
                link[q] = clone as u32;
                link[current] = clone as u32;
            }
        }
        last = current;
    }

    // Counts up the suffix links, longest states first (a counting sort by length).
    let mut by_length = vec![0u32; text.len() + 2];
    for s in 0..states {
        by_length[length[s] as usize + 1] += 1;
    }
    for l in 0..=text.len() {
        by_length[l + 1] += by_length[l];
    }
    let mut order = vec![0u32; states];
    for s in 0..states {
        let slot = &mut by_length[length[s] as usize];
        order[*slot as usize] = s as u32;
        *slot += 1;
    }
    for &s in order[1..].iter().rev() {
        let s = s as usize;
        let up = link[s] as usize;
        count[up] += count[s];
    }

    let mut counts = Vec::with_capacity(ranges.len());
    for &(start, end) in &ranges {
        let mut s = 0usize;
        for &letter in &input[start..end] {
            let c = code[letter as usize] as usize;
            s = if c == 0 || text.is_empty() { 0 } else { next[s * sigma + c - 1] as usize };
            if s == 0 {
                break;
            }
        }
        counts.push(if s == 0 { 0 } else { count[s] as i64 });
    }
    abi::answer(format!("{{\"counts\":{}}}", abi::json_ints(&counts)))
}
