//! max-flow, slow: Ford and Fulkerson's method with depth-first searches. Each round searches
//! the residual network depth first for any path from the source to the sink, and pushes its
//! bottleneck along it, until there is none. Correct, but the path a depth-first search finds
//! can be long, with a small bottleneck: on a network whose maximum flow is thousands of small
//! units, every unit costs a search of up to the whole network. O(m · flow) at worst.
mod abi;

/// The residual network: edge `e` and its reverse `e ^ 1`; the edges leaving node `u` are
/// `out[first[u]..first[u + 1]]`, in the order of the input.
struct Network {
    first: Vec<u32>,
    out: Vec<u32>,
    to: Vec<u32>,
    room: Vec<i64>,
}

fn read_network(input: &[u8]) -> (Network, usize, usize) {
    let nodes = abi::int(input, "nodes") as usize;
    let source = abi::int(input, "source") as usize;
    let sink = abi::int(input, "sink") as usize;
    let flat = abi::ints(input, "edges"); // [from, to, capacity] triples, flattened
    let edges = flat.len() / 3;
    let mut to = vec![0u32; 2 * edges];
    let mut room = vec![0i64; 2 * edges];
    let mut first = vec![0u32; nodes + 1];
    for (index, edge) in flat.chunks_exact(3).enumerate() {
        to[2 * index] = edge[1] as u32;
        to[2 * index + 1] = edge[0] as u32;
        room[2 * index] = edge[2];
        first[edge[0] as usize + 1] += 1;
        first[edge[1] as usize + 1] += 1;
    }
    for node in 0..nodes {
        first[node + 1] += first[node];
    }
    let mut next = first.clone();
    let mut out = vec![0u32; 2 * edges];
    for (index, edge) in flat.chunks_exact(3).enumerate() {
        for (end, half) in [(edge[0] as usize, 2 * index), (edge[1] as usize, 2 * index + 1)] {
            out[next[end] as usize] = half as u32;
            next[end] += 1;
        }
    }
    (Network { first, out, to, room }, source, sink)
}

#[no_mangle]
pub extern "C" fn max_flow(pointer: i32, len: i32) -> i64 {
    let (mut net, source, sink) = read_network(abi::input(pointer, len));
    let nodes = net.first.len() - 1;
    let mut seen = vec![0u32; nodes]; // the round that last reached each node
    let mut current = vec![0u32; nodes];
    let mut path: Vec<u32> = Vec::with_capacity(nodes);
    let mut total: i64 = 0;
    let mut round = 0u32;
    loop {
        round += 1;
        path.clear();
        seen[source] = round;
        current[source] = net.first[source];
        let mut u = source;
        while u != sink {
            let mut advanced = false;
            while current[u] < net.first[u + 1] {
                let e = net.out[current[u] as usize] as usize;
                current[u] += 1;
                let v = net.to[e] as usize;
                if net.room[e] > 0 && seen[v] != round {
                    seen[v] = round;
                    current[v] = net.first[v];
                    path.push(e as u32);
                    u = v;
                    advanced = true;
                    break;
                }
            }
            if !advanced {
                match path.pop() {
                    Some(e) => u = net.to[e as usize ^ 1] as usize,
                    None => break,
                }
            }
        }
        if u != sink {
            break;
        }
        let bottleneck = path.iter().map(|&e| net.room[e as usize]).min().unwrap();
        for &e in path.iter() {
            net.room[e as usize] -= bottleneck;
            net.room[e as usize ^ 1] += bottleneck;
        }
        total += bottleneck;
    }
    abi::answer(format!("{{\"flow\":{}}}", total))
}
