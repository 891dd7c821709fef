//! distinct, fast: sort, then count the places where the value changes.
mod abi;

#[no_mangle]
pub extern "C" fn count_distinct(pointer: i32, len: i32) -> i64 {
    let mut values = abi::ints(abi::input(pointer, len), "values");
    values.sort_unstable();
    let distinct = values.iter().enumerate().filter(|(index, value)| *index == 0 || values[index - 1] != **value).count();
    abi::answer(format!("{{\"distinct\":{}}}", distinct))
}
