//! @SLUG@, the reference solution: the author's own accepted answer (check_case holds the
//! expected answers to it).
mod abi;

#[no_mangle]
pub extern "C" fn solve(pointer: i32, len: i32) -> i64 {
    let input = abi::input(pointer, len);
    let total: i64 = abi::ints(input, "values").iter().sum();
    abi::answer(format!("{{\"total\":{}}}", total))
}
