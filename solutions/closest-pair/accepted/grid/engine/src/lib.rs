//! closest-pair, a grid (Rabin, 1976; Khuller and Matias, 1995): take the points in random order
//! and keep them in square cells as wide as the best distance so far, so a new point need only
//! be compared with the points of its own cell and the eight around it. When a point comes closer
//! than the best, the grid is rebuilt with smaller cells; in random order that happens O(log n)
//! times, on ever fewer points: expected O(n) hash-table work in all.
mod abi;

const EMPTY: u64 = u64::MAX;
const NONE: u32 = u32::MAX;
const OFFSET: i64 = 1_000_000_000; // coordinates are at least -10^9

/// Cells (packed as `cx << 32 | cy`) mapped to the last point put in each; `next` chains a cell's
/// points. Open addressing on a power-of-two table, at most half full.
struct Grid {
    side: i64,
    keys: Vec<u64>,
    heads: Vec<u32>,
    next: Vec<u32>,
    shift: u32,
}

impl Grid {
    fn new(points: usize) -> Grid {
        let bits = (2 * points.max(2)).next_power_of_two().trailing_zeros();
        Grid {
            side: 1,
            keys: vec![EMPTY; 1 << bits],
            heads: vec![NONE; 1 << bits],
            next: vec![NONE; points],
            shift: 64 - bits,
        }
    }

    fn cell(&self, x: i64, y: i64) -> (i64, i64) {
        ((x + OFFSET) / self.side, (y + OFFSET) / self.side)
    }

    fn slot(&self, key: u64) -> usize {
        let mut slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        let mask = self.keys.len() - 1;
        while self.keys[slot] != EMPTY && self.keys[slot] != key {
            slot = (slot + 1) & mask;
        }
        slot
    }

    /// The first point of cell (cx, cy), or NONE.
    fn first(&self, cx: i64, cy: i64) -> u32 {
        if cx < 0 || cy < 0 {
            return NONE;
        }
        let slot = self.slot(((cx as u64) << 32) | cy as u64);
        if self.keys[slot] == EMPTY { NONE } else { self.heads[slot] }
    }

    fn insert(&mut self, index: usize, x: i64, y: i64) {
        let (cx, cy) = self.cell(x, y);
        let key = ((cx as u64) << 32) | cy as u64;
        let slot = self.slot(key);
        self.next[index] = if self.keys[slot] == EMPTY { NONE } else { self.heads[slot] };
        self.keys[slot] = key;
        self.heads[slot] = index as u32;
    }

    /// Empty the grid and put points 0 ..= last in it, with cells of side `side`.
    fn rebuild(&mut self, side: i64, xs: &[i64], ys: &[i64], last: usize) {
        self.side = side;
        self.keys.fill(EMPTY);
        for index in 0..=last {
            self.insert(index, xs[index], ys[index]);
        }
    }
}

/// The smallest side s with s * s >= value.
fn ceiling_root(value: i64) -> i64 {
    let mut root = (value as f64).sqrt() as i64;
    while root * root < value {
        root += 1;
    }
    while root > 1 && (root - 1) * (root - 1) >= value {
        root -= 1;
    }
    root.max(1)
}

#[no_mangle]
pub extern "C" fn closest_pair(pointer: i32, len: i32) -> i64 {
    let numbers = abi::ints(abi::input(pointer, len), "points");
    let n = numbers.len() / 2;
    let mut xs: Vec<i64> = numbers.iter().step_by(2).copied().collect();
    let mut ys: Vec<i64> = numbers.iter().skip(1).step_by(2).copied().collect();
    // A fixed random order (xorshift), so the fuel is the same on every run.
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    for i in (1..n).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let j = (state % (i as u64 + 1)) as usize;
        xs.swap(i, j);
        ys.swap(i, j);
    }
    let distance = |i: usize, j: usize| {
        let (dx, dy) = (xs[i] - xs[j], ys[i] - ys[j]);
        dx * dx + dy * dy
    };
    let mut best = distance(0, 1);
    let mut grid = Grid::new(n);
    if best > 0 {
        grid.rebuild(ceiling_root(best), &xs, &ys, 1);
    }
    let mut index = 2;
    while index < n && best > 0 {
        let (cx, cy) = grid.cell(xs[index], ys[index]);
        let mut closer = best;
        for ox in cx - 1..=cx + 1 {
            for oy in cy - 1..=cy + 1 {
                let mut other = grid.first(ox, oy);
                while other != NONE {
                    closer = closer.min(distance(index, other as usize));
                    other = grid.next[other as usize];
                }
            }
        }
        if closer < best {
            best = closer;
            if best > 0 {
                grid.rebuild(ceiling_root(best), &xs, &ys, index);
            }
        } else {
            grid.insert(index, xs[index], ys[index]);
        }
        index += 1;
    }
    abi::answer(format!("{{\"distance\":{}}}", best))
}
