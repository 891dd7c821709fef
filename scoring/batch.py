"""Scoring many runs from one JSON Lines file (`manage.py score_many`).

Each line is an object with what `score` takes: `slug`, `version`, `variant`, `name`,
`submission` (a folder) or `wasm` (a module), `record` (a run record) and `meta` (run fields).
Relative paths are read from the file's folder. Every line is checked before anything is
stored (`check_lines`); then each good line is submitted and scored (or queued) once: a line
whose version, variant, name and source digest already have a submission is skipped, so
running the same file again scores nothing twice.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from django.db import close_old_connections, connection, transaction

from catalog.models import UnknownTarget
from catalog.runrecords import (
    NUMERIC_RUN_FIELDS,
    RunRecordError,
    target_and_run,
    typed_value,
)
from engine.builds import SandboxUnavailable
from lib.errors import DomainError
from lib.files import open_regular
from lib.strictjson import DocumentTooLarge, JSONDocumentError, loads_capped
from scoring.attempts import score
from scoring.entries import EXHAUSTED, STANDING, claim_entry
from scoring.jobs import enqueue_scoring
from scoring.models import Submission
from scoring.recording import ScoringError, check_name, read_source, source_digest

MAX_LINE_BYTES = 64 * 1024
MAX_LINES = 100_000
LINE_KEYS = {"slug", "version", "variant", "name", "submission", "wasm", "record", "meta"}


class BadLine(DomainError):
    """A line of the file that cannot be scored, with the code of what was wrong (a domain
    error's own code when one refused it: `bad_name`, `unknown_case`, `invalid`…)."""


@dataclass
class Line:
    """One checked line: what to score, and later what became of it."""

    number: int
    version: object
    variant: object
    name: str
    run: dict
    folder: Path | None
    wasm: Path | None
    digest: str
    outcome: str = ""  # scored, queued, skipped, failed
    reason: str = ""
    submission: Submission | None = None

    def as_json(self) -> dict:
        found = self.submission
        return {
            "line": self.number, "outcome": self.outcome, "case": self.version.case.slug,
            "version": self.version.version, "variant": self.variant.slug, "name": self.name,
            "submission": found.pk if found else None, "status": found.status if found else None,
            "passed": found.passed if found else None, "total_fuel": found.total_fuel if found else None,
            **({"reason": self.reason} if self.reason else {}),
        }


@dataclass
class Checked:
    lines: list[Line] = field(default_factory=list)
    invalid: list[tuple[int, str, str]] = field(default_factory=list)  # (line number, code, reason)


def _path(base: Path, value: str, key: str) -> Path:
    """A path of the file, inside the file's folder (links resolved): the file names what is read
    and stored, so it may not reach the operator's other files."""
    root = base.resolve()
    path = (root / value).resolve()
    if path != root and root not in path.parents:
        raise BadLine("outside_folder", f"{key} must be inside the file's folder ({root})")
    return path


class Sources:
    """Each distinct folder or module of a file, read (a folder packed) once.

    While the file is checked, only each source's digest is kept; while its lines run, a
    source's bytes are kept until the last line naming it has taken them (so a file naming one
    250 MB folder on five lines packs it once in each phase, not five times).
    """

    def __init__(self):
        self.digests: dict[tuple[Path | None, Path | None], str] = {}
        self._held: dict[tuple, tuple[str, str, bytes]] = {}
        self._wanted: dict[tuple, int] = {}
        self._locks: dict[tuple, threading.Lock] = {}
        self._lock = threading.Lock()

    def digest(self, folder: Path | None, wasm: Path | None) -> str:
        key = (folder, wasm)
        if key not in self.digests:
            self.digests[key] = source_digest(read_source(folder=folder, wasm_file=wasm)[2])
        return self.digests[key]

    def expect(self, lines: list["Line"]) -> None:
        for line in lines:
            key = (line.folder, line.wasm)
            self._wanted[key] = self._wanted.get(key, 0) + 1
            self._locks.setdefault(key, threading.Lock())

    def take(self, line: "Line") -> tuple[str, str, bytes]:
        """The line's source, read now or by an earlier line of the same source."""
        key = (line.folder, line.wasm)
        with self._locks.setdefault(key, threading.Lock()):
            with self._lock:
                source = self._held.get(key)
            try:
                if source is None:
                    source = read_source(folder=line.folder, wasm_file=line.wasm)
            finally:
                with self._lock:
                    self._wanted[key] = self._wanted.get(key, 1) - 1
                    if self._wanted[key] > 0 and source is not None:
                        self._held[key] = source
                    else:
                        self._held.pop(key, None)
        return source


def check_line(number: int, raw: bytes, base: Path, sources: Sources | None = None) -> Line:
    """One line, checked against everything `score` would refuse. Raises BadLine."""
    sources = sources or Sources()
    try:
        item = loads_capped(raw, MAX_LINE_BYTES)
    except DocumentTooLarge:
        raise BadLine("too_long", f"longer than {MAX_LINE_BYTES:,} bytes") from None
    except JSONDocumentError as error:
        raise BadLine("not_json", f"not strict JSON: {error}") from None
    if not isinstance(item, dict):
        raise BadLine("not_object", "not a JSON object")
    unknown = sorted(set(item) - LINE_KEYS)
    if unknown:
        raise BadLine("unknown_field", f"unknown field(s): {', '.join(unknown)}")
    for key in ("slug", "version", "variant", "name", "submission", "wasm", "record"):
        if key in item and not isinstance(item[key], str):
            raise BadLine("bad_field", f"{key} must be a string")
    meta = item.get("meta", {})
    if not isinstance(meta, dict) or not all(
            isinstance(value, str) or (key in NUMERIC_RUN_FIELDS and isinstance(value, (int, float))
                                       and not isinstance(value, bool)) for key, value in meta.items()):
        raise BadLine("bad_field", "meta must be an object of strings (numbers for "
                                   f"{', '.join(NUMERIC_RUN_FIELDS)})")
    if "name" not in item:
        raise BadLine("bad_name", "name is missing")
    if ("submission" in item) == ("wasm" in item):
        raise BadLine("bad_source", "give exactly one of submission (a folder) or wasm (a module)")
    try:
        meta = {key: typed_value(key, value, "meta") for key, value in meta.items()}
        name = check_name(item["name"])
        version, variant, run = target_and_run(
            item.get("slug"), item.get("version"), item.get("variant"),
            _path(base, item["record"], "record") if "record" in item else None, meta)
        folder = _path(base, item["submission"], "submission") if "submission" in item else None
        wasm = _path(base, item["wasm"], "wasm") if "wasm" in item else None
        digest = sources.digest(folder, wasm)
    except (ScoringError, RunRecordError, UnknownTarget) as error:
        # The domain error keeps its code; only the option names become the line's field names.
        raise BadLine(error.code, error.message.replace("--name", "name").replace("--meta", "meta")) from None
    return Line(number, version, variant, name, run, folder, wasm, digest)


def check_lines(path: Path) -> Checked:
    """Every line of the file, checked; blank lines are ignored."""
    checked = Checked()
    sources = Sources()
    base = path.parent
    try:
        handle = open_regular(path)
    except OSError as error:
        raise ScoringError("missing_source", f"{path} could not be read: {error.strerror}") from None
    with handle:
        number = 0
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 1)  # never more than a line's cap in memory
            if not raw:
                break
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):  # skip the rest of the line, a chunk at a time
                    raw = handle.readline(MAX_LINE_BYTES)
                checked.invalid.append((number, "too_long", f"longer than {MAX_LINE_BYTES:,} bytes"))
                continue
            if number > MAX_LINES:
                checked.invalid.append((number, "too_many_lines", f"the file has more than {MAX_LINES:,} lines"))
                break
            if not raw.strip():
                continue
            try:
                checked.lines.append(check_line(number, raw.rstrip(b"\r\n"), base, sources))
            except BadLine as bad:
                checked.invalid.append((number, bad.code, bad.message))
    return checked


