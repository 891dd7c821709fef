//! range-min, the reference: a sparse table. Level k holds the minimum of every run of 2^k
//! values; a range [l, r) is covered by two runs of the largest power of two that fits in it,
//! which may overlap (the minimum does not mind), so each query takes two lookups. The input is
//! read in one pass and the answer written digit by digit.
mod abi;

/// The numbers of `values` and of `queries` (flattened), in one pass over the input, whichever
/// order the keys come in.
fn parse(input: &[u8]) -> (Vec<i32>, Vec<u32>) {
    let (mut values, mut queries) = (Vec::new(), Vec::new());
    let mut into_values = true;
    let mut index = 0;
    while index < input.len() {
        let byte = input[index];
        if byte == b'"' {
            into_values = input[index + 1] == b'v'; // "values" or "queries"
            index += 1;
            while input[index] != b'"' {
                index += 1;
            }
        } else if byte == b'-' || byte.is_ascii_digit() {
            let negative = byte == b'-';
            if negative {
                index += 1;
            }
            let mut number: i32 = 0;
            while index < input.len() && input[index].is_ascii_digit() {
                number = number * 10 + (input[index] - b'0') as i32;
                index += 1;
            }
            if into_values {
                values.push(if negative { -number } else { number });
            } else {
                queries.push(number as u32);
            }
            continue;
        }
        index += 1;
    }
    (values, queries)
}

fn push_number(out: &mut Vec<u8>, number: i32) {
    let mut magnitude = number.unsigned_abs();
    if number < 0 {
        out.push(b'-');
    }
    let mut digits = [0u8; 10];
    let mut count = 0;
    loop {
        digits[count] = b'0' + (magnitude % 10) as u8;
        count += 1;
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    while count > 0 {
        count -= 1;
        out.push(digits[count]);
    }
}

#[no_mangle]
pub extern "C" fn range_minimums(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let (values, queries) = parse(input);
    let n = values.len();
    // levels[k][i] = min(values[i .. i + 2^k]), for i + 2^k <= n.
    let mut levels: Vec<Vec<i32>> = vec![values];
    let mut width = 1;
    while 2 * width <= n {
        let below = &levels[levels.len() - 1];
        let level: Vec<i32> = below.iter().zip(&below[width..]).map(|(&a, &b)| a.min(b)).collect();
        levels.push(level);
        width *= 2;
    }
    let mut out: Vec<u8> = Vec::with_capacity(16 + queries.len() * 5);
    out.extend_from_slice(b"{\"minimums\":[");
    for (number, query) in queries.chunks_exact(2).enumerate() {
        let (left, right) = (query[0] as usize, query[1] as usize);
        let k = (u32::BITS - 1 - ((right - left) as u32).leading_zeros()) as usize; // floor(log2(length))
        let level = &levels[k];
        if number > 0 {
            out.push(b',');
        }
        push_number(&mut out, level[left].min(level[right - (1 << k)]));
    }
    out.extend_from_slice(b"]}");
    abi::answer(String::from_utf8(out).unwrap())
}
