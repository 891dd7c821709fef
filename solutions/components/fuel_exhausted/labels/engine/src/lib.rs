//! components, slow on purpose: every node starts with its own label, and each pass over the
//! edges gives both ends the smaller; passes repeat until nothing changes. Correct, but a long
//! path listed from its far end takes a pass per node: it must run out of fuel there.
mod abi;

#[no_mangle]
pub extern "C" fn count_components(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let nodes = abi::int(input, "nodes") as usize;
    let ends = abi::ints(input, "edges");
    let mut label: Vec<u32> = (0..nodes as u32).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for pair in ends.chunks(2) {
            let (a, b) = (pair[0] as usize, pair[1] as usize);
            let smaller = label[a].min(label[b]);
            if label[a] != smaller || label[b] != smaller {
                label[a] = smaller;
                label[b] = smaller;
                changed = true;
            }
        }
    }
    let mut count = vec![0u32; nodes];
    for node in 0..nodes {
        count[label[node] as usize] += 1;
    }
    let components = count.iter().filter(|&&size| size > 0).count();
    let largest = count.iter().copied().max().unwrap_or(0);
    abi::answer(format!("{{\"components\":{},\"largest\":{}}}", components, largest))
}
