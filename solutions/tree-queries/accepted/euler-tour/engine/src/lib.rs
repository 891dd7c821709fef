//! tree-queries, another way: an Euler tour and a sparse table. A depth-first walk with an
//! explicit stack (no recursion: a tree may be a path 100,000 deep) writes the depth of every
//! node it stands on, on arrival and after each child, 2n - 1 entries; the lowest common
//! ancestor of u and v is the shallowest node the walk passes between its first visits to u and
//! v, so its depth is a range minimum, answered in O(1) from a table of minima over every
//! power-of-two window.
mod abi;

#[no_mangle]
pub extern "C" fn tree_distances(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let parents = abi::ints(input, "parents");
    let queries = abi::ints(input, "queries"); // [u, v] pairs, flattened
    let n = parents.len();

    // Children in one array: those of v are kids[start[v]..start[v + 1]].
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

    // The tour: `next[u]` is the next child of u to enter (fill is reused for it).
    let mut tour: Vec<u32> = Vec::with_capacity(2 * n);
    let mut first = vec![0u32; n];
    let mut depth = vec![0u32; n];
    let mut stack: Vec<u32> = Vec::with_capacity(n);
    let next = &mut fill;
    next[..n].copy_from_slice(&start[..n]);
    stack.push(0);
    first[0] = 0;
    tour.push(0);
    while let Some(&top) = stack.last() {
        let u = top as usize;
        if next[u] < start[u + 1] {
            let c = kids[next[u] as usize] as usize;
            next[u] += 1;
            depth[c] = depth[u] + 1;
            first[c] = tour.len() as u32;
            tour.push(depth[c]);
            stack.push(c as u32);
        } else {
            stack.pop();
            if let Some(&p) = stack.last() {
                tour.push(depth[p as usize]);
            }
        }
    }

    // table[k][i] = min(tour[i .. i + 2^k]).
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
        let row = &table[k];
        let top = row[a].min(row[b + 1 - (1 << k)]);
        distances.push((depth[u] + depth[v] - 2 * top) as i64);
    }
    abi::answer(format!("{{\"distances\":{}}}", abi::json_ints(&distances)))
}
