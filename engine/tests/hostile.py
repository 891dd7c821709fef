"""What hostile builds and modules try: the descriptions the security page counts, the invalid
modules, a module slow to compile, and what a taken-over site account sends the build launcher."""

from __future__ import annotations

import json

from engine.builds.protocol import HEAD, MAGIC
from engine.tests import wat

HOSTILE_BUILDS = [
    "reads outside its directory", "writes outside its directory", "opens a socket", "fork-bombs",
    "fills the disk", "writes one huge file", "runs forever", "exhausts memory",
    "reads the scorer's environment and command line", "writes to /tmp, $HOME, /, /dev",
    "unpacks to more than the cap", "holds too many entries", "links its module to /proc",
    "links its module through a folder", "makes its module a FIFO", "makes its module a folder",
    "swaps its module after the build", "builds an oversized module", "holds every process it may",
    "reaches into the driver (/proc/<pid>/mem, pidfd_getfd, ptrace), holds memfd and shared memory",
    "chains links to the host's /", "hard-links a host file", "writes under its own link", "nests 100 folders deep",
    "claims a 16 MiB header", "packs a 4 GiB sparse file",
    "makes a user namespace and mounts a tmpfs past its cap", "clones into new namespaces, setns, clone3",
    "holds more memory across its processes than its total", "fills its memory with files in its tmpfs",
    "reads and writes the scorer's kernel keyring", "opens ptys (memory no cgroup counts)",
]


INVALID_MODULES = [
    ("import", wat.module(imports='(import "env" "clock" (func))'), "module must be import-free but imports 1 item"),
    ("two-tables", wat.module(extra="(table 1 funcref) (table 1 funcref)"),
     "module declares 2 tables; at most 1 is allowed"),
    ("huge-table", wat.module(extra="(table 2000000 funcref)"), "a table's initial size exceeds 1,048,576 slots"),
    ("threads", wat.module(memory='(memory (export "memory") 1 1 shared)'), "threads must be enabled"),
    ("tail-calls", wat.module(extra="(func $t (return_call $t))"), "tail calls support is not enabled"),
    ("exceptions", wat.module(extra="(tag $e) (func (throw $e))"), "exceptions proposal not enabled"),
    ("many-globals", wat.module(extra=" ".join(["(global i32 (i32.const 0))"] * 10_001)),
     "module defines 10,001 globals; at most 10,000"),
    ("many-sections", bytes(wat.module()) + b"\x00\x02\x01x" * 1_001, "module has more than 1,000 sections"),
    ("start", wat.module(extra="(func $init) (start $init)"), "module has a start function"),
    ("no-memory", wat.module(memory="(memory 1)"), "missing export `memory`"),
    ("memory-not-memory", wat.module(memory='(memory 1) (global (export "memory") i32 (i32.const 0))'),
     "export `memory` must be a memory"),
    ("two-memories", wat.module(memory=wat.MEMORY + " (memory 1)"), "module does not compile: multiple memories"),
    ("initial-memory-too-big", wat.module(memory='(memory (export "memory") 5)'),
     "initial memory of 327,680 bytes exceeds max_memory_bytes (262,144)"),
    ("memory64", wat.module(memory='(memory (export "memory") i64 1)',
                            alloc='(func (export "alloc") (param i32) (result i32) i32.const 0)', body="i64.const 0"),
                            "memory64 must be enabled for 64-bit memories"),
    ("no-alloc", wat.module(alloc=""), "missing export `alloc` (i32) -> (i32)"),
    ("alloc-signature", wat.module(alloc='(func (export "alloc") (param i64) (result i32) i32.const 0)'),
     "export `alloc` has type (i64) -> (i32), expected (i32) -> (i32)"),
    ("no-entry", wat.module(entry="other"), "missing export `solve` (i32, i32) -> (i64)"),
    ("entry-signature", wat.module("i32.const 0", signature="(param i32 i32) (result i32)"),
     "export `solve` has type (i32, i32) -> (i32), expected (i32, i32) -> (i64)"),
    ("garbage", b"\0asm\x01\x00\x00\x00\xff\xff\xff", "module does not compile"),
    ("not-wasm", b"#!/bin/sh\necho hi\n", "not a WebAssembly binary"),
    ("component", b"\0asm\x0d\x00\x01\x00", "not a WebAssembly core module"),
    ("empty", b"", "not a WebAssembly binary"),
]


