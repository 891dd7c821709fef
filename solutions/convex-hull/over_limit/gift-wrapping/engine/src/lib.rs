//! convex-hull, slow: gift wrapping (Jarvis's march). From the leftmost point, each step scans
//! every point for the one that leaves all the others on its left (the farthest, among points
//! on one line), and walks there, until it is back where it began. Correct, and quick when the
//! hull has few corners, but it costs n for each of the h corners: O(n h), and a hull that
//! looks like a circle has thousands of them.
mod abi;

type Point = (i64, i64);

/// Twice the signed area of o, a, b: positive for a left turn (fits i64: coordinates are ±10^9).
fn cross(o: Point, a: Point, b: Point) -> i64 {
    (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
}

fn distance2(a: Point, b: Point) -> i64 {
    (a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)
}

#[no_mangle]
pub extern "C" fn convex_hull(pointer: i32, len: i32) -> i64 {
    let flat = abi::ints(abi::input(pointer, len), "points");
    let points: Vec<Point> = flat.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    let start = *points.iter().min().unwrap();
    let mut current = start;
    let mut corners = 0u64;
    let mut twice: i128 = 0;
    loop {
        let mut next = current;
        for &q in points.iter() {
            if q == current {
                continue;
            }
            if next == current {
                next = q;
                continue;
            }
            let turn = cross(current, next, q);
            if turn < 0 || (turn == 0 && distance2(current, q) > distance2(current, next)) {
                next = q;
            }
        }
        corners += 1;
        if next == current {
            break; // every point is the same point
        }
        twice += current.0 as i128 * next.1 as i128 - next.0 as i128 * current.1 as i128;
        current = next;
        if current == start {
            break;
        }
    }
    abi::answer(format!("{{\"vertices\":{},\"area2\":{}}}", corners, twice.abs()))
}
