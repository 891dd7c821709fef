//! lattice, fast: binary lifting over the "where am I after one tick" function.
//!
//! Resting cells, blocked belts and sinks are fixed points, so jumping 2^k ticks at a time is
//! exact for every item, loops included: O(cells · log ticks + items · log ticks).
mod abi;

#[no_mangle]
pub extern "C" fn simulate(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let rows = abi::strings(input, "grid");
    let height = rows.len();
    let width = if height > 0 { rows[0].len() } else { 0 };
    let cells: Vec<u8> = rows.concat();
    let starts = abi::ints(input, "items");
    let ticks = abi::int(input, "ticks") as u64;

    let mut jump: Vec<u32> = (0..cells.len())
        .map(|cell| {
            let (row, col) = (cell / width, cell % width);
            let target = match cells[cell] {
                b'>' if col + 1 < width => cell + 1,
                b'<' if col > 0 => cell - 1,
                b'^' if row > 0 => cell - width,
                b'v' if row + 1 < height => cell + width,
                _ => cell,
            };
            if cells[target] == b'#' { cell as u32 } else { target as u32 }
        })
        .collect();

    let mut position: Vec<u32> = starts.chunks(2).map(|p| (p[0] as usize * width + p[1] as usize) as u32).collect();
    let mut remaining = ticks;
    while remaining > 0 {
        if remaining & 1 == 1 {
            for cell in position.iter_mut() {
                *cell = jump[*cell as usize];
            }
        }
        remaining >>= 1;
        if remaining > 0 {
            jump = jump.iter().map(|&middle| jump[middle as usize]).collect();
        }
    }

    let mut sink_count = vec![0i64; cells.len()];
    let mut out = String::from("{\"items\":[");
    for (item, &cell) in position.iter().enumerate() {
        if item > 0 {
            out.push(',');
        }
        let cell = cell as usize;
        if cells[cell] == b'o' {
            sink_count[cell] += 1;
            out.push_str("null");
        } else {
            out.push_str(&format!("[{},{}]", cell / width, cell % width));
        }
    }
    out.push_str("],\"sinks\":[");
    let mut first = true;
    for cell in 0..cells.len() {
        if cells[cell] == b'o' {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(&format!("[{},{},{}]", cell / width, cell % width, sink_count[cell]));
        }
    }
    out.push_str("]}");
    abi::answer(out)
}
