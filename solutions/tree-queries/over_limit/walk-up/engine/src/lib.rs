//! tree-queries, the slow way: depths from a breadth-first pass (right), then, per query, the
//! deeper node climbs one parent at a time to the other's depth, and both climb together until
//! they meet. Correct, and as costly as the distance from the nodes to their common ancestor:
//! on a path-like tree tens of thousands of steps per query.
mod abi;

#[no_mangle]
pub extern "C" fn tree_distances(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let parents = abi::ints(input, "parents");
    let queries = abi::ints(input, "queries"); // [u, v] pairs, flattened
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
    let mut order = Vec::with_capacity(n);
    let mut depth = vec![0u32; n];
    order.push(0u32);
    let mut head = 0;
    while head < order.len() {
        let u = order[head] as usize;
        head += 1;
        for slot in start[u]..start[u + 1] {
            let c = kids[slot as usize];
            depth[c as usize] = depth[u] + 1;
            order.push(c);
        }
    }
    let parent: Vec<u32> = parents.iter().map(|&p| p.max(0) as u32).collect();

    let mut distances = Vec::with_capacity(queries.len() / 2);
    for pair in queries.chunks_exact(2) {
        let (mut u, mut v) = (pair[0] as usize, pair[1] as usize);
        let mut steps = 0i64;
        while depth[u] > depth[v] {
            u = parent[u] as usize;
            steps += 1;
        }
        while depth[v] > depth[u] {
            v = parent[v] as usize;
            steps += 1;
        }
        while u != v {
            u = parent[u] as usize;
            v = parent[v] as usize;
            steps += 2;
        }
        distances.push(steps);
    }
    abi::answer(format!("{{\"distances\":{}}}", abi::json_ints(&distances)))
}
