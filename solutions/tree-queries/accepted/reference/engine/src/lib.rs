//! tree-queries, the reference: binary lifting. A breadth-first pass from the root gives every
//! node its depth (parents may have larger numbers than their children, so index order will not
//! do); then `up[k][v]`, the ancestor 2^k steps above v, is filled one level at a time. A query
//! lifts the deeper node to the other's depth by the bits of the difference, then lifts both
//! while their ancestors differ, from the highest power down: O(log n) steps, no recursion.
mod abi;

#[no_mangle]
pub extern "C" fn tree_distances(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let parents = abi::ints(input, "parents");
    let queries = abi::ints(input, "queries"); // [u, v] pairs, flattened
    let n = parents.len();

    // Children in one array: those of v are kids[start[v]..start[v + 1]].
    let mut start = vec![0u32; n + 1];
    for v in 1..n {
        start[parents[v] as usize + 1] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut kids = vec![0u32; n.saturating_sub(1)];
    for v in 1..n {
        let p = parents[v] as usize;
        kids[fill[p] as usize] = v as u32;
        fill[p] += 1;
    }

    // Breadth-first order from the root: every parent before its children.
    let mut order = Vec::with_capacity(n);
    let mut depth = vec![0u32; n];
    order.push(0u32);
    let mut head = 0;
    while head < order.len() {
        let u = order[head] as usize;
        head += 1;
        for slot in start[u]..start[u + 1] {
            let c = kids[slot as usize];
            depth[c as usize] = depth[u] + 1;
            order.push(c);
        }
    }
    let deepest = depth.iter().copied().max().unwrap_or(0);
    let mut levels = 1;
    while (1u32 << levels) <= deepest {
        levels += 1;
    }

    // up[k * n + v]: the ancestor 2^k steps above v (the root above itself).
    let mut up = vec![0u32; levels * n];
    for v in 1..n {
        up[v] = parents[v] as u32;
    }
    for k in 1..levels {
        let (below, above) = up.split_at_mut(k * n);
        let previous = &below[(k - 1) * n..];
        for v in 0..n {
            above[v] = previous[previous[v] as usize];
        }
    }

    let mut distances = Vec::with_capacity(queries.len() / 2);
    for pair in queries.chunks_exact(2) {
        let (mut u, mut v) = (pair[0] as usize, pair[1] as usize);
        let (du, dv) = (depth[u], depth[v]);
        if du < dv {
            std::mem::swap(&mut u, &mut v);
        }
        let mut gap = du.abs_diff(dv);
        let mut k = 0;
        while gap > 0 {
            if gap & 1 == 1 {
                u = up[k * n + u] as usize;
            }
            gap >>= 1;
            k += 1;
        }
        if u != v {
            for k in (0..levels).rev() {
                let (a, b) = (up[k * n + u], up[k * n + v]);
                if a != b {
                    u = a as usize;
                    v = b as usize;
                }
            }
            u = up[u] as usize;
        }
        distances.push((du + dv - 2 * depth[u]) as i64);
    }
    abi::answer(format!("{{\"distances\":{}}}", abi::json_ints(&distances)))
}
