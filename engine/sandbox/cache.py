"""Compiled modules, cached in memory and on disk, compiled in a child process for untrusted ones."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

import wasmtime

from engine.sandbox.checks import InvalidModule, does_not_compile, module_digest
from engine.sandbox.engine import ENGINE_DIGEST, WASMTIME_VERSION, engine


def compile_in_child(wasm: bytes, seconds: float, memory_bytes: int) -> wasmtime.Module:
    """Compile `wasm` in a child process killed after `seconds`, whose address space is at most
    `memory_bytes` (engine/workers/compile.py). Raises InvalidModule."""
    with tempfile.TemporaryDirectory(prefix="compile-") as temp:
        source, target = Path(temp) / "module.wasm", Path(temp) / "module.cwasm"
        source.write_bytes(wasm)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "engine.workers.compile", str(source), str(target), str(memory_bytes)],
                cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True,
                timeout=seconds, stdin=subprocess.DEVNULL,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},  # nothing of the scorer's
            )
        except subprocess.TimeoutExpired:
            raise InvalidModule("compile_timeout", f"module did not compile within {seconds:g} s") from None
        if done.returncode < 0 or "memory allocation" in done.stderr or "MemoryError" in done.stderr:
            # Killed, or aborted when an allocation failed: the address-space cap.
            raise InvalidModule("compile_memory", f"module needs more than {memory_bytes:,} bytes "
                                                  "of memory to compile") from None
        if done.returncode != 0 or not target.is_file():
            raise does_not_compile(done.stderr.strip() or f"the compiler exited with status {done.returncode}")
        return wasmtime.Module.deserialize(engine(), target.read_bytes())


def evict(directory: Path, max_bytes: int, keep: Path | None = None) -> int:
    """Delete the least recently used artifacts of `directory` until it holds at most
    `max_bytes` (`keep` goes last). Several processes may evict at once: a lock orders them."""
    import fcntl

    deleted = 0
    with open(directory / ".evict.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        entries = []
        for entry in os.scandir(directory):
            if entry.name.endswith(".cwasm"):
                try:
                    info = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                entries.append((Path(entry.path) == keep, info.st_mtime_ns, info.st_size, entry.path))
        total = sum(size for _, _, size, _ in entries)
        for _, _, size, path in sorted(entries):
            if total <= max_bytes:
                break
            try:
                os.unlink(path)
                deleted += 1
            except FileNotFoundError:
                pass
            total -= size
    return deleted


class ModuleCache:
    """Compiled modules by content digest and wasmtime version: in memory, and on disk if given.

    The disk holds wasmtime's own serialised artifacts, written only by this class; they are
    loaded only when the digest, the wasmtime version and the engine configuration match. With
    `max_bytes`, the folder is kept under that size by evicting the least recently used
    artifacts (each load refreshes its file's time); several processes of one account may share
    the folder (eviction takes a lock). Only a folder and files of this account's own, writable
    by no one else, are read or written: an artifact is machine code that is run as it is.
    """

    def __init__(self, directory: Path | None = None, capacity: int = 16, compile_seconds: float | None = None,
                 max_bytes: int | None = None, compile_memory_bytes: int = 2 << 30):
        """`compile_seconds`: compile in a child process killed after that long, whose address
        space is at most `compile_memory_bytes` (for untrusted modules); None compiles in this
        process (for modules of our own, and fast tests)."""
        self.directory = Path(directory) if directory else None
        self.capacity = capacity
        self.compile_seconds = compile_seconds
        self.compile_memory_bytes = compile_memory_bytes
        self.max_bytes = max_bytes
        self._memory: OrderedDict[str, wasmtime.Module] = OrderedDict()
        self._lock = threading.Lock()
        self.compiles = 0  # how many times this cache had to compile (for tests and benchmarks)

    def _path(self, digest: str) -> Path | None:
        name = f"{digest}-wasmtime-{WASMTIME_VERSION}-{ENGINE_DIGEST}.cwasm"
        return self.directory / name if self.directory else None

    def get(self, wasm: bytes, digest: str | None = None) -> wasmtime.Module:
        """The compiled module; `digest` is `module_digest(wasm)` if the caller already has it."""
        digest = digest or module_digest(wasm)
        with self._lock:
            module = self._memory.get(digest)
            if module is not None:
                self._memory.move_to_end(digest)
                return module
        module = self._load(digest) or self._compile(wasm, digest)
        with self._lock:
            self._memory[digest] = module
            while len(self._memory) > self.capacity:
                self._memory.popitem(last=False)
        return module

    def _trusted(self) -> bool:
        """Whether the folder may be read and written: an artifact is machine code that is run
        as it is, so only a folder of this account's own, that no one else may write to (made
        0700 if missing), is used. A folder another account owns (the site's account under
        `make serve`, when this process is root) is left alone: its files could be anything."""
        if self.directory is None:
            return False
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = os.lstat(self.directory)
        except OSError:
            return False
        return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022

    def _load(self, digest: str) -> wasmtime.Module | None:
        path = self._path(digest)
        if path is None or not self._trusted():
            return None
        try:
            # Checked on what was opened (no link followed), then read from that same file.
            handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            info = os.fstat(handle)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
                return None
            with os.fdopen(os.dup(handle), "rb") as stream:
                artifact = stream.read()
        finally:
            os.close(handle)
        try:
            module = wasmtime.Module.deserialize(engine(), artifact)
        except (wasmtime.WasmtimeError, OSError):
            return None  # stale or damaged: compile again
        try:
            os.utime(path)  # recently used: the last to be evicted
        except OSError:
            pass
        return module

    def _compile(self, wasm: bytes, digest: str) -> wasmtime.Module:
        if self.compile_seconds is not None:
            module = compile_in_child(bytes(wasm), self.compile_seconds, self.compile_memory_bytes)
        else:
            try:
                module = wasmtime.Module(engine(), bytes(wasm))
            except wasmtime.WasmtimeError as exc:
                raise does_not_compile(str(exc)) from None
        self.compiles += 1
        path = self._path(digest)
        if path is not None and self._trusted():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                handle, temp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
                with os.fdopen(handle, "wb") as stream:
                    stream.write(module.serialize())
                os.replace(temp, path)
                self.evict(keep=path)
            except OSError:
                pass  # a cache that cannot be written only costs a recompile
        return module

    def evict(self, keep: Path | None = None) -> int:
        """Delete the least recently used artifacts until the folder holds at most `max_bytes`
        (`keep`, the one just written, goes last). Returns the number deleted."""
        if self.directory is None or self.max_bytes is None:
            return 0
        return evict(self.directory, self.max_bytes, keep)
