"""Checking a compiled module against the solution ABI (docs/taking-part.md), and wasmtime's words made public.

Messages are public and never quote what the module chose (import names, function names,
text a compiler quotes); `detail` holds the full text, for staff.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import wasmtime

from engine.sandbox.engine import MAX_GLOBALS, MAX_SECTIONS, MAX_TABLES, TABLE_ELEMENTS_LIMIT
from lib.errors import DomainError


class InvalidModule(DomainError):
    """The module breaks the solution ABI; nothing is run.

    `message` is public; `detail` adds what the module itself chose (its import names, the
    compiler's own words), for staff. Codes: `too_large`, `not_wasm`, `not_core_module`,
    `compile_timeout`, `does_not_compile`, `abi`.
    """

    def __init__(self, code: str, message: str, detail: str = ""):
        super().__init__(code, message)
        self.detail = detail

    def __str__(self) -> str:
        return self.message


def _leb_u32(data: bytes, offset: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if offset >= len(data) or shift > 28:
            raise ValueError("malformed LEB128")
        byte = data[offset]
        offset += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, offset


@dataclass(frozen=True)
class _SectionFacts:
    has_start: bool
    memories: int  # memories the module defines
    table_sizes: tuple[int, ...]  # the initial size of each table it defines
    globals: int = 0  # globals it defines
    sections: int = 0


def _section_facts(wasm: bytes) -> _SectionFacts:
    """What wasmtime's API does not expose, read from the binary itself.

    The module has already compiled, so the framing is sound.
    """
    offset = 8  # magic + version
    has_start = False
    memories = global_count = sections = 0
    tables: list[int] = []
    while offset < len(wasm) and sections <= MAX_SECTIONS:
        sections += 1
        section_id = wasm[offset]
        size, offset = _leb_u32(wasm, offset + 1)
        if section_id == 8:
            has_start = True
        elif section_id == 5:
            memories, _ = _leb_u32(wasm, offset)
        elif section_id == 6:
            global_count, _ = _leb_u32(wasm, offset)
        elif section_id == 4:
            count, position = _leb_u32(wasm, offset)
            for _ in range(count):
                flags = wasm[position + 1]  # after the element type
                minimum, position = _leb_u32(wasm, position + 2)
                if flags & 1:
                    _, position = _leb_u32(wasm, position)
                tables.append(minimum)
        offset += size
    return _SectionFacts(has_start, memories, tuple(tables), global_count, sections)


def _describe_func(functype: wasmtime.FuncType) -> str:
    params = ", ".join(str(param) for param in functype.params)
    results = ", ".join(str(result) for result in functype.results)
    return f"({params}) -> ({results})"


def _check_function(exports: dict, name: str, params: list[str], results: list[str], problems: list[str]) -> None:
    wanted = f"({', '.join(params)}) -> ({', '.join(results)})"
    export = exports.get(name)
    if export is None:
        problems.append(f"missing export `{name}` {wanted}")
    elif not isinstance(export, wasmtime.FuncType):
        problems.append(f"export `{name}` must be a function {wanted}")
    elif [str(p) for p in export.params] != params or [str(r) for r in export.results] != results:
        problems.append(f"export `{name}` has type {_describe_func(export)}, expected {wanted}")


def check_module(module: wasmtime.Module, wasm: bytes, entry: str, max_memory_bytes: int) -> None:
    """Raise InvalidModule naming every way the module breaks the ABI of docs/taking-part.md."""
    problems: list[str] = []
    detail = ""
    imports = [f"{item.module}.{item.name}" for item in module.imports]
    if imports:
        # The names are the module's own words: staff see them, the public sees how many.
        problems.append(f"module must be import-free but imports {len(imports)} item{'s' if len(imports) > 1 else ''}")
        shown = ", ".join(f"`{name[:100]}`" for name in imports[:5]) + (", …" if len(imports) > 5 else "")
        detail = f"imports: {shown}"
    facts = _section_facts(wasm)
    if facts.has_start:
        problems.append("module has a start function (section 8), which is not allowed")
    if facts.memories > 1:
        problems.append(f"module declares {facts.memories} memories; exactly one is allowed")
    if len(facts.table_sizes) > MAX_TABLES:
        problems.append(f"module declares {len(facts.table_sizes)} tables; at most {MAX_TABLES} is allowed")
    if any(size > TABLE_ELEMENTS_LIMIT for size in facts.table_sizes):
        problems.append(f"a table's initial size exceeds {TABLE_ELEMENTS_LIMIT:,} slots")
    if facts.globals > MAX_GLOBALS:
        problems.append(f"module defines {facts.globals:,} globals; at most {MAX_GLOBALS:,} are allowed")
    if facts.sections > MAX_SECTIONS:
        problems.append(f"module has more than {MAX_SECTIONS:,} sections")
    exports = {export.name: export.type for export in module.exports}
    memory = exports.get("memory")
    if memory is None:
        problems.append("missing export `memory`")
    elif not isinstance(memory, wasmtime.MemoryType):
        problems.append("export `memory` must be a memory")
    elif memory.is_64:
        problems.append("export `memory` must be a 32-bit memory")
    elif memory.limits.min * memory.page_size > max_memory_bytes:
        problems.append(
            f"initial memory of {memory.limits.min * memory.page_size:,} bytes exceeds "
            f"max_memory_bytes ({max_memory_bytes:,})"
        )
    _check_function(exports, "alloc", ["i32"], ["i32"], problems)
    _check_function(exports, entry, ["i32", "i32"], ["i64"], problems)
    if problems:
        raise InvalidModule("abi", "; ".join(problems), detail)


# The compiler's words are shown publicly only when they cannot carry the module's own text:
# its causes (the first line can name a function), plain words with no quotes or backticks
# (where wasmparser puts names), and short.
_PLAIN_REASON = re.compile(r"^[A-Za-z0-9 ,.:;()_/+-]{1,160}$")


_OFFSET = re.compile(r"\s*\(at offset 0x[0-9a-f]+\)| at offset \d+")


def does_not_compile(text: str) -> InvalidModule:
    reason = _OFFSET.sub("", trap_message(Exception(text))).strip()
    public = f"module does not compile: {reason}" if _PLAIN_REASON.fullmatch(reason) else "module does not compile"
    detail = "module does not compile: " + "; ".join(line.strip() for line in text.strip().splitlines() if line.strip())
    return InvalidModule("does_not_compile", public, detail[:4000] if detail != public else "")


def trap_message(trap: Exception) -> str:
    """wasmtime's trap message without the backtrace.

    The backtrace names the module's own functions (its name section), so nothing of it is kept:
    only the causes after the last "Caused by:", which are wasmtime's words.
    """
    text = getattr(trap, "message", None) or str(trap)
    if "Caused by:" in text:
        text = text.rpartition("Caused by:")[2]
    elif "wasm backtrace" in text:
        text = text.partition("wasm backtrace")[0]
    # A chain of causes is numbered ("0: …", "1: …"); keep the words, drop the numbers.
    lines = [_CAUSE_NUMBER.sub("", line.strip()) for line in text.strip().splitlines() if line.strip()]
    kept = [line for line in lines if not line.startswith("wasm backtrace") and not _FRAME.match(line)]
    return "; ".join(kept)[:300] or type(trap).__name__


_CAUSE_NUMBER = re.compile(r"^\d+:\s*")


_FRAME = re.compile(r"^0x[0-9a-f]+ - ")


def trap_detail(trap: Exception) -> str:
    return (getattr(trap, "message", None) or str(trap)).strip()[:4000]


def module_digest(wasm: bytes) -> str:
    """The SHA-256 a module is cached and recorded under."""
    return hashlib.sha256(wasm).hexdigest()
