//! components, the reference: a disjoint-set forest (union by size, path halving), each edge
//! joined once in nearly constant time.
mod abi;

fn root(parent: &mut [u32], mut node: u32) -> u32 {
    while parent[node as usize] != node {
        let up = parent[parent[node as usize] as usize];
        parent[node as usize] = up;
        node = up;
    }
    node
}

#[no_mangle]
pub extern "C" fn count_components(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let nodes = abi::int(input, "nodes") as usize;
    let ends = abi::ints(input, "edges");
    let mut parent: Vec<u32> = (0..nodes as u32).collect();
    let mut size = vec![1u32; nodes];
    let mut components = nodes;
    for pair in ends.chunks(2) {
        let (a, b) = (root(&mut parent, pair[0] as u32), root(&mut parent, pair[1] as u32));
        if a == b {
            continue;
        }
        let (big, small) = if size[a as usize] >= size[b as usize] { (a, b) } else { (b, a) };
        parent[small as usize] = big;
        size[big as usize] += size[small as usize];
        components -= 1;
    }
    let largest = (0..nodes).filter(|&node| parent[node] as usize == node).map(|node| size[node]).max().unwrap_or(0);
    abi::answer(format!("{{\"components\":{},\"largest\":{}}}", components, largest))
}
