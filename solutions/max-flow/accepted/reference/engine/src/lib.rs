//! max-flow, the reference: Dinic's algorithm. Each phase labels the nodes by their distance from
//! the source in the residual network (a breadth-first search), then finds a blocking flow along
//! edges that go one level further, by depth-first searches that never retry an edge they have
//! found useless (each node keeps its current edge). At most n phases of O(n m) each, and far
//! fewer in practice.
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
    let mut level = vec![u32::MAX; nodes];
    let mut queue = vec![0u32; nodes];
    let mut current = vec![0u32; nodes];
    let mut path: Vec<u32> = Vec::with_capacity(nodes); // the edges from the source so far
    let mut total: i64 = 0;
    loop {
        // Levels: breadth-first from the source over edges with room left.
        level.iter_mut().for_each(|l| *l = u32::MAX);
        level[source] = 0;
        queue[0] = source as u32;
        let (mut head, mut tail) = (0, 1);
        while head < tail {
            let u = queue[head] as usize;
            head += 1;
            for slot in net.first[u]..net.first[u + 1] {
                let e = net.out[slot as usize] as usize;
                let v = net.to[e] as usize;
                if net.room[e] > 0 && level[v] == u32::MAX {
                    level[v] = level[u] + 1;
                    queue[tail] = v as u32;
                    tail += 1;
                }
            }
        }
        if level[sink] == u32::MAX {
            break;
        }
        current.copy_from_slice(&net.first[..nodes]);
        // A blocking flow: walk forward along level edges; at the sink, push the bottleneck and
        // start again from the source; at a dead end, retreat and drop the edge that led there.
        path.clear();
        let mut u = source;
        loop {
            if u == sink {
                let bottleneck = path.iter().map(|&e| net.room[e as usize]).min().unwrap();
                for &e in path.iter() {
                    net.room[e as usize] -= bottleneck;
                    net.room[e as usize ^ 1] += bottleneck;
                }
                total += bottleneck;
                path.clear();
                u = source;
                continue;
            }
            let mut advanced = false;
            while current[u] < net.first[u + 1] {
                let e = net.out[current[u] as usize] as usize;
                let v = net.to[e] as usize;
                if net.room[e] > 0 && level[v] == level[u] + 1 {
                    path.push(e as u32);
                    u = v;
                    advanced = true;
                    break;
                }
                current[u] += 1;
            }
            if advanced {
                continue;
            }
            // Dead end: nothing more reaches the sink through u in this phase.
            level[u] = u32::MAX;
            match path.pop() {
                Some(e) => {
                    u = net.to[e as usize ^ 1] as usize;
                    current[u] += 1;
                }
                None => break,
            }
        }
    }
    abi::answer(format!("{{\"flow\":{}}}", total))
}
