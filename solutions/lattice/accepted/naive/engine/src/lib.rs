//! lattice, naive: simulate every tick for every moving item.
mod abi;

struct Grid {
    height: usize,
    width: usize,
    cells: Vec<u8>,
}

impl Grid {
    /// The cell an item on `cell` moves to this tick, or None if it can never move again.
    fn next(&self, cell: usize) -> Option<usize> {
        let (row, col) = (cell / self.width, cell % self.width);
        let (row, col) = match self.cells[cell] {
            b'>' if col + 1 < self.width => (row, col + 1),
            b'<' if col > 0 => (row, col - 1),
            b'^' if row > 0 => (row - 1, col),
            b'v' if row + 1 < self.height => (row + 1, col),
            _ => return None,
        };
        let target = row * self.width + col;
        if self.cells[target] == b'#' { None } else { Some(target) }
    }
}

#[no_mangle]
pub extern "C" fn simulate(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let rows = abi::strings(input, "grid");
    let height = rows.len();
    let width = if height > 0 { rows[0].len() } else { 0 };
    let grid = Grid { height, width, cells: rows.concat() };
    let starts = abi::ints(input, "items");
    let ticks = abi::int(input, "ticks");

    let mut position: Vec<usize> = starts.chunks(2).map(|p| p[0] as usize * width + p[1] as usize).collect();
    let mut moving = vec![true; position.len()];
    let mut absorbed = vec![false; position.len()];
    let mut sink_count = vec![0i64; grid.cells.len()];
    for _ in 0..ticks {
        let mut any = false;
        for item in 0..position.len() {
            if !moving[item] {
                continue;
            }
            match grid.next(position[item]) {
                None => moving[item] = false,
                Some(target) => {
                    position[item] = target;
                    any = true;
                    if grid.cells[target] == b'o' {
                        absorbed[item] = true;
                        moving[item] = false;
                        sink_count[target] += 1;
                    }
                }
            }
        }
        if !any {
            break;
        }
    }

    let mut out = String::from("{\"items\":[");
    for item in 0..position.len() {
        if item > 0 {
            out.push(',');
        }
        if absorbed[item] {
            out.push_str("null");
        } else {
            out.push_str(&format!("[{},{}]", position[item] / width, position[item] % width));
        }
    }
    out.push_str("],\"sinks\":[");
    let mut first = true;
    for cell in 0..grid.cells.len() {
        if grid.cells[cell] == b'o' {
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
