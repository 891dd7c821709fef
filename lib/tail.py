"""The last bytes of a stream of output (a build's log): standard library only, so a build's driver,
which runs outside the project's environment, keeps its log the same way as the host."""

from __future__ import annotations

from collections import deque


class Tail:
    """The last `limit` bytes written to it, and how many earlier ones were dropped."""

    def __init__(self, limit: int):
        self.limit = limit
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.dropped = 0

    def write(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        while self.chunks and self.size - len(self.chunks[0]) >= self.limit:
            removed = self.chunks.popleft()
            self.size -= len(removed)
            self.dropped += len(removed)

    def bytes(self) -> bytes:
        """What is kept, after a line saying how much was dropped (if any was)."""
        data = b"".join(self.chunks)
        dropped = self.dropped + max(len(data) - self.limit, 0)
        data = data[-self.limit:]
        if dropped:
            return f"[… {dropped:,} earlier bytes of output omitted …]\n".encode() + data
        return data

    def text(self) -> str:
        return self.bytes().decode("utf-8", errors="replace")
