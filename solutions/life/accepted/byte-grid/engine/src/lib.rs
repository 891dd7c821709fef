//! life, a plain grid done carefully: a byte per cell, a ring of dead cells around the board so
//! the edges need no tests, two boards that take turns (nothing allocated per generation), and
//! each cell's count made from the column sums of three rows, computed once per row and shared by
//! the three cells that use each.
mod abi;

#[no_mangle]
pub extern "C" fn step_life(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let width = abi::int(input, "width") as usize;
    let height = abi::int(input, "height") as usize;
    let generations = abi::int(input, "generations");
    let cells = abi::ints(input, "alive");
    let stride = width + 2;
    let mut board = vec![0u8; stride * (height + 2)];
    let mut next = board.clone();
    for cell in cells.chunks_exact(2) {
        board[(cell[0] as usize + 1) * stride + cell[1] as usize + 1] = 1;
    }
    let mut columns = vec![0u8; stride];
    for _ in 0..generations {
        for row in 1..=height {
            let up = &board[(row - 1) * stride..row * stride];
            let middle = &board[row * stride..(row + 1) * stride];
            let down = &board[(row + 1) * stride..(row + 2) * stride];
            for (sum, ((&a, &b), &c)) in columns.iter_mut().zip(up.iter().zip(middle).zip(down)) {
                *sum = a + b + c;
            }
            let out = &mut next[row * stride + 1..(row + 1) * stride - 1];
            // The block of nine less the cell itself is its count; (count | alive) == 3 exactly
            // when the count is 3, or 2 for a live cell.
            for ((cell, sums), &alive) in out.iter_mut().zip(columns.windows(3)).zip(&middle[1..]) {
                let count = sums[0] + sums[1] + sums[2] - alive;
                *cell = ((count | alive) == 3) as u8;
            }
        }
        std::mem::swap(&mut board, &mut next);
    }
    let (mut alive, mut checksum) = (0u64, 0u64);
    for row in 0..height {
        for column in 0..width {
            if board[(row + 1) * stride + column + 1] == 1 {
                alive += 1;
                checksum += (row * width + column) as u64;
            }
        }
    }
    abi::answer(format!("{{\"alive\":{},\"checksum\":{}}}", alive, checksum))
}
