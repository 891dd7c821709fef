//! shortest-paths, Bellman–Ford: relax every edge, in input order, round after round, until a
//! round changes nothing. Correct for non-negative weights (and negative ones without cycles);
//! a few rounds settle a random graph, but a path whose edges are listed against its direction
//! needs a round per edge, O(n m) in all.
mod abi;

const UNREACHED: u64 = u64::MAX;

#[no_mangle]
pub extern "C" fn shortest_paths(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let nodes = abi::int(input, "nodes") as usize;
    let source = abi::int(input, "source") as usize;
    let flat = abi::ints(input, "edges");
    let edges: Vec<(usize, usize, u64)> =
        flat.chunks_exact(3).map(|edge| (edge[0] as usize, edge[1] as usize, edge[2] as u64)).collect();
    let mut distance = vec![UNREACHED; nodes];
    distance[source] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for &(from, to, weight) in &edges {
            if distance[from] != UNREACHED && distance[from] + weight < distance[to] {
                distance[to] = distance[from] + weight;
                changed = true;
            }
        }
    }
    let answer: Vec<i64> = distance.iter().map(|&d| if d == UNREACHED { -1 } else { d as i64 }).collect();
    abi::answer(format!("{{\"distances\":{}}}", abi::json_ints(&answer)))
}
