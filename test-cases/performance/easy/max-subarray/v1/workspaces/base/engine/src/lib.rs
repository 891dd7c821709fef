//! Starter for max-subarray: the ABI is in place; the answer is valid JSON but not yet right.
//! Read the input at [pointer, pointer + len), return (answer pointer << 32) | answer length.

#[no_mangle]
pub extern "C" fn alloc(len: i32) -> i32 {
    let mut buffer: Vec<u8> = Vec::with_capacity(len.max(1) as usize);
    let pointer = buffer.as_mut_ptr();
    std::mem::forget(buffer);
    pointer as i32
}

#[no_mangle]
pub extern "C" fn find_best_run(pointer: i32, len: i32) -> i64 {
    let _input = unsafe { std::slice::from_raw_parts(pointer as *const u8, len as usize) };
    // TODO: parse {"values": [...]} and find the run with the largest sum.
    let answer = b"{\"sum\":0,\"start\":0,\"end\":0}".to_vec().into_boxed_slice();
    let packed = ((answer.as_ptr() as i64) << 32) | answer.len() as i64;
    std::mem::forget(answer);
    packed
}
