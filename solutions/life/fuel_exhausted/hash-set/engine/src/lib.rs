//! life, slow on purpose: the live cells in a hash set. Each generation every live cell adds one
//! to each of its neighbours in a fresh hash map of counts, and a fresh set is filled with the
//! cells the rule keeps: nine hashed updates per live cell, and two tables allocated and dropped
//! every generation. Correct, and its work follows the live cells rather than the board, but a
//! hashed update costs a hundred times a bitwise one.
mod abi;

use std::collections::{HashMap, HashSet};

#[no_mangle]
pub extern "C" fn step_life(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let width = abi::int(input, "width");
    let height = abi::int(input, "height");
    let generations = abi::int(input, "generations");
    let cells = abi::ints(input, "alive");
    let mut live: HashSet<(i64, i64)> = cells.chunks_exact(2).map(|cell| (cell[0], cell[1])).collect();
    for _ in 0..generations {
        let mut counts: HashMap<(i64, i64), u8> = HashMap::new();
        for &(row, column) in &live {
            for dr in -1..=1 {
                for dc in -1..=1 {
                    let (r, c) = (row + dr, column + dc);
                    if (dr != 0 || dc != 0) && r >= 0 && r < height && c >= 0 && c < width {
                        *counts.entry((r, c)).or_insert(0) += 1;
                    }
                }
            }
        }
        live = counts
            .into_iter()
            .filter(|&(cell, count)| count == 3 || (count == 2 && live.contains(&cell)))
            .map(|(cell, _)| cell)
            .collect();
    }
    let checksum: i64 = live.iter().map(|&(row, column)| row * width + column).sum();
    abi::answer(format!("{{\"alive\":{},\"checksum\":{}}}", live.len(), checksum))
}
