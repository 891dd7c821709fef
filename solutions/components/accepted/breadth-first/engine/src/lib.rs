//! components, another way: adjacency lists in compressed rows, then a breadth-first search from
//! every node not yet reached, counting each component's nodes as it is walked.
mod abi;

#[no_mangle]
pub extern "C" fn count_components(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let nodes = abi::int(input, "nodes") as usize;
    let ends = abi::ints(input, "edges");
    // Each node's neighbours, in one array: start[v]..start[v + 1].
    let mut start = vec![0u32; nodes + 1];
    for pair in ends.chunks(2) {
        start[pair[0] as usize + 1] += 1;
        start[pair[1] as usize + 1] += 1;
    }
    for node in 0..nodes {
        start[node + 1] += start[node];
    }
    let mut next = start.clone();
    let mut neighbours = vec![0u32; ends.len()];
    for pair in ends.chunks(2) {
        let (a, b) = (pair[0] as usize, pair[1] as usize);
        neighbours[next[a] as usize] = b as u32;
        next[a] += 1;
        neighbours[next[b] as usize] = a as u32;
        next[b] += 1;
    }
    let mut seen = vec![false; nodes];
    let mut queue: Vec<u32> = Vec::with_capacity(nodes);
    let (mut components, mut largest) = (0usize, 0usize);
    for first in 0..nodes {
        if seen[first] {
            continue;
        }
        components += 1;
        seen[first] = true;
        queue.clear();
        queue.push(first as u32);
        let mut head = 0;
        while head < queue.len() {
            let node = queue[head] as usize;
            head += 1;
            for &other in &neighbours[start[node] as usize..start[node + 1] as usize] {
                if !seen[other as usize] {
                    seen[other as usize] = true;
                    queue.push(other);
                }
            }
        }
        largest = largest.max(queue.len());
    }
    abi::answer(format!("{{\"components\":{},\"largest\":{}}}", components, largest))
}
