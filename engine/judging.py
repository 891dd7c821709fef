"""Judging an answer after a clean return (docs/method.md): strict JSON, the output schema, equality.

An answer is hostile data, and checking it costs time and memory in Python: a few megabytes of
array items take minutes against some schemas (`uniqueItems` is quadratic, a `pattern` can
backtrack exponentially), and none of that can be interrupted inside this process. So answers
are judged in judge processes (`engine.workers.judge`): each holds at most
`SCORING_JUDGE_MEMORY_BYTES` of address space, and one that has not answered by the input's
deadline (the same wall-clock budget the run had) is killed. Either bound broken is
`invalid_output` with a message that says which. The answer's size is capped before it is even
read out of the module's memory (`answer_limit`).

Messages are public. They never quote the answer: a JSON pointer into it keeps array indexes and
the keys the expected answer has there, and shows any other key as `…`; the whole pointer goes
into `detail`, which only staff see. No Django here.
"""

from __future__ import annotations

import hashlib
import json
import os
import selectors
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lib.schemas import first_violation, load_validator
from lib.strictjson import JSONDocumentError, first_difference_path, loads_strict, pointer, pointer_token

ROOT = Path(__file__).resolve().parent.parent
CORRECT, INVALID_OUTPUT, WRONG_ANSWER = "correct", "invalid_output", "wrong_answer"
# A judge process's environment: nothing of the scorer's.
WORKER_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
# Lengths of the schema, the expected answer and the output, then whether to compare with the
# expected answer (the fuel meter, on an input with no answer given, does not).
REQUEST = struct.Struct("<III?")
REPLY = struct.Struct("<I")
HIDDEN_KEY = "…"


@dataclass(frozen=True)
class Verdict:
    status: str  # CORRECT, INVALID_OUTPUT or WRONG_ANSWER
    message: str = ""  # public
    detail: str = ""  # for staff, when it says more than the message

    def as_json(self) -> dict:
        return {"status": self.status, "message": self.message, "detail": self.detail}


def answer_limit(expected_size: int, *, minimum: int, factor: int) -> int:
    """The largest answer accepted for an input whose expected answer is `expected_size` bytes.

    A correct answer may be laid out differently (whitespace, key order, number forms), so it
    gets `factor` times the expected size, and never less than `minimum`.
    """
    return max(minimum, factor * expected_size)


# --- the checks (run in a judge process) ------------------------------------------------------------


def public_pointer(path: tuple, expected: Any) -> str:
    """The pointer of `path` with every key the expected answer lacks there shown as `…`."""
    tokens, node, known = [], expected, True
    for token in path:
        if isinstance(token, int):
            tokens.append(str(token))
            node = node[token] if known and isinstance(node, list) and 0 <= token < len(node) else None
            known = known and node is not None
        elif known and isinstance(node, dict) and token in node:
            tokens.append(pointer_token(token))
            node = node[token]
        else:
            tokens.append(HIDDEN_KEY)
            known = False
    return "".join(f"/{token}" for token in tokens)


def _where(path: tuple, expected: Any) -> tuple[str, str]:
    """(public, full) descriptions of a place in the answer."""
    if not path:
        return 'the document root (JSON pointer "")', 'the document root (JSON pointer "")'
    return f'JSON pointer "{public_pointer(path, expected)}"', f'JSON pointer "{pointer(path)}"'


def judge_answer(output: bytes, expected: Any, validator, *, compare: bool = True) -> Verdict:
    """The checks of docs/method.md after the run: strict JSON, the schema, then equality (unless
    `compare` is false: the fuel meter run on an input of the solver's own, with no answer to it)."""
    try:
        answer = loads_strict(output)
    except JSONDocumentError as exc:
        message = f"output is {exc}" if str(exc).startswith("not") else f"output {exc}"
        return Verdict(INVALID_OUTPUT, message)
    violation = first_violation(validator, answer, exhaustive=False)
    if violation is not None:
        message = "output does not match the output schema: "
        public = violation.describe(public_pointer(violation.path, expected) if violation.path else None)
        full = violation.describe()
        return Verdict(INVALID_OUTPUT, message + public, message + full if full != public else "")
    path = first_difference_path(expected, answer) if compare else None
    if path is not None:
        public, full = _where(path, expected)
        message = "answer differs from the expected answer at "
        return Verdict(WRONG_ANSWER, message + public, message + full if full != public else "")
    return Verdict(CORRECT)


