"""A judge process: `python -m engine.workers.judge MEMORY_BYTES`.

Reads requests on stdin (three lengths and whether to compare with the expected answer, then the
output schema, the expected answer and the output) and writes one JSON verdict per request on stdout, length-prefixed.
Its address space is
capped at MEMORY_BYTES; the scorer kills it when a verdict is late (see engine/judging.py).
"""

from __future__ import annotations

import json
import resource
import sys


def _read_exactly(stream, size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def main(memory_bytes: int) -> int:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # deferred: the judge (jsonschema and its compiled patterns) is loaded under the cap just set
    from engine.judging import INVALID_OUTPUT, REPLY, REQUEST, JudgeCache, Verdict

    cache = JudgeCache()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        header = _read_exactly(stdin, REQUEST.size)
        if header is None:
            return 0
        *sizes, compare = REQUEST.unpack(header)
        blobs = [_read_exactly(stdin, size) for size in sizes]
        if any(blob is None for blob in blobs):
            return 0
        try:
            verdict = cache.judge(*blobs, compare=compare)
        except MemoryError:
            cache = JudgeCache()  # whatever it held may be half-built
            verdict = Verdict(INVALID_OUTPUT, f"judging the answer needed more than {memory_bytes:,} bytes of memory")
        body = json.dumps(verdict.as_json()).encode()
        stdout.write(REPLY.pack(len(body)) + body)
        stdout.flush()


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1])))
