//! Starter for spanning-tree: the ABI is in place; the answer is valid JSON but not yet right.
//! Read the input at [pointer, pointer + len), return (answer pointer << 32) | answer length.

#[no_mangle]
pub extern "C" fn alloc(len: i32) -> i32 {
    let mut buffer: Vec<u8> = Vec::with_capacity(len.max(1) as usize);
    let pointer = buffer.as_mut_ptr();
    std::mem::forget(buffer);
    pointer as i32
}

#[no_mangle]
pub extern "C" fn span_forest(pointer: i32, len: i32) -> i64 {
    let _input = unsafe { std::slice::from_raw_parts(pointer as *const u8, len as usize) };
    // TODO: parse {"nodes": n, "edges": [[u, v, weight], ...]} and find a minimum spanning forest.
    let answer = b"{\"weight\":0,\"trees\":1}".to_vec().into_boxed_slice();
    let packed = ((answer.as_ptr() as i64) << 32) | answer.len() as i64;
    std::mem::forget(answer);
    packed
}
