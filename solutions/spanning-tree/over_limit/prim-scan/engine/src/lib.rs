//! spanning-tree, the slow way: Prim's algorithm as for an adjacency matrix. Each step scans
//! every node for the cheapest one not yet in a tree (a new tree starts when none is reachable),
//! then updates the costs of its neighbours: n steps of n, whatever the number of edges. Right
//! for dense graphs, and quadratic on large sparse ones.
mod abi;

#[no_mangle]
pub extern "C" fn span_forest(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let nodes = abi::int(input, "nodes") as usize;
    let flat = abi::ints(input, "edges");
    let mut neighbours: Vec<Vec<(u64, usize)>> = vec![Vec::new(); nodes];
    for edge in flat.chunks_exact(3) {
        let (u, v, w) = (edge[0] as usize, edge[1] as usize, edge[2] as u64);
        neighbours[u].push((w, v));
        neighbours[v].push((w, u));
    }
    let mut best = vec![u64::MAX; nodes];
    let mut done = vec![false; nodes];
    let (mut weight, mut trees) = (0u64, 0u64);
    for _ in 0..nodes {
        // The cheapest node outside every tree; u64::MAX means nothing reaches it yet.
        let mut pick = usize::MAX;
        for node in 0..nodes {
            if !done[node] && (pick == usize::MAX || best[node] < best[pick]) {
                pick = node;
            }
        }
        if best[pick] == u64::MAX {
            trees += 1; // a new tree starts here
        } else {
            weight += best[pick];
        }
        done[pick] = true;
        for &(w, next) in &neighbours[pick] {
            if !done[next] && w < best[next] {
                best[next] = w;
            }
        }
    }
    abi::answer(format!("{{\"weight\":{},\"trees\":{}}}", weight, trees))
}
