//! life, wrong on purpose: one board, updated in place. A cell's new state is written before its
//! neighbours further on have counted it, so they see a mix of this generation and the next.
//! Right on still lifes and empty boards; wrong as soon as something moves (a blinker).
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
    for cell in cells.chunks_exact(2) {
        board[(cell[0] as usize + 1) * stride + cell[1] as usize + 1] = 1;
    }
    for _ in 0..generations {
        for row in 1..=height {
            for x in 1..=width {
                let at = row * stride + x;
                let count = board[at - stride - 1] + board[at - stride] + board[at - stride + 1] + board[at - 1]
                    + board[at + 1] + board[at + stride - 1] + board[at + stride] + board[at + stride + 1];
                board[at] = (count == 3 || (count == 2 && board[at] == 1)) as u8; // the bug: in place
            }
        }
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
