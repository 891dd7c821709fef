"""Take-part kits, the case page's rules and limits, and the methodology page."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from catalog.importer import file_limits, import_scan
from catalog.metering import ENGINE_FILES
from catalog.models import CaseVersion, HeldOutInput, Kit
from catalog.seeding import seed_run
from engine.sandbox import WASMTIME_VERSION
from tests.bundled import whole_catalog_scan

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def members(content: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def test_a_kit_is_the_run_root_plus_a_readme_and_the_meter(client, adder_v1, tmp_path):
    response = client.get("/cases/adder/v1/kit/long-lists.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == 'attachment; filename="adder-v1-long-lists.zip"'
    files = members(response.content)
    seeded = seed_run(adder_v1, adder_v1.variants.get(slug="long-lists"), tmp_path / "run")
    meter = {"meter/__main__.py", "meter/contract.json", "meter/requirements.txt",
             *(f"meter/{path}" for path in ENGINE_FILES)}
    assert set(files) == {"README.md", *(f"run/{path}" for path in seeded.files), *meter}
    # The engine's own files, unchanged; the contract is the version's, with the site's limits.
    for path in ENGINE_FILES:
        assert files[f"meter/{path}"] == (ROOT / path).read_bytes(), path
    assert files["meter/__main__.py"] == (ROOT / "engine/meter/kit_main.py").read_bytes()
    contract = json.loads(files["meter/contract.json"])
    assert (contract["case"], contract["entry"], contract["fuel_limit"]) == ("adder", "solve", adder_v1.fuel_limit)
    assert contract["output_schema"].encode() == adder_v1.file_bytes(adder_v1.contract_output)
    assert [(runway["input"], runway["ceiling"]) for runway in contract["runways"]] == list(
        adder_v1.held_out_inputs.order_by("position").values_list("input_path", "ceiling"))
    pins = files["meter/requirements.txt"].decode().split()
    assert f"wasmtime=={WASMTIME_VERSION}" in pins and not any(pin.lower().startswith("django") for pin in pins)
    assert {pin for pin in pins if "==" in pin} <= set((ROOT / "requirements.txt").read_text().split())
    for path in seeded.files:
        assert files[f"run/{path}"] == (seeded.root / path).read_bytes(), path
    readme = files["README.md"].decode()
    assert "variant `long-lists`" in readme and "`solve(ptr: i32, len: i32) -> i64`" in readme
    assert f"{adder_v1.fuel_limit} fuel per input" in readme
    for row in adder_v1.held_out_inputs.all():
        assert f"| {row.kind} | `{row.input_path}` | {row.fuel_runway} | {row.ceiling} |" in readme
    # How an entry reaches the site: over HTTP, with a token, to the site's own address.
    assert "-F case=adder -F version=v1" in readme and "http://127.0.0.1:8000/api/v1/submissions/" in readme
    assert "**The count you get at home is the count the site will\nstore.**" in readme


def test_every_download_is_the_same_bytes_with_a_strong_etag(client, adder_v1):
    first = client.get("/cases/adder/v1/kit/base.zip")
    again = client.get("/cases/adder/v1/kit/base.zip")
    assert first.content == again.content and first["ETag"] == again["ETag"]
    assert first["ETag"].startswith('"') and not first["ETag"].startswith("W/")
    assert client.get("/cases/adder/v1/kit/base.zip", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    Kit.objects.all().delete()  # built again from scratch: still the same bytes
    assert client.get("/cases/adder/v1/kit/base.zip").content == first.content
    with zipfile.ZipFile(io.BytesIO(first.content)) as archive:
        assert [info.filename for info in archive.infolist()] == sorted(info.filename for info in archive.infolist())
        assert {info.date_time for info in archive.infolist()} == {(2000, 1, 1, 0, 0, 0)}


def test_a_change_of_the_sites_limits_builds_a_new_kit(client, adder_v1, settings):
    before = client.get("/cases/adder/v1/kit/base.zip")
    settings.SCORING_WALL_SECONDS = 7.5
    after = client.get("/cases/adder/v1/kit/base.zip")
    assert after["ETag"] != before["ETag"] and "guard of 7.5 seconds" in members(after.content)["README.md"].decode()
    assert Kit.objects.count() == 1


def test_no_kit_holds_a_held_out_byte(client, db):
    # Every bundled case, validated once for the run and imported into this empty database.
    assert import_scan(whole_catalog_scan(limits=file_limits())).ok
    held_out = {bytes(content) for row in HeldOutInput.objects.all() for content in (row.input_bytes,
                                                                                     row.expected_bytes)}
    checked = 0
    for version in CaseVersion.objects.select_related("case"):
        if version.experimental:
            continue
        for variant in version.variants.all():
            response = client.get(f"/cases/{version.case.slug}/{version.version}/kit/{variant.slug}.zip")
            assert response.status_code == 200
            for name, content in members(response.content).items():
                assert content not in held_out, (version, variant.slug, name)
                checked += 1
    assert checked > 20


def test_unknown_or_hidden_kits_are_404(client, imported, settings):
    assert client.get("/cases/adder/v1/kit/nope.zip").status_code == 404
    assert client.get("/cases/adder/v9/kit/base.zip").status_code == 404
    assert client.get("/cases/counter/1.0/kit/base.zip").status_code == 404  # experimental
    settings.CATALOG_SHOW_EXPERIMENTAL = True
    assert client.get("/cases/counter/1.0/kit/base.zip").status_code == 200


def test_the_case_page_says_what_a_solver_needs(client, adder_v1, settings):
    settings.SCORING_WALL_SECONDS = 12.5
    page = client.get("/cases/adder/v1/").content.decode()
    assert 'href="/cases/adder/v1/kit/base.zip"' in page and 'href="/cases/adder/v1/kit/long-lists.zip"' in page
    assert "<code>solve</code>" in page and "(i32 ptr, i32 len) → i64" in page
    assert "12.5 s per input" in page
    schema = adder_v1.file_bytes(adder_v1.contract_output).decode()
    assert f"<code>{adder_v1.contract_output}</code>" in page and '&quot;type&quot;' in page and "properties" in schema
    for row in adder_v1.held_out_inputs.all():
        assert f"{row.ceiling:,}" in page
    assert f'datetime="{adder_v1.imported_at.isoformat()}"' in page or adder_v1.imported_at.strftime("%Y-%m-%d") in page


def test_the_case_list_shows_entries_and_when_a_case_changed(client, adder_v1, correct_wasm):
    from scoring.attempts import score
    from scoring.recording import submit

    latest = CaseVersion.objects.get(case__slug="adder", version="v10")
    for name in ("ada", "bob"):
        score(submit(latest, latest.default_variant(), name, wasm_file=correct_wasm))
    page = client.get("/cases/").content.decode()
    assert "2 entries" in page and latest.imported_at.strftime("%Y-%m-%d") in page
    assert client.get("/api/v1/cases/").json()["results"][0]["entries"] == 2


def test_a_failed_submission_is_never_green_and_says_the_same_everywhere(client, adder_v1, tmp_path, settings):
    import re

    from scoring.attempts import score
    from scoring.recording import submit

    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "Cargo.toml").write_text("not toml [")
    failed = score(submit(adder_v1, adder_v1.default_variant(), "broken", folder=folder))
    assert failed.status == "build_failed"
    css = (ROOT / "static/css/site.css").read_text()
    green = {name for rule in re.findall(r"([^{}]+)\{[^}]*var\(--ok\)[^}]*\}",
                                         css) for name in re.findall(r"\.status-(\w+)", rule)}
    assert green == {"passed"}  # only a pass is green: "done" and "scored" say where a job stands
    page = client.get(f"/submissions/{failed.pk}/").content.decode()
    assert "status-passed" not in page and 'status-build_failed">build failed' in page
    preview = client.get("/cases/adder/v1/").content.decode()
    board = client.get("/cases/adder/leaderboard/", {"version": "v1"}).content.decode()
    for html in (preview, board):
        assert 'status-build_failed">build failed' in html and "0/3" not in html


def test_a_kit_member_equal_to_a_held_out_file_is_refused_at_the_last_step(client, adder_v1):
    from catalog.kits import HeldOutInKit
    from catalog.models import VersionFile

    held = adder_v1.held_out_inputs.get(input_path="cases/large.json")
    VersionFile.objects.filter(version=adder_v1, path="specs/rules.md").update(content=bytes(held.input_bytes))
    with pytest.raises(HeldOutInKit, match="run/specs/rules.md"):
        client.get("/cases/adder/v1/kit/base.zip")
    assert not Kit.objects.exists()


def test_a_kit_member_whose_name_holds_a_backslash_is_refused_at_the_last_step(client, adder_v1):
    """Validation refuses such names now; a version imported before it did gets no kit."""
    from catalog.models import VersionFile

    member = VersionFile.objects.filter(version=adder_v1, path__startswith="workspaces/base/").first()
    VersionFile.objects.filter(pk=member.pk).update(path="workspaces/base/..\\..\\..\\evil.bat")
    assert client.get("/cases/adder/v1/kit/base.zip").status_code == 404
    assert not Kit.objects.exists()