def claim(line: Line, source: tuple[str, str, bytes]) -> Submission | None:
    """The submission to score for the line, recorded (or taken over) now; None if it has one
    already (scoring.entries: the rule the submissions API shares)."""

    claimed = claim_entry(line.version, line.variant, line.name, source, run=line.run)
    if claimed.outcome == STANDING:
        line.outcome, line.submission = "skipped", claimed.submission
        line.reason = f"already submitted as #{claimed.submission.pk}"
        return None
    if claimed.outcome == EXHAUSTED:
        line.outcome, line.submission = "failed", claimed.submission
        line.reason = (f"#{claimed.submission.pk} was tried {claimed.submission.attempts_used} times "
                       "(SCORING_MAX_ATTEMPTS)")
        return None
    return claimed.submission


def run_line(line: Line, *, enqueue: bool, sources: Sources | None = None) -> Line:
    """Submit and score (or queue) one checked line, unless it was scored before."""

    try:
        source = (sources or Sources()).take(line)  # packed before any lock is taken
        if source_digest(source[2]) != line.digest:
            raise ScoringError("changed_source", "the source changed since the file was checked")
        submission = claim(line, source)
        if submission is None:
            return line
        line.submission = submission
        if enqueue:
            with transaction.atomic():
                enqueue_scoring(submission)
            submission.refresh_from_db()
            line.outcome = "queued"
            return line
        line.submission = score(submission)
        line.outcome = "scored"
    except ScoringError as error:  # the source changed since it was checked
        line.outcome, line.reason = "failed", error.message
    except SandboxUnavailable as error:
        line.outcome, line.reason = "failed", f"recorded but not built: {error}"
    except Exception as error:  # the scorer failed on this line; the others go on
        line.outcome, line.reason = "failed", f"the scorer failed: {type(error).__name__}: {error}"
    if line.submission is not None:
        line.submission.refresh_from_db()
    return line


