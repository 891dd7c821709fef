//! convex-hull, the reference: Andrew's monotone chain. The points are sorted by x then y (each
//! packed into one u64 key), repeats dropped, and the lower and upper hulls built in one pass
//! each, dropping every point that is not a strict left turn. O(n log n) for the sort, O(n)
//! after it. Twice the area by the shoelace formula in 128-bit integers.
mod abi;

/// (x, y) with both in ±10^9, as a key whose unsigned order is the order by x, then y.
fn key(x: i64, y: i64) -> u64 {
    (((x + (1 << 31)) as u64) << 32) | (y + (1 << 31)) as u64
}

fn point(key: u64) -> (i64, i64) {
    ((key >> 32) as i64 - (1 << 31), (key & 0xffff_ffff) as i64 - (1 << 31))
}

/// Twice the signed area of the triangle o, a, b: positive when o → a → b turns left. Each
/// product is below 4 * 10^18 in size, so i64 holds the difference.
fn cross(o: (i64, i64), a: (i64, i64), b: (i64, i64)) -> i64 {
    (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
}

#[no_mangle]
pub extern "C" fn convex_hull(pointer: i32, len: i32) -> i64 {
    let flat = abi::ints(abi::input(pointer, len), "points");
    let mut keys: Vec<u64> = flat.chunks_exact(2).map(|p| key(p[0], p[1])).collect();
    keys.sort_unstable();
    keys.dedup();
    let points: Vec<(i64, i64)> = keys.iter().map(|&k| point(k)).collect();
    if points.len() <= 1 {
        return abi::answer(format!("{{\"vertices\":{},\"area2\":0}}", points.len()));
    }
    let mut hull: Vec<(i64, i64)> = Vec::with_capacity(points.len() + 1);
    for &p in points.iter() {
        while hull.len() >= 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0 {
            hull.pop();
        }
        hull.push(p);
    }
    let lower = hull.len() + 1;
    for &p in points.iter().rev().skip(1) {
        while hull.len() >= lower && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0 {
            hull.pop();
        }
        hull.push(p);
    }
    hull.pop(); // the first point again
    let mut twice: i128 = 0;
    for index in 0..hull.len() {
        let (a, b) = (hull[index], hull[(index + 1) % hull.len()]);
        twice += a.0 as i128 * b.1 as i128 - b.0 as i128 * a.1 as i128;
    }
    abi::answer(format!("{{\"vertices\":{},\"area2\":{}}}", hull.len(), twice.abs()))
}
