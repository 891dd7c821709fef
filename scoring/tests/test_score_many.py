"""`score_many FILE.jsonl`: every line checked first, each good line scored once, re-runs idempotent."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from engine.tests import wat
from scoring.models import Submission
from scoring.tests.helpers import adder_answers


@pytest.fixture
def sweep(imported, tmp_path):
    """A sweep folder: two correct modules, one wrong, and a run record."""
    answers = adder_answers(imported)
    folder = tmp_path / "sweep"
    folder.mkdir()
    (folder / "fast.wasm").write_bytes(wat.lookup(answers))
    (folder / "slow.wasm").write_bytes(wat.lookup(answers, iterations=500))
    (folder / "wrong.wasm").write_bytes(wat.lookup({}))
    (tmp_path / "outside.wasm").write_bytes(wat.lookup(answers))
    (folder / "link.wasm").symlink_to(tmp_path / "outside.wasm")  # a link out of the folder
    call_command("seed_run", "adder", str(tmp_path / "run"), "--version", "v1", "--variant", "long-lists",
                 "--record", str(folder / "record.json"), stdout=io.StringIO())
    record = json.loads((folder / "record.json").read_text())
    record["run"] = {"model": "m-7", "url": "https://example.org/run/7"}
    (folder / "record.json").write_text(json.dumps(record))
    return folder


GOOD = [
    {"slug": "adder", "version": "v1", "name": "fast", "wasm": "fast.wasm", "meta": {"model": "m-1"}},
    {"slug": "adder", "version": "v1", "name": "slow", "wasm": "slow.wasm"},
    {"record": "record.json", "name": "recorded", "wasm": "fast.wasm"},
    {"slug": "adder", "version": "v1", "name": "wrong", "wasm": "wrong.wasm"},
]
BAD = [
    ("{not json", "not strict JSON"),
    ('{"slug": "adder", "name": "x", "wasm": "fast.wasm", "colour": "red"}', "unknown field(s): colour"),
    ('{"slug": "adder", "wasm": "fast.wasm"}', "name is missing"),
    ('{"slug": "nope", "name": "x", "wasm": "fast.wasm"}', "nope"),
    ('{"slug": "adder", "name": "x", "wasm": "fast.wasm", "submission": "."}', "exactly one of"),
    ('{"slug": "adder", "name": "x", "wasm": "missing.wasm"}', "does not exist"),
    ('{"slug": "adder", "name": "x", "wasm": "fast.wasm", "meta": {"url": "javascript:x"}}', "/run/url"),
    ('{"record": "record.json", "version": "v2", "name": "x", "wasm": "fast.wasm"}', "disagrees with the run record"),
    ('[1, 2]', "not a JSON object"),
    ('{"slug": "adder", "name": "x", "wasm": "../outside.wasm"}', "wasm must be inside the file's folder"),
    ('{"slug": "adder", "name": "x", "wasm": "/etc/hostname"}', "wasm must be inside the file's folder"),
    ('{"slug": "adder", "name": "x", "wasm": "link.wasm"}', "wasm must be inside the file's folder"),
    ('{"record": "/etc/passwd", "name": "x", "wasm": "fast.wasm"}', "record must be inside the file's folder"),
    ('{"slug": "adder", "name": "x", "wasm": "fast.wasm", "meta": {"notes": "' + "x" * 70_000 + '"}}',
     "longer than 65,536 bytes"),
]


def write(folder: Path, lines: list) -> Path:
    path = folder / "sweep.jsonl"
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    return path


def run(path: Path, *args: str) -> tuple[dict, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("score_many", str(path), "--json", "--jobs", "1", *args, stdout=out, stderr=err)
    return json.loads(out.getvalue()), err.getvalue()


@pytest.mark.django_db
def test_a_file_with_bad_lines_scores_nothing_and_names_every_bad_line(sweep):
    path = write(sweep, [GOOD[0], *[line for line, _ in BAD], GOOD[1]])
    err = io.StringIO()
    with pytest.raises(CommandError, match=f"{len(BAD)} invalid line"):
        call_command("score_many", str(path), stdout=io.StringIO(), stderr=err)
    for number, (_, reason) in enumerate(BAD, 2):
        assert f"sweep.jsonl:{number}: " in err.getvalue() and reason in err.getvalue(), (number, reason)
    assert "sweep.jsonl:1:" not in err.getvalue()
    assert not Submission.objects.exists()


@pytest.mark.django_db
def test_skip_invalid_scores_the_good_lines_and_a_rerun_scores_nothing_twice(sweep):
    path = write(sweep, [GOOD[0], BAD[0][0], GOOD[1], "", GOOD[2], GOOD[3], GOOD[0]])
    report, err = run(path, "--skip-invalid")
    assert (report["scored"], report["skipped"], report["invalid"], report["failed"]) == (4, 1, 1, 0)
    assert report["invalid_lines"] == [{"line": 2, "code": "not_json", "reason": report["invalid_lines"][0]["reason"]}]
    outcomes = {line["line"]: (line["outcome"], line["name"]) for line in report["lines"]}
    assert outcomes == {1: ("scored", "fast"), 3: ("scored", "slow"), 5: ("scored", "recorded"),
                        6: ("scored", "wrong"), 7: ("skipped", "fast")}
    assert "the same entry as line 1" in next(line["reason"] for line in report["lines"] if line["line"] == 7)
    assert "[" in err and "] 5/5" in err  # the progress bar, on stderr
    recorded = Submission.objects.get(name="recorded")
    assert (recorded.variant.slug, recorded.model, recorded.run["url"]) == ("long-lists", "m-7",
                                                                            "https://example.org/run/7")
    assert Submission.objects.get(name="fast").model == "m-1"
    passed = {line["name"]: line["passed"] for line in report["lines"]}
    assert passed["fast"] and passed["slow"] and not passed["wrong"]

    again, _ = run(path, "--skip-invalid")
    assert (again["scored"], again["skipped"]) == (0, 5)
    assert Submission.objects.count() == 4
    first = {line["line"]: line["submission"] for line in report["lines"]}
    assert {line["line"]: line["submission"] for line in again["lines"]} == first


@pytest.mark.django_db
def test_a_line_left_unfinished_by_a_stopped_run_is_scored_on_the_next(sweep):
    path = write(sweep, GOOD[:2])
    run(path)
    left = Submission.objects.get(name="fast")
    long_ago = timezone.now() - timedelta(hours=1)
    Submission.objects.filter(pk=left.pk).update(status="pending", job_id="", passed=False,  # as a killed run leaves it
                                                 submitted_at=long_ago)
    Submission.objects.filter(name="slow").update(status="error")
    report, _ = run(path)
    assert (report["scored"], report["skipped"]) == (2, 0)
    assert Submission.objects.count() == 2  # the same submissions, scored again
    left.refresh_from_db()
    assert left.status == "scored" and left.passed and left.attempt == 1
    # One just recorded by a run still going is that run's to score.
    Submission.objects.filter(pk=left.pk).update(status="pending", job_id="", submitted_at=timezone.now(),
                                                 heartbeat_at=None)
    report, _ = run(path)
    assert [line["outcome"] for line in report["lines"]] == ["skipped", "skipped"]
    # And one tried SCORING_MAX_ATTEMPTS times is given up on.
    Submission.objects.filter(pk=left.pk).update(status="error", attempt=5)
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 line"):
        call_command("score_many", str(path), "--json", "--jobs", "1", stdout=out, stderr=io.StringIO())
    report = json.loads(out.getvalue())
    assert report["failed"] == 1 and "was tried 6 times" in report["lines"][0]["reason"]


@pytest.mark.django_db
def test_a_changed_source_is_a_new_entry(sweep):
    path = write(sweep, [GOOD[1]])
    run(path)
    (sweep / "slow.wasm").write_bytes((sweep / "fast.wasm").read_bytes())
    report, _ = run(path)
    assert report["scored"] == 1 and Submission.objects.filter(name="slow").count() == 2


@pytest.mark.django_db
def test_enqueue_queues_each_line(sweep, django_capture_on_commit_callbacks):
    path = write(sweep, GOOD[:2])
    with django_capture_on_commit_callbacks(execute=False):
        report, _ = run(path, "--enqueue")
    assert report["queued"] == 2
    assert set(Submission.objects.values_list("status", flat=True)) == {"pending"}


@pytest.mark.slow  # real processes: make test, not the inner loop
def test_lines_run_in_parallel_with_jobs_in_a_real_process(imported, tmp_path):
    """Parallel lines in a real process, on a database file (WAL, as a deployment has): each line's
    thread has its own connection, and every line is stored once."""
    from tests.helpers import SubprocessDatabase, command_env, manage

    database = SubprocessDatabase.migrated(tmp_path)
    try:
        env = command_env(database, tmp_path, SCORING_THREADS="1")
        manage(env, "import_catalog", str(imported.root))
        (tmp_path / "fast.wasm").write_bytes(wat.lookup(adder_answers(imported)))
        path = tmp_path / "sweep.jsonl"
        path.write_text("".join(json.dumps({"slug": "adder", "version": "v1", "name": f"solver-{index}",
                                            "wasm": "fast.wasm", "meta": {"model": f"m-{index % 2}"}}) + "\n"
                                for index in range(6)))
        done = manage(env, "score_many", str(path), "--jobs", "2", "--json")
        report = json.loads(done.stdout)
        assert (report["scored"], report["failed"]) == (6, 0), report
        assert "] 6/6" in done.stderr
        rows = database.query("SELECT status, passed, model FROM scoring_submission")
        assert sorted(rows) == sorted([("scored", True, "m-0")] * 3 + [("scored", True, "m-1")] * 3)
        again = json.loads(manage(env, "score_many", str(path), "--jobs", "2", "--json").stdout)
        assert (again["scored"], again["skipped"]) == (0, 6)
        assert database.query("SELECT COUNT(*) FROM scoring_submission") == [(6,)]
    finally:
        database.drop()


@pytest.mark.django_db
def test_usage_errors(sweep, tmp_path):
    with pytest.raises(CommandError, match="could not be read"):
        call_command("score_many", str(tmp_path / "missing.jsonl"))
    with pytest.raises(CommandError, match="--jobs must be at least 1"):
        call_command("score_many", str(write(sweep, GOOD[:1])), "--jobs", "0")


@pytest.mark.django_db
def test_a_record_or_module_that_is_a_fifo_is_refused_without_waiting(sweep):
    """Opening a FIFO for reading waits for a writer: only regular files are opened, and
    without blocking (an alarm ends the test if the check waits)."""
    import os
    import signal

    os.mkfifo(sweep / "record-fifo.json")
    os.mkfifo(sweep / "module-fifo.wasm")
    path = write(sweep, [{"record": "record-fifo.json", "name": "x", "wasm": "fast.wasm"},
                         {"slug": "adder", "version": "v1", "name": "y", "wasm": "module-fifo.wasm"}])
    err = io.StringIO()

    def waited(signum, frame):
        raise TimeoutError("checking the sweep waited on a FIFO")

    previous = signal.signal(signal.SIGALRM, waited)
    signal.alarm(20)
    try:
        with pytest.raises(CommandError, match="2 invalid line"):
            call_command("score_many", str(path), stdout=io.StringIO(), stderr=err)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert "sweep.jsonl:1: run record" in err.getvalue() and "not a regular file" in err.getvalue()
    assert "sweep.jsonl:2: wasm file" in err.getvalue()
    assert not Submission.objects.exists()


@pytest.mark.django_db
def test_a_folder_named_on_many_lines_is_packed_once_per_phase(sweep, monkeypatch):
    from scoring import batch

    folder = sweep / "workspace"
    folder.mkdir()
    (folder / "notes.txt").write_text("a folder five lines share\n")
    packed = []
    real = batch.read_source
    monkeypatch.setattr(batch, "read_source", lambda **kwargs: packed.append(kwargs) or real(**kwargs))
    lines = [{"slug": "adder", "version": "v1", "name": f"n{index}", "submission": "workspace"} for index in range(5)]
    checked = batch.check_lines(write(sweep, lines))
    assert len(checked.lines) == 5 and len(packed) == 1
    sources = batch.Sources()
    sources.expect(checked.lines)
    taken = {sources.take(line)[2] for line in checked.lines}
    assert len(packed) == 2 and len(taken) == 1


@pytest.mark.django_db
def test_a_refused_line_keeps_the_code_of_what_refused_it(sweep):
    """The domain error's own code reaches the summary (it was flattened into a bare reason)."""
    lines = [{"slug": "nope", "name": "x", "wasm": "fast.wasm"}, {"slug": "adder", "name": "x\u202e",
                                                                  "wasm": "fast.wasm"},
             {"slug": "adder", "name": "x", "wasm": "fast.wasm", "meta": {"url": "javascript:x"}}]
    report, _ = run(write(sweep, lines), "--skip-invalid")
    assert [(line["line"], line["code"]) for line in report["invalid_lines"]] == [
        (1, "unknown_case"), (2, "bad_name"), (3, "invalid")]
