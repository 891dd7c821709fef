//! shortest-paths, Dijkstra's algorithm with a radix heap: Dijkstra only ever pops keys no
//! smaller than the last one popped, so keys can be filed in 65 buckets by the highest bit in
//! which they differ from that last key. Popping empties the lowest non-empty bucket, and when
//! that is not bucket 0 redistributes it by its smallest key: each key moves to lower buckets
//! only, at most 64 times.
mod abi;

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

struct RadixHeap {
    last: u64,
    buckets: Vec<Vec<(u64, u32)>>,
    size: usize,
}

impl RadixHeap {
    fn new() -> RadixHeap {
        RadixHeap { last: 0, buckets: (0..65).map(|_| Vec::new()).collect(), size: 0 }
    }

    fn bucket(&self, key: u64) -> usize {
        (64 - (key ^ self.last).leading_zeros()) as usize
    }

    fn push(&mut self, key: u64, node: u32) {
        let bucket = self.bucket(key);
        self.buckets[bucket].push((key, node));
        self.size += 1;
    }

    fn pop(&mut self) -> Option<(u64, u32)> {
        if self.size == 0 {
            return None;
        }
        if self.buckets[0].is_empty() {
            let lowest = (1..65).find(|&bucket| !self.buckets[bucket].is_empty()).unwrap();
            let moved = std::mem::take(&mut self.buckets[lowest]);
            self.last = moved.iter().map(|&(key, _)| key).min().unwrap();
            for &(key, node) in &moved {
                let bucket = self.bucket(key);
                self.buckets[bucket].push((key, node));
            }
            self.buckets[lowest] = moved;
            self.buckets[lowest].clear(); // keep its allocation for later
        }
        self.size -= 1;
        self.buckets[0].pop()
    }
}

#[no_mangle]
pub extern "C" fn shortest_paths(pointer: i32, len: i32) -> i64 {
    let (graph, source) = read_graph(abi::input(pointer, len));
    let nodes = graph.first.len() - 1;
    let mut distance = vec![UNREACHED; nodes];
    let mut heap = RadixHeap::new();
    distance[source] = 0;
    heap.push(0, source as u32);
    while let Some((reached, node)) = heap.pop() {
        let node = node as usize;
        if reached > distance[node] {
            continue;
        }
        for slot in graph.first[node] as usize..graph.first[node + 1] as usize {
            let (next, through) = (graph.targets[slot] as usize, reached + graph.weights[slot]);
            if through < distance[next] {
                distance[next] = through;
                heap.push(through, next as u32);
            }
        }
    }
    let answer: Vec<i64> = distance.iter().map(|&d| if d == UNREACHED { -1 } else { d as i64 }).collect();
    abi::answer(format!("{{\"distances\":{}}}", abi::json_ints(&answer)))
}
