"""What a module says built it: its `producers` custom section (the WebAssembly tool conventions),
which rustc writes as `processed-by: rustc 1.96.0 (ac68faa20 2026-05-25)` unless the module was
stripped of it. Read with bounds: a module is someone else's bytes."""

from __future__ import annotations

import re

MAX_FIELDS = 16
MAX_VALUES = 64
MAX_TEXT = 1024
_RUSTC = re.compile(r"^(\d+\.\d+\.\d+)")


def _uleb(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 35:
            raise ValueError("a number runs past the end")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def _name(data: bytes, at: int, end: int) -> tuple[str, int]:
    size, at = _uleb(data, at)
    if size > MAX_TEXT or at + size > end:
        raise ValueError("a name runs past its section")
    return data[at:at + size].decode("utf-8", "replace"), at + size


def producers(wasm: bytes) -> dict[str, list[tuple[str, str]]]:
    """{field ("language", "processed-by", "sdk"): [(name, version), …]} of the module's producers
    section; {} when it has none or is not a module whose sections can be walked."""
    if wasm[:8] != b"\0asm\x01\0\0\0":
        return {}
    at = 8
    try:
        while at < len(wasm):
            section, at = wasm[at], at + 1
            size, at = _uleb(wasm, at)
            end = at + size
            if end > len(wasm):
                return {}
            if section == 0:
                name, body = _name(wasm, at, end)
                if name == "producers":
                    return _fields(wasm, body, end)
            at = end
    except ValueError:
        return {}
    return {}


def _fields(data: bytes, at: int, end: int) -> dict[str, list[tuple[str, str]]]:
    found: dict[str, list[tuple[str, str]]] = {}
    count, at = _uleb(data, at)
    for _ in range(min(count, MAX_FIELDS)):
        field, at = _name(data, at, end)
        values, at = _uleb(data, at)
        found[field] = []
        for _ in range(min(values, MAX_VALUES)):
            name, at = _name(data, at, end)
            version, at = _name(data, at, end)
            found[field].append((name, version))
    return found


def rustc_of(wasm: bytes) -> str | None:
    """The rustc that built the module, as the module says ("rustc 1.96.0 (ac68faa20 2026-05-25)"),
    or None when it does not say."""
    for name, version in producers(wasm).get("processed-by", []):
        if name == "rustc" and version:
            return f"rustc {version.split(' (built from', 1)[0]}"
    return None


def release_of(rustc: str | None) -> str | None:
    """"1.96.0" of "rustc 1.96.0 (…)"; None when there is none."""
    found = _RUSTC.match(rustc.removeprefix("rustc ")) if rustc else None
    return found.group(1) if found else None