def _in_worker(line: Line, enqueue: bool, sources: Sources) -> Line:
    """run_line on a worker thread, with a connection of its own, closed when done."""
    close_old_connections()
    try:
        return run_line(line, enqueue=enqueue, sources=sources)
    finally:
        connection.close()


def run_lines(lines: list[Line], *, jobs: int, enqueue: bool, done=None) -> list[Line]:
    """Every line, `jobs` at a time; a line seen before in the same file is skipped as its duplicate."""
    first_of: dict[tuple, Line] = {}
    unique, duplicates = [], []
    for line in lines:
        key = (line.version.pk, line.variant.pk, line.name, line.digest)
        if key in first_of:
            line.outcome, line.reason = "skipped", f"the same entry as line {first_of[key].number}"
            duplicates.append(line)
        else:
            first_of[key] = line
            unique.append(line)
    for line in duplicates:
        if done:
            done(line)
    sources = Sources()
    sources.expect(unique)
    if jobs <= 1:
        for line in unique:
            run_line(line, enqueue=enqueue, sources=sources)
            if done:
                done(line)
    else:
        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="score-many") as pool:
            for future in as_completed([pool.submit(_in_worker, line, enqueue, sources) for line in unique]):
                if done:
                    done(future.result())
    for line in duplicates:
        line.submission = first_of[(line.version.pk, line.variant.pk, line.name, line.digest)].submission
    return sorted(lines, key=lambda line: line.number)


def summary(path: Path, checked: Checked, lines: list[Line]) -> dict:
    counts = {outcome: sum(1 for line in lines if line.outcome == outcome)
              for outcome in ("scored", "queued", "skipped", "failed")}
    return {
        "file": str(path), **counts, "invalid": len(checked.invalid),
        "invalid_lines": [{"line": number, "code": code, "reason": reason} for number, code, reason in checked.invalid],
        "lines": [line.as_json() for line in lines],
    }


def describe(line: Line) -> str:
    found = line.submission
    where = f"{line.name} on {line.version.case.slug} {line.version.version} ({line.variant.slug})"
    if line.outcome == "failed":
        return f"{where}: failed: {line.reason}"
    if line.outcome == "skipped":
        return f"{where}: skipped, {line.reason}"
    if line.outcome == "queued":
        return f"{where}: queued as #{found.pk}"
    fuel = f", {found.total_fuel:,} fuel" if found.total_fuel is not None else ""
    return f"{where}: #{found.pk} {found.verdict.text}{fuel}"

