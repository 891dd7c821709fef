"""Run records tie an entry to the run that produced it: seed_run --record, score --run-record and
--meta, and the provenance shown on every page, download and API document that shows the entry."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from jsonschema import Draft202012Validator

from catalog.runrecords import MAX_EXTRA, RUN_RECORD_SCHEMA
from scoring.models import Submission

pytestmark = pytest.mark.django_db


def seed(tmp_path: Path, *args: str, name: str = "record.json") -> Path:
    record = tmp_path / name
    call_command("seed_run", "adder", str(tmp_path / f"run-{name}"), "--version", "v1", *args, "--record", str(record),
                 stdout=io.StringIO())
    return record


def edit(record: Path, **run) -> Path:
    """What a harness does after the run: add its `run` object."""
    document = json.loads(record.read_text())
    document["run"] = {**document.get("run", {}), **run}
    record.write_text(json.dumps(document))
    return record


def score(*args: str) -> dict:
    out = io.StringIO()
    call_command("score", *args, "--json", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def test_seed_run_writes_a_record_of_the_version_variant_and_prompt(imported, adder_v1, tmp_path):
    record = seed(tmp_path, "--variant", "long-lists")
    document = json.loads(record.read_text())
    Draft202012Validator(RUN_RECORD_SCHEMA).validate(document)
    assert document["case"] == "adder" and document["version"] == "v1" and document["variant"] == "long-lists"
    assert document["version_digest"] == adder_v1.digest
    prompt = (tmp_path / "run-record.json" / "PROMPT.md").read_bytes()
    assert document["prompt_digest"] == hashlib.sha256(prompt).hexdigest()
    assert document["seeded_at"].endswith("Z")


def test_the_schema_is_published_and_is_the_one_the_scorer_checks(client, imported):
    response = client.get("/api/v1/schemas/run-record.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/schema+json"
    assert response.json() == json.loads(json.dumps(RUN_RECORD_SCHEMA))
    Draft202012Validator.check_schema(response.json())


def test_a_record_inside_the_run_root_or_over_a_file_is_refused_and_nothing_is_laid_out(imported, tmp_path):
    with pytest.raises(CommandError, match="outside the run root"):
        call_command("seed_run", "adder", str(tmp_path / "run"), "--record", str(tmp_path / "run" / "r.json"))
    assert not (tmp_path / "run").exists()
    (tmp_path / "taken.json").write_text("{}")
    with pytest.raises(CommandError, match="already exists"):
        call_command("seed_run", "adder", str(tmp_path / "run"), "--record", str(tmp_path / "taken.json"))
    assert not (tmp_path / "run").exists() and (tmp_path / "taken.json").read_text() == "{}"


def test_score_takes_the_target_from_the_record_and_stores_the_run(imported, correct_wasm, tmp_path):
    record = edit(seed(tmp_path, "--variant", "long-lists"), model="opus-9", harness="bench-harness 2.1",
                  url="https://example.org/runs/17", started_at="2026-12-01T10:00:00Z", notes="second try\nok",
                  temperature="0.2")
    document = score("--run-record", str(record), "--wasm", str(correct_wasm), "--name", "run-17")
    submission = Submission.objects.get(pk=document["submission"])
    assert (submission.version.version, submission.variant.slug) == ("v1", "long-lists")
    assert submission.model == "opus-9"
    assert submission.run == {"model": "opus-9", "harness": "bench-harness 2.1", "url": "https://example.org/runs/17",
                              "started_at": "2026-12-01T10:00:00Z", "notes": "second try\nok", "temperature": "0.2"}


def test_meta_sets_the_same_fields_without_a_record_and_over_one(imported, adder_v1, correct_wasm, tmp_path):
    document = score("adder", "--version", "v1", "--wasm", str(correct_wasm), "--name", "x",
                     "--meta", "model=m1", "--meta", "harness=h=1")
    assert Submission.objects.get(pk=document["submission"]).run == {"model": "m1", "harness": "h=1"}
    record = edit(seed(tmp_path), model="from-record", harness="kept")
    document = score("--run-record", str(record), "--wasm", str(correct_wasm), "--name", "y", "--meta", "model=over")
    assert Submission.objects.get(pk=document["submission"]).run == {"model": "over", "harness": "kept"}


@pytest.mark.parametrize("args, message", [
    (["adder", "--version", "v2"], "--version v2 disagrees with the run record, which names v1"),
    (["adder", "--variant", "long-lists"], "--variant long-lists disagrees"),
    (["other-case"], "case other-case disagrees"),
])
def test_arguments_against_the_record_are_refused_and_nothing_is_stored(imported, correct_wasm, tmp_path, args,
                                                                          message):
    record = seed(tmp_path)
    with pytest.raises(CommandError, match=message):
        score(*args, "--run-record", str(record), "--wasm", str(correct_wasm), "--name", "x")
    assert not Submission.objects.exists()


def test_a_record_whose_digests_no_longer_match_is_refused(imported, correct_wasm, tmp_path):
    for field, message in (("version_digest", "version digest does not match"),
                           ("prompt_digest", "prompt digest does not match")):
        record = seed(tmp_path, name=f"{field}.json")
        document = json.loads(record.read_text())
        document[field] = "0" * 64
        record.write_text(json.dumps(document))
        with pytest.raises(CommandError, match=message):
            score("--run-record", str(record), "--wasm", str(correct_wasm), "--name", "x")
    assert not Submission.objects.exists()


@pytest.mark.parametrize("run, message", [
    ({"url": "javascript:alert(1)"}, "/run/url: is not in the allowed form (http or https URL)"),
    ({"url": "file:///etc/passwd"}, "/run/url"),
    ({"model": "x" * 101}, "/run/model"),
    ({"model": "line\nbreak"}, "/run/model"),
    ({"notes": "bell\u0007"}, "/run/notes"),
    ({"started_at": "yesterday"}, "/run/started_at"),
    ({"started_at": "2026-13-45T10:00:00Z"}, "/run/started_at: is not a real time"),
    ({"Bad-Key": "x"}, "/run: has an unknown field (Bad-Key)"),
    ({"model": 7}, "/run/model: 7 is not of type 'string'"),
    ({f"extra_{n}": "v" for n in range(MAX_EXTRA + 1)}, "/run: has 17 extra fields, more than 16"),
    ({"model": "gpt\n"}, "/run/model"),  # Python's $ would match before a final newline
    ({"url": "https://a.example/x\n"}, "/run/url"),
    ({"harness": "evil\u202etxt.exe"}, "/run/harness"),  # a bidirectional override
    ({"model": "c1\u0085"}, "/run/model"),
    ({"abc\n": "x"}, "/run: has an unknown field"),
    ({"cost_usd": -0.01}, "/run/cost_usd: -0.01 is less than the minimum of 0"),
    ({"cost_usd": 2_000_000}, "/run/cost_usd"),
    ({"cost_usd": "0.42"}, "/run/cost_usd: '0.42' is not of type 'number'"),  # a record says numbers as numbers
    ({"input_tokens": 1.5}, "/run/input_tokens: 1.5 is not of type 'integer'"),
    ({"output_tokens": True}, "/run/output_tokens: True is not of type 'integer'"),
    ({"wall_seconds": 1e300}, "/run/wall_seconds"),
])
def test_bad_run_fields_are_refused_with_where_and_why(imported, correct_wasm, tmp_path, run, message):
    record = edit(seed(tmp_path), **run)
    with pytest.raises(CommandError) as raised:
        score("--run-record", str(record), "--wasm", str(correct_wasm), "--name", "x")
    assert message in str(raised.value)
    assert not Submission.objects.exists()


def test_what_a_run_cost_is_kept_as_numbers_from_a_record_meta_and_score_many(client, imported, correct_wasm,
                                                                             tmp_path):
    record = edit(seed(tmp_path), model="m", cost_usd=0.0042, input_tokens=12_000, output_tokens=3_400)
    document = score("--run-record", str(record), "--wasm", str(correct_wasm), "--name", "x",
                     "--meta", "wall_seconds=532.4", "--meta", "cost_usd=1.25")
    run = Submission.objects.get(pk=document["submission"]).run
    assert run == {"model": "m", "cost_usd": 1.25, "input_tokens": 12_000, "output_tokens": 3_400,
                   "wall_seconds": 532.4}
    page = client.get(f"/submissions/{document['submission']}/").content.decode()
    assert "$1.25" in page and "12,000 read · 3,400 written" in page and "8 min 52 s" in page
    assert client.get(f"/api/v1/submissions/{document['submission']}/").json()["run"]["input_tokens"] == 12_000
    rows = list(csv.DictReader(io.StringIO(b"".join(
        client.get("/api/v1/cases/adder/leaderboard.csv", {"version": "v1"}).streaming_content).decode())))
    assert (rows[0]["cost_usd"], rows[0]["input_tokens"], rows[0]["wall_seconds"]) == ("1.25", "12000", "532.4")
    for meta, message in (("cost_usd=1e3", "--meta cost_usd must be a number"), ("cost_usd=nan", "must be a number"),
                          ("input_tokens=1.5", "--meta input_tokens must be a whole number"),
                          ("wall_seconds=-1", "must be a number")):
        with pytest.raises(CommandError, match=message):
            score("adder", "--wasm", str(correct_wasm), "--name", "y", "--meta", meta)
    assert not Submission.objects.filter(name="y").exists()
    published = client.get("/api/v1/schemas/run-record.json").json()
    assert published["properties"]["run"]["properties"]["input_tokens"] == {
        **RUN_RECORD_SCHEMA["properties"]["run"]["properties"]["input_tokens"], "type": "integer"}


def test_score_many_reads_cost_fields_as_numbers_or_as_their_text(imported, correct_wasm, tmp_path):
    lines = tmp_path / "runs.jsonl"
    lines.write_text("\n".join(json.dumps(line) for line in (
        {"slug": "adder", "version": "v1", "name": "a", "wasm": str(correct_wasm), "meta": {"cost_usd": 0.5}},
        {"slug": "adder", "version": "v1", "name": "b", "wasm": str(correct_wasm), "meta": {"input_tokens": "700"}},
    )) + "\n")
    call_command("score_many", str(lines), "--jobs", "1", stdout=io.StringIO(), stderr=io.StringIO())
    assert Submission.objects.get(name="a").run == {"cost_usd": 0.5}
    assert Submission.objects.get(name="b").run == {"input_tokens": 700}


def test_sixteen_extra_fields_are_kept(imported, correct_wasm, tmp_path):
    record = edit(seed(tmp_path), model="m", **{f"extra_{n}": "v" for n in range(MAX_EXTRA)})
    document = score("--run-record", str(record), "--wasm", str(correct_wasm), "--name", "x")
    assert len(Submission.objects.get(pk=document["submission"]).run) == MAX_EXTRA + 1


@pytest.mark.parametrize("content, message", [
    (b"{not json", "is not strict JSON"),
    (b'{"format": NaN}', "is not strict JSON"),
    (b"[]", "is not valid"),
    (b" " * (64 * 1024 + 1), "larger than"),
])
def test_an_unreadable_record_is_refused(imported, correct_wasm, tmp_path, content, message):
    record = tmp_path / "bad.json"
    record.write_bytes(content)
    with pytest.raises(CommandError, match=message):
        score("--run-record", str(record), "--wasm", str(correct_wasm), "--name", "x")
    with pytest.raises(CommandError, match="could not be read"):
        score("--run-record", str(tmp_path / "missing.json"), "--wasm", str(correct_wasm), "--name", "x")


def test_bad_meta_is_refused(imported, correct_wasm):
    for meta, message in (("model", "is not KEY=VALUE"), ("url=ftp://x", "/run/url")):
        with pytest.raises(CommandError, match=message):
            score("adder", "--wasm", str(correct_wasm), "--name", "x", "--meta", meta)
    with pytest.raises(CommandError, match="name the case"):
        score("--wasm", str(correct_wasm), "--name", "x")
    assert not Submission.objects.exists()


HOSTILE = '<script>alert(1)</script>"'


def test_provenance_is_shown_escaped_with_a_nofollow_transcript_link(client, imported, correct_wasm, tmp_path):
    record = edit(seed(tmp_path), model=HOSTILE, harness=HOSTILE, notes=HOSTILE, url='https://x.test/a"onmouseover=1',
                  seed_name=HOSTILE)
    with pytest.raises(CommandError, match="/run/url"):  # a quote is not part of a URL
        score("--run-record", str(record), "--wasm", str(correct_wasm), "--name", "x")
    record = edit(record, url="https://x.test/runs/1?a=1&b=2")
    pk = score("--run-record", str(record), "--wasm", str(correct_wasm), "--name", "x")["submission"]
    for url in (f"/submissions/{pk}/", "/cases/adder/leaderboard/?version=v1", "/standings/"):
        html = client.get(url).content.decode()
        assert "<script>alert(1)</script>" not in html, url
    html = client.get(f"/submissions/{pk}/").content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot;" in html
    assert ('<a href="https://x.test/runs/1?a=1&amp;b=2" rel="nofollow noopener noreferrer ugc" class="run-link">'
            in html)
    assert "seed_name" in html  # an extra field, shown by name


def test_the_model_column_and_filter_keep_ranks_and_reach_csv_and_api(client, imported, adder_v1, tmp_path):
    from engine.tests import wat
    from scoring.attempts import score as run_score
    from scoring.recording import submit
    from scoring.tests.helpers import adder_answers

    answers = adder_answers(imported)
    made = {}
    for name, iterations, model in (("a", 0, "m-fast"), ("b", 500, "m-slow"), ("c", 1000, "m-fast"), ("d", 0, "")):
        path = tmp_path / f"{name}.wasm"
        path.write_bytes(wat.lookup(answers, iterations=iterations))
        made[name] = run_score(submit(adder_v1, adder_v1.default_variant(), name, wasm_file=path,
                                      run={"model": model} if model else {}))
    html = client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    assert '<th scope="col" class="wide-only">Model</th>' in html and "?version=v1&amp;model=m-fast" in html
    document = client.get("/api/v1/cases/adder/leaderboard/", {"version": "v1", "model": "m-fast"}).json()
    # a and d used the same fuel (a first: earlier), then b, then c: the filtered rows keep ranks 1 and 4.
    assert [(row["name"], row["rank"], row["model"]) for row in document["results"]] == [
        ("a", 1, "m-fast"), ("c", 4, "m-fast")]
    assert document["count"] == 2 and document["model"] == "m-fast"
    ranks = {row["name"]: row["rank"] for row in client.get("/api/v1/cases/adder/leaderboard/",
                                                            {"version": "v1"}).json()["results"]}
    assert [row["rank"] for row in document["results"]] == [ranks["a"], ranks["c"]]
    page = client.get("/cases/adder/leaderboard/", {"version": "v1", "model": "m-slow"}).content.decode()
    table = page[page.index('<table class="board">'):page.index('</table>')]
    assert f"/submissions/{made['b'].pk}/" in table and f"/submissions/{made['a'].pk}/" not in table
    assert "No entry on this board came from the model" in client.get(
        "/cases/adder/leaderboard/", {"version": "v1", "model": "nobody"}).content.decode()
    assert client.get("/cases/adder/leaderboard/", {"model": "x" * 101}).status_code == 400
    assert client.get("/api/v1/cases/adder/leaderboard/", {"model": "x" * 101}).status_code == 400
    rows = list(csv.DictReader(io.StringIO(b"".join(client.get(
        "/cases/adder/leaderboard/", {"version": "v1", "format": "csv"}).streaming_content).decode())))
    assert {row["name"]: row["model"] for row in rows} == {"a": "m-fast", "b": "m-slow", "c": "m-fast", "d": ""}
    submission = client.get(f"/api/v1/submissions/{made['a'].pk}/").json()
    assert submission["run"] == {"model": "m-fast"}


def test_a_filtered_board_costs_the_same_queries_however_many_rows_and_its_csv_keeps_ranks(client, imported,
                                                                                           adder_v1):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.factories import make_submissions

    def queries(url: str, query: dict) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url, query).status_code == 200
        return len(captured)

    make_submissions(adder_v1, 6)
    Submission.objects.filter(pk__in=list(Submission.objects.order_by("pk").values_list("pk", flat=True)[::2])).update(
        model="m")
    from scoring.boards.rebuilding import rebuild
    rebuild([adder_v1.pk])
    query = {"version": "v1", "model": "m"}
    few = [queries("/cases/adder/leaderboard/", query), queries("/api/v1/cases/adder/leaderboard/", query)]
    make_submissions(adder_v1, 60)
    Submission.objects.filter(pk__in=list(Submission.objects.order_by("pk").values_list("pk", flat=True)[::2])).update(
        model="m")
    rebuild([adder_v1.pk])
    assert [queries("/cases/adder/leaderboard/", query), queries("/api/v1/cases/adder/leaderboard/", query)] == few
    api = {row["submission"]: row["rank"] for row in client.get("/api/v1/cases/adder/leaderboard/",
                                                                {**query, "page_size": 200}).json()["results"]}
    whole = {row["submission"]: row["rank"] for row in client.get("/api/v1/cases/adder/leaderboard/",
                                                                  {"version": "v1",
                                                                   "page_size": 200}).json()["results"]}
    assert api and all(whole[pk] == rank for pk, rank in api.items())
    rows = list(csv.DictReader(io.StringIO(b"".join(client.get(
        "/cases/adder/leaderboard/", {**query, "format": "csv"}).streaming_content).decode())))
    assert {int(row["submission"]): int(row["rank"]) if row["rank"] else None for row in rows} == api
