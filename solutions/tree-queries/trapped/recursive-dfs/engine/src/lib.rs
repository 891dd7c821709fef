//! tree-queries, trapped: an Euler tour and a sparse table, right in every answer, but the tour
//! is walked by a recursive function, one call frame per level of the tree. On a path-like tree
//! tens of thousands of levels deep the call stack runs out and the module traps.
mod abi;

struct Tour<'a> {
    start: &'a [u32],
    kids: &'a [u32],
    depth: Vec<u32>,
    first: Vec<u32>,
    tour: Vec<u32>,
}

impl Tour<'_> {
    fn visit(&mut self, u: usize, d: u32) {
        self.depth[u] = d;
        self.first[u] = self.tour.len() as u32;
        self.tour.push(d);
        for slot in self.start[u]..self.start[u + 1] {
            let c = self.kids[slot as usize] as usize;
            self.visit(c, d + 1);
            self.tour.push(d);
        }
    }
}

#[no_mangle]
pub extern "C" fn tree_distances(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let parents = abi::ints(input, "parents");
    let queries = abi::ints(input, "queries");
    let n = parents.len();

    let mut start = vec![0u32; n + 1];
    for v in 1..n {
        start[parents[v] as usize + 1] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut kids = vec![0u32; n.saturating_sub(1)];
    for v in 1..n {
        let p = parents[v] as usize;
        kids[fill[p] as usize] = v as u32;
        fill[p] += 1;
    }
    let mut walk = Tour { start: &start, kids: &kids, depth: vec![0; n], first: vec![0; n], tour: Vec::new() };
    walk.visit(0, 0);
    let Tour { depth, first, tour, .. } = walk;

    let m = tour.len();
    let mut log = vec![0u32; m + 1];
    for i in 2..=m {
        log[i] = log[i / 2] + 1;
    }
    let mut table: Vec<Vec<u32>> = vec![tour];
    let mut k = 1;
    while (1usize << k) <= m {
        let half = 1usize << (k - 1);
        let below = &table[k - 1];
        let row: Vec<u32> = (0..=m - (1 << k)).map(|i| below[i].min(below[i + half])).collect();
        table.push(row);
        k += 1;
    }
    let mut distances = Vec::with_capacity(queries.len() / 2);
    for pair in queries.chunks_exact(2) {
        let (u, v) = (pair[0] as usize, pair[1] as usize);
        let (a, b) = (first[u].min(first[v]) as usize, first[u].max(first[v]) as usize);
        let k = log[b - a + 1] as usize;
        let top = table[k][a].min(table[k][b + 1 - (1 << k)]);
        distances.push((depth[u] + depth[v] - 2 * top) as i64);
    }
    abi::answer(format!("{{\"distances\":{}}}", abi::json_ints(&distances)))
}
