//! spanning-tree, wrong on purpose: Prim's algorithm grown from node 0 only. It finds the tree of
//! node 0's component and reports one tree, so nodes in other components (an isolated node, a
//! second component) are left out.
mod abi;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[no_mangle]
pub extern "C" fn span_forest(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let nodes = abi::int(input, "nodes") as usize;
    let flat = abi::ints(input, "edges");
    let mut neighbours: Vec<Vec<(u64, u32)>> = vec![Vec::new(); nodes];
    for edge in flat.chunks_exact(3) {
        neighbours[edge[0] as usize].push((edge[2] as u64, edge[1] as u32));
        neighbours[edge[1] as usize].push((edge[2] as u64, edge[0] as u32));
    }
    let mut done = vec![false; nodes];
    let mut heap = BinaryHeap::new();
    heap.push(Reverse((0u64, 0u32)));
    let mut weight = 0u64;
    while let Some(Reverse((cost, node))) = heap.pop() {
        if done[node as usize] {
            continue;
        }
        done[node as usize] = true;
        weight += cost;
        for &(w, next) in &neighbours[node as usize] {
            if !done[next as usize] {
                heap.push(Reverse((w, next)));
            }
        }
    }
    abi::answer(format!("{{\"weight\":{},\"trees\":1}}", weight))
}
