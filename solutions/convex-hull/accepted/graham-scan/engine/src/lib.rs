//! convex-hull, accepted: Graham's scan. The lowest point (the leftmost of the lowest) is the
//! pivot; the others are sorted by their angle about it, compared exactly with cross products
//! (points on one ray nearest first), and scanned once with a stack that drops every point that
//! is not a strict left turn. O(n log n). Twice the area in 128-bit integers.
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
    let all: Vec<Point> = flat.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    let pivot = *all.iter().min_by_key(|p| (p.1, p.0)).unwrap();
    // Every other point lies at an angle in [0, π) about the pivot, so a cross product orders
    // any two of them.
    let mut rest: Vec<Point> = all.into_iter().filter(|&p| p != pivot).collect();
    if rest.is_empty() {
        return abi::answer("{\"vertices\":1,\"area2\":0}".to_string());
    }
    rest.sort_unstable_by(|&a, &b| {
        let turn = cross(pivot, a, b);
        if turn != 0 {
            0.cmp(&turn) // a first when b is to its left
        } else {
            distance2(pivot, a).cmp(&distance2(pivot, b))
        }
    });
    let mut stack: Vec<Point> = Vec::with_capacity(rest.len() + 1);
    stack.push(pivot);
    for p in rest {
        while stack.len() >= 2 && cross(stack[stack.len() - 2], stack[stack.len() - 1], p) <= 0 {
            stack.pop();
        }
        stack.push(p);
    }
    let mut twice: i128 = 0;
    for index in 0..stack.len() {
        let (a, b) = (stack[index], stack[(index + 1) % stack.len()]);
        twice += a.0 as i128 * b.1 as i128 - b.0 as i128 * a.1 as i128;
    }
    abi::answer(format!("{{\"vertices\":{},\"area2\":{}}}", stack.len(), twice.abs()))
}
