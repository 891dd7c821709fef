"""Asking a build launcher (`launcher.py`) for a build, or for its status, from an unprivileged worker."""

from __future__ import annotations

import socket
import time

from engine.builds import protocol
from engine.builds.limits import CONFINED, BuildLimits, BuildResult, SandboxUnavailable
from engine.toolchain import Toolchain

CONNECT_SECONDS = 10
STATUS_SECONDS = 30
ANSWER_MARGIN_SECONDS = 120  # on top of a build's wall: for the launcher to start it and answer


def _ask(socket_path: str, header: dict, payload: bytes, *, seconds: float, payload_limit: int,
         header_limit: int = protocol.HEADER_LIMIT) -> tuple[dict, bytes]:
    """One request and its answer. Raises SandboxUnavailable when the launcher cannot be asked,
    answers that it cannot build now, or answers out of protocol."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.settimeout(CONNECT_SECONDS)
        try:
            connection.connect(socket_path)
        except OSError as error:
            raise SandboxUnavailable(f"the build launcher at {socket_path} cannot be reached: "
                                     f"{error.strerror or error}") from None
        try:  # reached: a launcher that hangs up (on an asker it does not serve, say) did not answer
            protocol.send(connection, header, payload)
            answer, module = protocol.receive(connection, payload_limit=payload_limit, seconds=seconds,
                                              header_limit=header_limit)
        except (OSError, protocol.ProtocolError) as error:
            said = error.strerror if isinstance(error, OSError) and error.strerror else error
            raise SandboxUnavailable(f"the build launcher at {socket_path} did not answer: {said}") from None
    finally:
        connection.close()
    if "unavailable" in answer:
        raise SandboxUnavailable(f"the build launcher at {socket_path} could not build now: {answer['unavailable']}")
    if "refused" in answer:
        raise Refused(str(answer["refused"]))
    return answer, module


class Refused(Exception):
    """The launcher refused the request itself (a field or a size it will never take): asking again
    would be refused again."""


def launcher_status(socket_path: str) -> dict:
    """The launcher's own account of itself (ready, problem, uids, slots, caps). Raises SandboxUnavailable."""
    try:
        answer, _ = _ask(socket_path, {"op": "status"}, b"", seconds=STATUS_SECONDS, payload_limit=0)
    except Refused as refused:
        raise SandboxUnavailable(f"the build launcher at {socket_path} refused to say its status: {refused}") from None
    return answer


def build_remotely(socket_path: str, source: bytes, *, install: str, build: str, module_path: str,
                   limits: BuildLimits, log_limit: int) -> BuildResult:
    """`build_submission`, done by the launcher at `socket_path` (which caps every limit at its own).
    Raises SandboxUnavailable as `build_submission` does, and when the launcher cannot be asked or
    cannot build now; a request it refuses outright is a failed build (its reason in `detail`)."""
    started = time.perf_counter()
    header = {"op": "build", "install": install, "build": build, "module": module_path, "log_limit": log_limit,
              "limits": limits.__dict__}
    seconds = limits.wall + ANSWER_MARGIN_SECONDS
    # The payload: the log's bytes (a tail of at most `log_limit` bytes, each possibly re-encoded as a
    # three-byte replacement character, and a line about what was omitted), then the module.
    try:
        answer, payload = _ask(socket_path, header, source, seconds=seconds,
                               payload_limit=limits.module_bytes + 3 * log_limit + 4096)
    except Refused as refused:  # the same request would be refused again: a failed build, not a wait
        return BuildResult(False, None, "", "the build could not be started: the build launcher refused the request",
                           time.perf_counter() - started, True, f"the build launcher refused it: {refused}", CONFINED)
    try:
        log_bytes = int(answer["log_bytes"])
        return BuildResult(bool(answer["ok"]), payload[log_bytes:] if answer["ok"] else None,
                           payload[:log_bytes].decode("utf-8", "replace"), str(answer["message"]),
                           time.perf_counter() - started, True, str(answer["detail"]), str(answer["confinement"]),
                           Toolchain.from_dict(answer.get("toolchain")).as_dict())
    except (KeyError, ValueError) as missing:
        raise SandboxUnavailable(f"the build launcher at {socket_path} answered out of protocol ({missing})") from None

