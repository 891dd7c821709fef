"""The build launcher's protocol: one request and one answer per connection, over a Unix socket.

A message is a fixed head (`FBL1`, then the JSON header's length and the payload's length, each
a 32-bit big-endian number), the header (a JSON object, strict: no NaN, no key twice, at most
`HEADER_LIMIT` bytes unless the reader allows more) and the payload (raw bytes: the source in a
request, the module in an answer). A reader names the most it will take of each, a deadline for
the head and header (a few seconds: they are small) and one for the whole message; anything
else is a ProtocolError, and the connection is dropped. Numbers are bounded before any use:
an integer past 2**63 is refused, not converted.

Requests: `{"op": "status"}`, and `{"op": "build", "install", "build", "module", "log_limit",
"limits": {BuildLimits field: number}}` with the source as payload. Answers: `{"unavailable":
reason}` (no build can be held here now: the asker tries again later), `{"refused": reason}` (a
malformed request), the status, or a build's outcome with the module as payload.
"""

from __future__ import annotations

import json
import math
import socket
import struct
import time
from typing import Callable

MAGIC = b"FBL1"
HEAD = struct.Struct(">4sII")
HEADER_LIMIT = 64 << 10
NUMBER_LIMIT = 1 << 63  # every limit a request names fits a signed 64-bit integer


class ProtocolError(Exception):
    """A message that does not follow the protocol (or came too slowly, or too large)."""


def send(connection: socket.socket, header: dict, payload: bytes = b"") -> None:
    body = json.dumps(header, allow_nan=False).encode()
    connection.sendall(HEAD.pack(MAGIC, len(body), len(payload)) + body)
    if payload:
        connection.sendall(payload)


def _exactly(connection: socket.socket, size: int, deadline: float) -> bytes:
    chunks, left = [], size
    while left:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ProtocolError("the message did not arrive in time")
        connection.settimeout(remaining)
        try:
            chunk = connection.recv(min(left, 1 << 20))
        except socket.timeout:
            raise ProtocolError("the message did not arrive in time") from None
        except OSError as error:
            raise ProtocolError(f"the connection failed: {error.strerror or error}") from None
        if not chunk:
            raise ProtocolError("the connection ended in the middle of a message")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _constant(word: str):
    raise ValueError(f"{word} is not JSON")


def _one_each(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object whose keys are each given once: `{"op": "status", "op": "build"}` means two
    things to two readers, so it means nothing here."""
    found = dict(pairs)
    if len(found) != len(pairs):
        repeated = next(key for index, (key, _) in enumerate(pairs) if key in dict(pairs[:index]))
        raise ValueError(f"the key {repeated!r} is given twice")
    return found


def receive(connection: socket.socket, *, payload_limit: int, seconds: float,
            header_limit: int = HEADER_LIMIT, header_seconds: float | None = None,
            admit: Callable[[int], None] | None = None) -> tuple[dict, bytes]:
    """One message: (header, payload), within the limits and `seconds` (the head and the header
    within `header_seconds`, when given). `admit(payload_size)`, if given, runs before the payload
    is read, and may raise to leave it unread. Raises ProtocolError."""
    started = time.monotonic()
    deadline = started + seconds
    header_deadline = min(deadline, started + header_seconds) if header_seconds is not None else deadline
    magic, header_size, payload_size = HEAD.unpack(_exactly(connection, HEAD.size, header_deadline))
    if magic != MAGIC:
        raise ProtocolError("not a build launcher message (or another version of the protocol)")
    if header_size > header_limit:
        raise ProtocolError(f"a header of {header_size:,} bytes is over the {header_limit:,}-byte limit")
    if payload_size > payload_limit:
        raise ProtocolError(f"a payload of {payload_size:,} bytes is over the {payload_limit:,}-byte limit")
    try:
        header = json.loads(_exactly(connection, header_size, header_deadline), parse_constant=_constant,
                            object_pairs_hook=_one_each)
    except (UnicodeDecodeError, ValueError) as error:
        raise ProtocolError(f"the header is not JSON: {error}") from None
    if not isinstance(header, dict):
        raise ProtocolError("the header is not a JSON object")
    if admit is not None:
        admit(payload_size)
    return header, _exactly(connection, payload_size, deadline)


def text(header: dict, key: str, limit: int) -> str:
    """A string field of at most `limit` characters, with no NUL. Raises ProtocolError."""
    value = header.get(key)
    if not isinstance(value, str) or len(value) > limit or "\0" in value:
        raise ProtocolError(f"{key} must be a string of at most {limit} characters, without NUL")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no command line or file name can hold it
        raise ProtocolError(f"{key} must be text that UTF-8 can write") from None
    return value


def number(value, key: str, *, integer: bool) -> int | float:
    """A positive finite number (an integer where `integer`). Raises ProtocolError."""
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise ProtocolError(f"{key} must be a positive {'integer' if integer else 'number'}")
    if isinstance(value, int) and not 0 < value < NUMBER_LIMIT:  # before any float sees it (10**400 overflows)
        raise ProtocolError(f"{key} must be a positive {'integer' if integer else 'number'} below 2**63")
    if not math.isfinite(value) or value <= 0:
        raise ProtocolError(f"{key} must be a positive {'integer' if integer else 'number'}")
    return value
