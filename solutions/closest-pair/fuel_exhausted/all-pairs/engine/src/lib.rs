//! closest-pair, slow on purpose: compare every pair of points, n(n-1)/2 squared distances.
//! Correct, and quick for a few thousand points; quadratic, so far too slow for tens of thousands.
mod abi;

#[no_mangle]
pub extern "C" fn closest_pair(pointer: i32, len: i32) -> i64 {
    let numbers = abi::ints(abi::input(pointer, len), "points");
    let points: Vec<(i64, i64)> = numbers.chunks_exact(2).map(|pair| (pair[0], pair[1])).collect();
    let mut best = i64::MAX;
    for i in 0..points.len() {
        let (x, y) = points[i];
        for &(u, v) in &points[i + 1..] {
            let (dx, dy) = (x - u, y - v);
            best = best.min(dx * dx + dy * dy);
        }
    }
    abi::answer(format!("{{\"distance\":{}}}", best))
}