class JudgeCache:
    """What a judge process keeps between requests: validators and parsed expected answers."""

    def __init__(self, entries: int = 16):
        self.entries = entries
        self.validators: dict[str, Any] = {}
        self.expected: dict[str, Any] = {}

    @staticmethod
    def _remember(store: dict, key: str, make, limit: int):
        if key not in store:
            if len(store) >= limit:
                store.pop(next(iter(store)))
            store[key] = make()
        return store[key]

    def judge(self, schema: bytes, expected: bytes, output: bytes, compare: bool = True) -> Verdict:
        """Without `compare`, `expected` is not read: the answer's JSON and schema only."""
        validator = self._remember(self.validators, hashlib.sha256(schema).hexdigest(),
                                   lambda: load_validator(schema), self.entries)
        if not compare:
            return judge_answer(output, None, validator, compare=False)
        document = self._remember(self.expected, hashlib.sha256(expected).hexdigest(),
                                  lambda: loads_strict(expected), self.entries)
        return judge_answer(output, document, validator)


# --- judge processes, shared by every scoring thread of this process --------------------------------


class _Worker:
    """One judge process, answering one request at a time."""

    def __init__(self, memory_bytes: int):
        self.memory_bytes = memory_bytes
        self.process = subprocess.Popen(
            [sys.executable, "-m", "engine.workers.judge", str(memory_bytes)], cwd=ROOT, env=WORKER_ENV,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )

    def ask(self, schema: bytes, expected: bytes | None, output: bytes, timeout: float) -> dict | None:
        """The reply, or None if the process did not answer in time or is gone."""
        try:
            header = REQUEST.pack(len(schema), len(expected or b""), len(output), expected is not None)
            self.process.stdin.write(header)
            for blob in (schema, expected or b"", output):
                self.process.stdin.write(blob)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        header = self._read(REPLY.size, time.monotonic() + timeout)
        if header is None:
            return None
        body = self._read(REPLY.unpack(header)[0], time.monotonic() + timeout)
        return json.loads(body) if body is not None else None

    def _read(self, size: int, deadline: float) -> bytes | None:
        descriptor = self.process.stdout.fileno()
        data = bytearray()
        with selectors.DefaultSelector() as selector:
            selector.register(descriptor, selectors.EVENT_READ)
            while len(data) < size:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    return None
                chunk = os.read(descriptor, size - len(data))
                if not chunk:
                    return None
                data += chunk
        return bytes(data)

    def kill(self) -> None:
        try:
            self.process.kill()
        except OSError:
            pass
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass


class _Pool:
    def __init__(self):
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self.started = 0  # judge processes started (for tests)

    def take(self, memory_bytes: int) -> _Worker:
        with self._lock:
            for index, worker in enumerate(self._idle):
                if worker.memory_bytes == memory_bytes and worker.process.poll() is None:
                    return self._idle.pop(index)
            self.started += 1
        return _Worker(memory_bytes)

    def give_back(self, worker: _Worker) -> None:
        with self._lock:
            self._idle.append(worker)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()


POOL = _Pool()


class Judge:
    """Judges the answers of one version's inputs against its output schema."""

    def __init__(self, output_schema: bytes, *, memory_bytes: int):
        self.output_schema = output_schema
        self.memory_bytes = memory_bytes

    def check(self, output: bytes, expected: bytes | None, *, deadline: float) -> Verdict:
        """The verdict on `output`, or `invalid_output` if judging breaks a bound. With no
        `expected` answer (None), only its JSON and the output schema are judged.

        `deadline` is a `time.monotonic()` instant: the end of the input's wall-clock budget.
        """
        for attempt in range(2):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return _out_of_time()
            worker = POOL.take(self.memory_bytes)
            reply = worker.ask(self.output_schema, expected, output, remaining)
            if reply is not None:
                POOL.give_back(worker)
                return Verdict(reply["status"], reply["message"], reply["detail"])
            alive = worker.process.poll() is None
            worker.kill()
            if alive or time.monotonic() >= deadline:
                return _out_of_time()
            if attempt == 0 and worker.process.returncode == 0:
                continue  # it had ended on its own (idle too long?): ask a fresh one
            return Verdict(INVALID_OUTPUT, "judging the answer failed: the judge process ended "
                                           f"(the answer may need more than {self.memory_bytes:,} bytes of memory)")
        return _out_of_time()


def _out_of_time() -> Verdict:
    return Verdict(INVALID_OUTPUT, "judging the answer did not finish within the input's wall-clock budget")
