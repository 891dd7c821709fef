//! closest-pair, wrong on purpose: sort by x and compare each point with the ones before it while
//! their x gap is below the best distance — with the distances in floating point. An f64 holds
//! 53 bits, and a squared distance of far-apart points needs up to 63: the answer comes back
//! rounded. Right whenever the closest pair is close.
mod abi;

#[no_mangle]
pub extern "C" fn closest_pair(pointer: i32, len: i32) -> i64 {
    let numbers = abi::ints(abi::input(pointer, len), "points");
    let mut points: Vec<(f64, f64)> = numbers.chunks_exact(2).map(|pair| (pair[0] as f64, pair[1] as f64)).collect();
    points.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap());
    let mut best = f64::INFINITY;
    for i in 0..points.len() {
        let (x, y) = points[i];
        for j in (0..i).rev() {
            let (u, v) = points[j];
            if (x - u) * (x - u) >= best {
                break;
            }
            best = best.min((x - u) * (x - u) + (y - v) * (y - v));
        }
    }
    abi::answer(format!("{{\"distance\":{}}}", best as i64))
}
