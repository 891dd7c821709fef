//! tree-queries, wrong: binary lifting, with every depth computed in index order as
//! `depth[v] = depth[parent[v]] + 1`. That assumes every parent has a smaller number than its
//! children; the rules do not promise it, and where a parent comes later its depth is still 0
//! when its children read it.
mod abi;

#[no_mangle]
pub extern "C" fn tree_distances(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let parents = abi::ints(input, "parents");
    let queries = abi::ints(input, "queries");
    let n = parents.len();

    let mut depth = vec![0u32; n];
    for v in 1..n {
        depth[v] = depth[parents[v] as usize] + 1;
    }
    let deepest = depth.iter().copied().max().unwrap_or(0);
    let mut levels = 1;
    while (1u32 << levels) <= deepest.max(n as u32) {
        levels += 1;
    }
    let mut up = vec![0u32; levels * n];
    for v in 1..n {
        up[v] = parents[v] as u32;
    }
    for k in 1..levels {
        for v in 0..n {
            up[k * n + v] = up[(k - 1) * n + up[(k - 1) * n + v] as usize];
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
        distances.push(du as i64 + dv as i64 - 2 * depth[u] as i64);
    }
    abi::answer(format!("{{\"distances\":{}}}", abi::json_ints(&distances)))
}
