//! shortest-paths, a wrong answer on purpose: Dijkstra's algorithm with its distances kept in
//! 32 bits, which wrap around once a path weighs more than 2^31 - 1; a smoke input catches it.
mod abi;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[no_mangle]
pub extern "C" fn shortest_paths(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let nodes = abi::int(input, "nodes") as usize;
    let source = abi::int(input, "source") as usize;
    let flat = abi::ints(input, "edges");
    let mut leaving: Vec<Vec<(usize, i32)>> = vec![Vec::new(); nodes];
    for edge in flat.chunks_exact(3) {
        leaving[edge[0] as usize].push((edge[1] as usize, edge[2] as i32));
    }
    let mut distance = vec![-1i32; nodes];
    let mut heap = BinaryHeap::new();
    distance[source] = 0;
    heap.push(Reverse((0i32, source)));
    while let Some(Reverse((reached, node))) = heap.pop() {
        if reached > distance[node] {
            continue;
        }
        for &(next, weight) in &leaving[node] {
            let through = reached.wrapping_add(weight);
            if distance[next] == -1 || through < distance[next] {
                distance[next] = through;
                heap.push(Reverse((through, next)));
            }
        }
    }
    let answer: Vec<i64> = distance.iter().map(|&d| d as i64).collect();
    abi::answer(format!("{{\"distances\":{}}}", abi::json_ints(&answer)))
}
