//! closest-pair, the reference: divide and conquer (Shamos and Hoey, 1975). Sort the points by x,
//! solve each half, then look across the dividing line only within the strip as wide as the best
//! distance so far, the strip's points taken in y order (kept by merging, as merge sort does):
//! each needs comparing with a bounded number of the ones before it. O(n log n).
mod abi;

#[derive(Clone, Copy)]
struct Point {
    x: i64,
    y: i64,
}

fn squared(a: Point, b: Point) -> i64 {
    let (dx, dy) = (a.x - b.x, a.y - b.y);
    dx * dx + dy * dy // at most 2 × (2·10^9)^2 = 8·10^18: fits an i64
}

/// The smallest squared distance within `points` (sorted by x), or `best` if that is smaller;
/// leaves `points` sorted by y. `spare` is scratch room of the same length.
fn closest(points: &mut [Point], spare: &mut [Point], mut best: i64) -> i64 {
    let n = points.len();
    if n <= 3 {
        for i in 0..n {
            for j in i + 1..n {
                best = best.min(squared(points[i], points[j]));
            }
        }
        points.sort_unstable_by_key(|point| point.y);
        return best;
    }
    let middle = n / 2;
    let line = points[middle].x;
    {
        let (left, right) = points.split_at_mut(middle);
        let (left_spare, right_spare) = spare.split_at_mut(middle);
        best = closest(left, left_spare, best);
        best = closest(right, right_spare, best);
    }
    // Merge the two halves by y.
    let (mut i, mut j, mut k) = (0, middle, 0);
    while i < middle && j < n {
        if points[i].y <= points[j].y {
            spare[k] = points[i];
            i += 1;
        } else {
            spare[k] = points[j];
            j += 1;
        }
        k += 1;
    }
    spare[k..k + middle - i].copy_from_slice(&points[i..middle]);
    k += middle - i;
    spare[k..].copy_from_slice(&points[j..]);
    points.copy_from_slice(spare);
    // The strip: points closer to the line than the best distance, in y order.
    let mut strip = 0;
    for index in 0..n {
        let point = points[index];
        let dx = point.x - line;
        if dx * dx < best {
            let mut back = strip;
            while back > 0 {
                let other = spare[back - 1];
                let dy = point.y - other.y;
                if dy * dy >= best {
                    break;
                }
                best = best.min(squared(point, other));
                back -= 1;
            }
            spare[strip] = point;
            strip += 1;
        }
    }
    best
}

#[no_mangle]
pub extern "C" fn closest_pair(pointer: i32, len: i32) -> i64 {
    let numbers = abi::ints(abi::input(pointer, len), "points");
    let mut points: Vec<Point> = numbers.chunks_exact(2).map(|pair| Point { x: pair[0], y: pair[1] }).collect();
    points.sort_unstable_by_key(|point| (point.x, point.y));
    let mut spare = points.clone();
    let best = closest(&mut points, &mut spare, i64::MAX);
    abi::answer(format!("{{\"distance\":{}}}", best))
}