def _leb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _section(section_id: int, payload: bytes) -> bytes:
    return bytes([section_id]) + _leb(len(payload)) + payload


def slow_to_compile(functions: int = 200, groups: int = 20_000) -> bytes:
    """About 28 MB of straight-line arithmetic (several seconds of Cranelift), written as binary."""
    # local.get 0, local.get 0, i32.mul, local.set 0 … then local.get 0, end
    body = b"\x00" + b"\x20\x00\x20\x00\x6c\x21\x00" * groups + b"\x20\x00\x0b"
    code = _leb(functions) + (_leb(len(body)) + body) * functions
    return (
        b"\0asm\x01\x00\x00\x00"
        + _section(1, b"\x01\x60\x01\x7f\x01\x7f")  # one type: (i32) -> i32
        + _section(3, _leb(functions) + b"\x00" * functions)
        + _section(10, code)
    )


HOSTILE_MODULES = [
    "recurses until the stack overflows", "grows memory in a loop", "returns a 4 GiB output length",
    "is larger than the size cap", "takes very long to compile", "needs too much memory to compile",
    "spins forever (wall-clock guard)",
    "imports host functions", "has a start function", "names itself in imports", "names itself in a backtrace",
    "names itself in a compiler error", "hides a key in a schema violation", "hides a key in a wrong answer",
    "answers beyond the size cap", "answers a catastrophic pattern", "answers gigabytes of objects",
]


def request(header: dict | bytes, payload: bytes = b"") -> bytes:
    body = header if isinstance(header, bytes) else json.dumps(header).encode()
    return HEAD.pack(MAGIC, len(body), len(payload)) + body + payload


BUILD = {"op": "build", "install": "", "build": "true", "module": "out.wasm", "log_limit": 4096,
         "limits": {"timeout": 10}}
# What a taken-over site account may send the build launcher: (what, the message, what the refusal says).
LAUNCHER_REQUESTS = [
    ("not the protocol", b"GET / HTTP/1.1\r\n\r\n" + bytes(20), "not a build launcher message"),
    ("a header over its cap", HEAD.pack(MAGIC, 1 << 20, 0), "over the 65,536-byte limit"),
    ("a payload over its cap", HEAD.pack(MAGIC, 2, (1 << 32) - 1) + b"{}", "a payload of 4,294,967,295 bytes is over"),
    ("not JSON", request(b"{nope"), "the header is not JSON"),
    ("NaN", request(b'{"op": "build", "log_limit": NaN}'), "the header is not JSON"),
    ("not an object", request(b"[1]"), "not a JSON object"),
    ("an unknown operation", request({"op": "shell"}), "op must be status or build"),
    ("an unknown limit", request({**BUILD, "limits": {"timeout": 10, "uid": 0}}), "limits.uid is not a build limit"),
    ("a negative limit", request({**BUILD, "limits": {"timeout": -1}}), "limits.timeout must be a positive number"),
    ("a boolean limit", request({**BUILD, "limits": {"timeout": 10, "processes": True}}), "positive integer"),
    ("no timeout", request({**BUILD, "limits": {}}), "limits.timeout is required"),
    ("a NUL in a command", request({**BUILD, "build": "true\0; id"}), "build must be a string"),
    ("an overlong command", request({**BUILD, "build": "x" * 9000}), "build must be a string"),
    ("a cut-off message", HEAD.pack(MAGIC, 100, 0) + b"{", "ended in the middle of a message"),
    ("a lone surrogate", request({**BUILD, "build": "true \ud800"}), "build must be text that UTF-8 can write"),
    ("a 400-digit limit", request({**BUILD, "limits": {"timeout": 10, "processes": 10**400}}), "below 2**63"),
    ("an operation named twice", request(b'{"op": "status", "op": "build"}'), "the key 'op' is given twice"),
]
# …and what else the launcher meets, each a test of its own (engine/tests/test_launcher.py).
LAUNCHER_ASKERS = [
    "another account, where the socket is open to it", "a refused asker that trickles its bytes",
    "fourteen connections that send a byte each",
    "two silent connections from outside a launcher's PID namespace, then a worker's",
    "requests that claim the whole source budget and send slowly, then a worker's",
    "a build flooding megabytes of control characters", "an asker that goes away mid-build",
    "a block of build uids some process already runs as", "a request past the launcher's caps, from the site's client",
]
