//! shortest-paths, the reference: Dijkstra's algorithm with a binary heap (the standard
//! library's), lazily: a node may be pushed once per improvement, and a popped entry older than
//! the node's distance is skipped. O((n + m) log m).
mod abi;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The graph of the input in compressed form: the edges leaving node `u` are
/// `targets[first[u]..first[u + 1]]`, with their weights beside them.
struct Graph {
    first: Vec<u32>,
    targets: Vec<u32>,
    weights: Vec<u64>,
}

fn read_graph(input: &[u8]) -> (Graph, usize) {
    let nodes = abi::int(input, "nodes") as usize;
    let source = abi::int(input, "source") as usize;
    let flat = abi::ints(input, "edges"); // [from, to, weight] triples, flattened
    let mut first = vec![0u32; nodes + 1];
    for edge in flat.chunks_exact(3) {
        first[edge[0] as usize + 1] += 1;
    }
    for node in 0..nodes {
        first[node + 1] += first[node];
    }
    let mut next = first.clone();
    let mut targets = vec![0u32; flat.len() / 3];
    let mut weights = vec![0u64; flat.len() / 3];
    for edge in flat.chunks_exact(3) {
        let slot = next[edge[0] as usize] as usize;
        next[edge[0] as usize] += 1;
        targets[slot] = edge[1] as u32;
        weights[slot] = edge[2] as u64;
    }
    (Graph { first, targets, weights }, source)
}

const UNREACHED: u64 = u64::MAX;

#[no_mangle]
pub extern "C" fn shortest_paths(pointer: i32, len: i32) -> i64 {
    let (graph, source) = read_graph(abi::input(pointer, len));
    let nodes = graph.first.len() - 1;
    let mut distance = vec![UNREACHED; nodes];
    let mut heap = BinaryHeap::new();
    distance[source] = 0;
    heap.push(Reverse((0u64, source as u32)));
    while let Some(Reverse((reached, node))) = heap.pop() {
        let node = node as usize;
        if reached > distance[node] {
            continue;
        }
        for slot in graph.first[node] as usize..graph.first[node + 1] as usize {
            let (next, through) = (graph.targets[slot] as usize, reached + graph.weights[slot]);
            if through < distance[next] {
                distance[next] = through;
                heap.push(Reverse((through, next as u32)));
            }
        }
    }
    let answer: Vec<i64> = distance.iter().map(|&d| if d == UNREACHED { -1 } else { d as i64 }).collect();
    abi::answer(format!("{{\"distances\":{}}}", abi::json_ints(&answer)))
}
