//! distinct-substrings, the reference: a suffix array by induced sorting (SA-IS), then Kasai's
//! longest-common-prefix array. Every substring is a prefix of a suffix; in sorted order a
//! suffix's first `lcp` prefixes were already counted with the suffix before it, so the answer is
//! n(n+1)/2 - the sum of the lcp array. Linear time, whatever the text.
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
        cursor += 1; // the colon and any spaces
    }
    let start = (cursor + 1).min(input.len());
    let mut end = start;
    while end < input.len() && input[end] != b'"' {
        end += 1;
    }
    &input[start..end]
}

/// The suffix array of `s` (values 0 ..= upper) by induced sorting (SA-IS: Nong, Zhang and Chan,
/// 2009), in linear time: sort the LMS substrings by two induced passes, name them, sort their
/// suffixes recursively when two names agree, and induce every suffix from that order.
fn sa_is(s: &[u32], upper: usize) -> Vec<u32> {
    let n = s.len();
    match n {
        0 => return Vec::new(),
        1 => return vec![0],
        2 => return if s[0] < s[1] { vec![0, 1] } else { vec![1, 0] },
        _ => {}
    }
    if n < 10 {
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_unstable_by(|&a, &b| s[a as usize..].cmp(&s[b as usize..]));
        return order;
    }
    // smaller[i]: suffix i is smaller than suffix i + 1 (an S-type suffix); the last is L-type.
    let mut smaller = vec![false; n];
    for i in (0..n - 1).rev() {
        smaller[i] = if s[i] == s[i + 1] { smaller[i + 1] } else { s[i] < s[i + 1] };
    }
    // Bucket starts: of the L-type suffixes of each letter (sum_l), of its S-type ones (sum_s).
    let mut sum_l = vec![0u32; upper + 2];
    let mut sum_s = vec![0u32; upper + 2];
    for i in 0..n {
        if !smaller[i] {
            sum_s[s[i] as usize] += 1;
        } else {
            sum_l[s[i] as usize + 1] += 1;
        }
    }
    for c in 0..=upper {
        sum_s[c] += sum_l[c];
        if c < upper {
            sum_l[c + 1] += sum_s[c];
        }
    }
    const EMPTY: u32 = u32::MAX;
    let mut sa = vec![EMPTY; n];
    let mut bucket = vec![0u32; upper + 2];
    let mut induce = |lms: &[u32], sa: &mut Vec<u32>| {
        sa.fill(EMPTY);
        bucket.copy_from_slice(&sum_s);
        for &d in lms {
            let slot = &mut bucket[s[d as usize] as usize];
            sa[*slot as usize] = d;
            *slot += 1;
        }
        bucket.copy_from_slice(&sum_l);
        let slot = &mut bucket[s[n - 1] as usize];
        sa[*slot as usize] = (n - 1) as u32;
        *slot += 1;
        for i in 0..n {
            let v = sa[i];
            if v != EMPTY && v >= 1 && !smaller[v as usize - 1] {
                let slot = &mut bucket[s[v as usize - 1] as usize];
                sa[*slot as usize] = v - 1;
                *slot += 1;
            }
        }
        bucket.copy_from_slice(&sum_l);
        for i in (0..n).rev() {
            let v = sa[i];
            if v != EMPTY && v >= 1 && smaller[v as usize - 1] {
                let slot = &mut bucket[s[v as usize - 1] as usize + 1];
                *slot -= 1;
                sa[*slot as usize] = v - 1;
            }
        }
    };
    // The LMS positions: an S-type suffix right after an L-type one.
    let mut lms_index = vec![EMPTY; n + 1];
    let mut lms: Vec<u32> = Vec::new();
    for i in 1..n {
        if !smaller[i - 1] && smaller[i] {
            lms_index[i] = lms.len() as u32;
            lms.push(i as u32);
        }
    }
    let m = lms.len();
    induce(&lms, &mut sa);
    if m > 0 {
        let mut sorted_lms: Vec<u32> = Vec::with_capacity(m);
        for &v in sa.iter() {
            if lms_index[v as usize] != EMPTY {
                sorted_lms.push(v);
            }
        }
        // Name the LMS substrings in sorted order, equal ones alike.
        let mut reduced = vec![0u32; m];
        let mut names = 0usize;
        reduced[lms_index[sorted_lms[0] as usize] as usize] = 0;
        for t in 1..m {
            let (mut l, mut r) = (sorted_lms[t - 1] as usize, sorted_lms[t] as usize);
            let end_l = if (lms_index[l] as usize) + 1 < m { lms[lms_index[l] as usize + 1] as usize } else { n };
            let end_r = if (lms_index[r] as usize) + 1 < m { lms[lms_index[r] as usize + 1] as usize } else { n };
            let mut same = true;
            if end_l - l != end_r - r {
                same = false;
            } else {
                while l < end_l && s[l] == s[r] {
                    l += 1;
                    r += 1;
                }
                if l == n || s[l] != s[r] {
                    same = false;
                }
            }
            if !same {
                names += 1;
            }
            reduced[lms_index[sorted_lms[t] as usize] as usize] = names as u32;
        }
        let reduced_order = sa_is(&reduced, names);
        for t in 0..m {
            sorted_lms[t] = lms[reduced_order[t] as usize];
        }
        induce(&sorted_lms, &mut sa);
    }
    sa
}

#[no_mangle]
pub extern "C" fn count_substrings(pointer: i32, len: i32) -> i64 {
    let text = text_of(abi::input(pointer, len));
    let n = text.len();
    let mut shared: u64 = 0;
    if n > 1 {
        let letters: Vec<u32> = text.iter().map(|&letter| (letter - b'a') as u32).collect();
        let order = sa_is(&letters, 25);
        let mut place = vec![0u32; n];
        for (t, &start) in order.iter().enumerate() {
            place[start as usize] = t as u32;
        }
        // Kasai: the lcp of the suffix at i with the one before it in sorted order is at least
        // the previous suffix's (i - 1's) lcp minus one.
        let mut common = 0usize;
        for i in 0..n {
            let t = place[i] as usize;
            if t == 0 {
                common = 0;
                continue;
            }
            let j = order[t - 1] as usize;
            while i + common < n && j + common < n && text[i + common] == text[j + common] {
                common += 1;
            }
            shared += common as u64;
            common = common.saturating_sub(1);
        }
    }
    let total = (n as u64) * (n as u64 + 1) / 2;
    abi::answer(format!("{{\"distinct\":{}}}", total - shared))
}
