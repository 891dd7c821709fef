//! spanning-tree, the reference: Kruskal's algorithm with a disjoint-set forest. The edges are
//! packed into one 64-bit key each (weight, then the two ends) and sorted; an edge is kept when
//! its ends lie in different trees, and the two trees are joined (union by size, path halving).
mod abi;

fn root(parent: &mut [u32], mut node: u32) -> u32 {
    while parent[node as usize] != node {
        let grand = parent[parent[node as usize] as usize];
        parent[node as usize] = grand;
        node = grand;
    }
    node
}

#[no_mangle]
pub extern "C" fn span_forest(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let nodes = abi::int(input, "nodes") as usize;
    let flat = abi::ints(input, "edges");
    // weight < 2^30 and both ends < 2^17: (weight << 34) | (u << 17) | v sorts by weight.
    let mut keys: Vec<u64> = flat
        .chunks_exact(3)
        .map(|edge| ((edge[2] as u64) << 34) | ((edge[0] as u64) << 17) | edge[1] as u64)
        .collect();
    keys.sort_unstable();
    let mut parent: Vec<u32> = (0..nodes as u32).collect();
    let mut size = vec![1u32; nodes];
    let (mut weight, mut trees) = (0u64, nodes as u64);
    for key in keys {
        if trees == 1 {
            break; // one tree already spans every node
        }
        let (u, v) = (((key >> 17) & 0x1ffff) as u32, (key & 0x1ffff) as u32);
        let (mut a, mut b) = (root(&mut parent, u), root(&mut parent, v));
        if a != b {
            if size[a as usize] < size[b as usize] {
                std::mem::swap(&mut a, &mut b);
            }
            parent[b as usize] = a;
            size[a as usize] += size[b as usize];
            weight += key >> 34;
            trees -= 1;
        }
    }
    abi::answer(format!("{{\"weight\":{},\"trees\":{}}}", weight, trees))
}
