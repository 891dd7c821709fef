//! spanning-tree, wrong on purpose: Kruskal's algorithm, right in every choice, but the total is
//! kept in a 32-bit integer, which wraps once it passes 2^31 - 1.
mod abi;

fn root(parent: &mut [usize], mut node: usize) -> usize {
    while parent[node] != node {
        parent[node] = parent[parent[node]];
        node = parent[node];
    }
    node
}

#[no_mangle]
pub extern "C" fn span_forest(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let nodes = abi::int(input, "nodes") as usize;
    let flat = abi::ints(input, "edges");
    let mut edges: Vec<(i32, usize, usize)> =
        flat.chunks_exact(3).map(|edge| (edge[2] as i32, edge[0] as usize, edge[1] as usize)).collect();
    edges.sort_unstable();
    let mut parent: Vec<usize> = (0..nodes).collect();
    let (mut weight, mut trees) = (0i32, nodes);
    for (w, u, v) in edges {
        let (a, b) = (root(&mut parent, u), root(&mut parent, v));
        if a != b {
            parent[a] = b;
            weight = weight.wrapping_add(w);
            trees -= 1;
        }
    }
    abi::answer(format!("{{\"weight\":{},\"trees\":{}}}", weight, trees))
}
