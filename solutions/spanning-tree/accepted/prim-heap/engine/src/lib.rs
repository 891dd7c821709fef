//! spanning-tree, another approach: Prim's algorithm with a binary heap, grown from every node
//! not yet reached (each start is a new tree). The heap holds candidate edges (weight, node);
//! a popped node already in a tree is skipped (lazy deletion).
mod abi;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[no_mangle]
pub extern "C" fn span_forest(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let nodes = abi::int(input, "nodes") as usize;
    let flat = abi::ints(input, "edges");
    // Adjacency in compressed rows: each edge is listed at both ends.
    let mut start = vec![0usize; nodes + 1];
    for edge in flat.chunks_exact(3) {
        start[edge[0] as usize + 1] += 1;
        start[edge[1] as usize + 1] += 1;
    }
    for node in 0..nodes {
        start[node + 1] += start[node];
    }
    let mut fill = start.clone();
    let mut targets = vec![(0u64, 0u32); start[nodes]];
    for edge in flat.chunks_exact(3) {
        let (u, v, w) = (edge[0] as usize, edge[1] as usize, edge[2] as u64);
        targets[fill[u]] = (w, v as u32);
        fill[u] += 1;
        targets[fill[v]] = (w, u as u32);
        fill[v] += 1;
    }
    let mut best = vec![u64::MAX; nodes];
    let mut done = vec![false; nodes];
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    let (mut weight, mut trees) = (0u64, 0u64);
    for first in 0..nodes {
        if done[first] {
            continue;
        }
        trees += 1;
        best[first] = 0;
        heap.push(Reverse((0, first as u32)));
        while let Some(Reverse((cost, node))) = heap.pop() {
            let node = node as usize;
            if done[node] {
                continue;
            }
            done[node] = true;
            weight += cost;
            for &(w, next) in &targets[start[node]..start[node + 1]] {
                let next_index = next as usize;
                if !done[next_index] && w < best[next_index] {
                    best[next_index] = w;
                    heap.push(Reverse((w, next)));
                }
            }
        }
    }
    abi::answer(format!("{{\"weight\":{},\"trees\":{}}}", weight, trees))
}
