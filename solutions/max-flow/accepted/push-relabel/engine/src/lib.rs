//! max-flow, accepted: push–relabel (Goldberg and Tarjan), first in, first out. Every node has a
//! height; the source's edges are saturated, and each node with excess pushes it along residual
//! edges one step downhill, and is lifted when it cannot. Heights start, and are recomputed every
//! so often, as exact distances to the sink (a breadth-first search backwards: the global
//! relabelling), and a height that no node has any more cuts off every node above it (the gap
//! rule). A node at height n or more can no longer reach the sink; when no node below that has
//! excess, the sink's excess is the maximum flow. O(n^3) at worst.
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

/// Heights as distances to the sink through edges with room (n where the sink is out of reach),
/// and how many nodes have each height below n.
fn global_relabel(net: &Network, sink: usize, source: usize, height: &mut [u32], count: &mut [u32], queue: &mut [u32]) {
    let nodes = height.len() as u32;
    height.iter_mut().for_each(|h| *h = nodes);
    count.iter_mut().for_each(|c| *c = 0);
    height[sink] = 0;
    queue[0] = sink as u32;
    let (mut head, mut tail) = (0, 1);
    while head < tail {
        let v = queue[head] as usize;
        head += 1;
        count[height[v] as usize] += 1;
        for slot in net.first[v]..net.first[v + 1] {
            let e = net.out[slot as usize] as usize;
            let w = net.to[e] as usize; // the edge w -> v is e ^ 1
            if w != source && height[w] == nodes && net.room[e ^ 1] > 0 {
                height[w] = height[v] + 1;
                queue[tail] = w as u32;
                tail += 1;
            }
        }
    }
    height[source] = nodes;
}

#[no_mangle]
pub extern "C" fn max_flow(pointer: i32, len: i32) -> i64 {
    let (mut net, source, sink) = read_network(abi::input(pointer, len));
    let nodes = net.first.len() - 1;
    let n = nodes as u32;
    let mut height = vec![0u32; nodes];
    let mut count = vec![0u32; nodes + 1];
    let mut excess = vec![0i64; nodes];
    let mut current: Vec<u32> = net.first[..nodes].to_vec();
    let mut scratch = vec![0u32; nodes];
    let mut active = std::collections::VecDeque::with_capacity(nodes);
    let mut queued = vec![false; nodes];
    global_relabel(&net, sink, source, &mut height, &mut count, &mut scratch);
    for slot in net.first[source]..net.first[source + 1] {
        let e = net.out[slot as usize] as usize;
        let (v, amount) = (net.to[e] as usize, net.room[e]);
        if amount > 0 && v != source {
            net.room[e] = 0;
            net.room[e ^ 1] += amount;
            excess[v] += amount;
            if v != sink && !queued[v] {
                queued[v] = true;
                active.push_back(v as u32);
            }
        }
    }
    let mut relabels = 0usize;
    while let Some(u) = active.pop_front() {
        let u = u as usize;
        queued[u] = false;
        while excess[u] > 0 && height[u] < n {
            if current[u] == net.first[u + 1] {
                // Lift u just above its lowest neighbour with room, and watch for a gap.
                let old = height[u];
                let mut lowest = 2 * n;
                for slot in net.first[u]..net.first[u + 1] {
                    let e = net.out[slot as usize] as usize;
                    if net.room[e] > 0 {
                        lowest = lowest.min(height[net.to[e] as usize] + 1);
                    }
                }
                let new = lowest.min(n);
                count[old as usize] -= 1;
                if count[old as usize] == 0 {
                    for h in height.iter_mut() {
                        if *h > old && *h < n {
                            count[*h as usize] -= 1;
                            *h = n;
                        }
                    }
                    height[u] = n;
                } else {
                    height[u] = new;
                    if new < n {
                        count[new as usize] += 1;
                    }
                }
                current[u] = net.first[u];
                relabels += 1;
                if relabels >= nodes {
                    relabels = 0;
                    global_relabel(&net, sink, source, &mut height, &mut count, &mut scratch);
                    current.copy_from_slice(&net.first[..nodes]);
                }
                continue;
            }
            let e = net.out[current[u] as usize] as usize;
            let v = net.to[e] as usize;
            if net.room[e] > 0 && height[u] == height[v] + 1 {
                let amount = excess[u].min(net.room[e]);
                net.room[e] -= amount;
                net.room[e ^ 1] += amount;
                excess[u] -= amount;
                excess[v] += amount;
                if v != sink && v != source && !queued[v] {
                    queued[v] = true;
                    active.push_back(v as u32);
                }
            } else {
                current[u] += 1;
            }
        }
    }
    abi::answer(format!("{{\"flow\":{}}}", excess[sink]))
}
