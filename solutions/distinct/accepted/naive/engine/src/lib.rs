//! distinct, naive: a value counts if no earlier value equals it.
mod abi;

#[no_mangle]
pub extern "C" fn count_distinct(pointer: i32, len: i32) -> i64 {
    let values = abi::ints(abi::input(pointer, len), "values");
    let mut distinct = 0;
    for index in 0..values.len() {
        if !values[..index].contains(&values[index]) {
            distinct += 1;
        }
    }
    abi::answer(format!("{{\"distinct\":{}}}", distinct))
}
