//! life, the reference: bit-parallel rows. A row is a run of 64-bit words, a bit per cell; the
//! eight neighbour counts of 64 cells are added at once with bitwise adders (each of the three
//! rows' horizontal sums as two bits, then those added), and the rule is a few more bitwise
//! operations. The board keeps a dead word on each side and a dead row above and below, so the
//! edges need no tests; two boards take turns. A word whose three rows are dead, neighbours
//! included, stays dead without any adding.
mod abi;

/// The count of the three bits `left`, `middle`, `right`, per bit position: (low bit, high bit).
#[inline(always)]
fn three(left: u64, middle: u64, right: u64) -> (u64, u64) {
    let partial = left ^ middle;
    (partial ^ right, (left & middle) | (partial & right))
}

#[no_mangle]
pub extern "C" fn step_life(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let width = abi::int(input, "width") as usize;
    let height = abi::int(input, "height") as usize;
    let generations = abi::int(input, "generations");
    let cells = abi::ints(input, "alive");
    let words = width.div_ceil(64);
    let stride = words + 2; // a dead word at each end
    let mut board = vec![0u64; stride * (height + 2)]; // and a dead row above and below
    let mut next = board.clone();
    for cell in cells.chunks_exact(2) {
        let (row, column) = (cell[0] as usize + 1, cell[1] as usize);
        board[row * stride + 1 + column / 64] |= 1 << (column % 64);
    }
    let last_mask = if width % 64 == 0 { u64::MAX } else { (1u64 << (width % 64)) - 1 };
    for _ in 0..generations {
        for row in 1..=height {
            let (up, middle, down) = (&board[(row - 1) * stride..row * stride], &board[row * stride..(row + 1) * stride],
                                      &board[(row + 1) * stride..(row + 2) * stride]);
            let out = &mut next[row * stride..(row + 1) * stride];
            for w in 1..=words {
                let (u, m, d) = (up[w], middle[w], down[w]);
                let before = up[w - 1] | middle[w - 1] | down[w - 1];
                let after = up[w + 1] | middle[w + 1] | down[w + 1];
                if (u | m | d) == 0 && (before >> 63) == 0 && (after & 1) == 0 {
                    out[w] = 0;
                    continue;
                }
                // Bit i is column 64(w - 1) + i: the left neighbour's bit moves up one place.
                let (u0, u1) = three((u << 1) | (up[w - 1] >> 63), u, (u >> 1) | (up[w + 1] << 63));
                let (d0, d1) = three((d << 1) | (down[w - 1] >> 63), d, (d >> 1) | (down[w + 1] << 63));
                let (ml, mr) = ((m << 1) | (middle[w - 1] >> 63), (m >> 1) | (middle[w + 1] << 63));
                let (m0, m1) = (ml ^ mr, ml & mr);
                // up + down: three bits t0, t1, t2.
                let t0 = u0 ^ d0;
                let c0 = u0 & d0;
                let t1 = u1 ^ d1 ^ c0;
                let t2 = (u1 & d1) | (c0 & (u1 ^ d1));
                // + middle: r0, r1, and r2 for four or more (eight sets none of r0 … r2, and has no r1).
                let r0 = t0 ^ m0;
                let k0 = t0 & m0;
                let r1 = t1 ^ m1 ^ k0;
                let k1 = (t1 & m1) | (k0 & (t1 ^ m1));
                let r2 = t2 | k1;
                // Alive next: a count of 3, or 2 for a live cell.
                out[w] = r1 & !r2 & (r0 | m);
            }
            out[words] &= last_mask;
        }
        std::mem::swap(&mut board, &mut next);
    }
    let (mut alive, mut checksum) = (0u64, 0u64);
    for row in 0..height {
        for w in 0..words {
            let mut bits = board[(row + 1) * stride + 1 + w];
            alive += bits.count_ones() as u64;
            while bits != 0 {
                let column = (w * 64) as u64 + bits.trailing_zeros() as u64;
                checksum += row as u64 * width as u64 + column;
                bits &= bits - 1;
            }
        }
    }
    abi::answer(format!("{{\"alive\":{},\"checksum\":{}}}", alive, checksum))
}
