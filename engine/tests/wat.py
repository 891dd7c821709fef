"""Small WAT modules that implement (or break) the solution ABI, for precise sandbox tests."""

from __future__ import annotations

import wasmtime

MEMORY = '(memory (export "memory") 1)'
ALLOC = '(func (export "alloc") (param i32) (result i32) i32.const 1024)'
# Return the input buffer itself: the answer is the input.
ECHO = "local.get 0 i64.extend_i32_u i64.const 32 i64.shl local.get 1 i64.extend_i32_u i64.or"


def wat_bytes(data: bytes) -> str:
    return "".join(f"\\{byte:02x}" for byte in data)


def burn(iterations: int) -> str:
    """A counted loop: a back-edge per iteration, so fuel is checked (and spent) as it runs."""
    if iterations <= 0:
        return ""
    return (
        f"(local.set $i (i32.const {iterations}))"
        "(loop $burn (local.set $i (i32.sub (local.get $i) (i32.const 1)))"
        " (br_if $burn (local.get $i)))"
    )


def module(body: str = ECHO, *, memory: str = MEMORY, alloc: str = ALLOC, data: bytes = b"",
           extra: str = "", entry: str = "solve", signature: str = "(param i32 i32) (result i64)",
           imports: str = "") -> bytes:
    """A module exporting memory, alloc and `entry`; `body` is the entry's code."""
    segment = f'(data (i32.const 0) "{wat_bytes(data)}")' if data else ""
    text = f"""(module
      {imports}
      {memory}
      {segment}
      {alloc}
      (func (export "{entry}") {signature} (local $i i32) {body})
      {extra}
    )"""
    return wasmtime.wat2wasm(text)


def constant(output: bytes, *, iterations: int = 0, address: int = 0, entry: str = "solve") -> bytes:
    """Answer `output` (stored at `address`) after `iterations` loop iterations."""
    segment = f'(data (i32.const {address}) "{wat_bytes(output)}")'
    body = f"{burn(iterations)} i64.const {(address << 32) | len(output)}"
    return module(body, extra=segment, entry=entry)


def returning(packed: int, *, entry: str = "solve") -> bytes:
    """Return a raw i64 from the entry (for out-of-range and sign tests)."""
    if packed >= 1 << 63:
        packed -= 1 << 64
    return module(f"i64.const {packed}", entry=entry)


def lookup(answers: dict[int, bytes], *, iterations: int = 0, pages: int = 1, slow_length: int | None = None,
           prelude: str = "") -> bytes:
    """Answer by input length: `answers[len(input)]` (or `{}` for any other length).

    Lets a few lines of WAT answer a real case's inputs correctly without parsing JSON. `prelude`
    runs first on every input (it may use the local `$i`).
    """
    segments, branches, address = [], [], 0
    for length, output in sorted(answers.items()):
        segments.append(f'(data (i32.const {address}) "{wat_bytes(output)}")')
        packed = (address << 32) | len(output)
        branches.append(f"(if (i32.eq (local.get 1) (i32.const {length})) (then (return (i64.const {packed}))))")
        address += len(output) + 16
    fallback_address = address
    segments.append(f'(data (i32.const {fallback_address}) "{{}}")')
    slow = burn(iterations)
    if slow_length is not None:  # only the input of this length costs the loop
        slow = f"(if (i32.eq (local.get 1) (i32.const {slow_length})) (then {slow}))"
    body = f"{prelude} {slow} {' '.join(branches)} i64.const {(fallback_address << 32) | 2}"
    return module(body, extra=" ".join(segments), memory=f'(memory (export "memory") {pages})')


def filled(prefix: bytes, element: bytes, count: int, suffix: bytes, *, pages: int) -> bytes:
    """Answer `prefix element,element,…,element, suffix`: a loop writes the elements, so a huge
    answer costs little fuel (for the judging bounds). The answer starts at address 0."""
    step = len(element) + 1
    stores = " ".join(
        f"(i32.store8 (i32.add (local.get $i) (i32.const {offset})) (i32.const {byte}))"
        for offset, byte in enumerate(element + b",")
    )
    start, end = len(prefix), len(prefix) + count * step
    body = f"""(local.set $i (i32.const {start}))
      (loop $fill {stores}
        (local.set $i (i32.add (local.get $i) (i32.const {step})))
        (br_if $fill (i32.lt_u (local.get $i) (i32.const {end}))))
      i64.const {end + len(suffix)}"""
    segments = f'(data (i32.const 0) "{wat_bytes(prefix)}") (data (i32.const {end}) "{wat_bytes(suffix)}")'
    alloc = f'(func (export "alloc") (param i32) (result i32) i32.const {pages * 65_536 - 4096})'
    return module(body, memory=f'(memory (export "memory") {pages})', alloc=alloc, extra=segments)
