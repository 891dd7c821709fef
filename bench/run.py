"""Run every benchmark and print one table; with --update-docs, also write it into docs/benchmarks.md.

    make bench        # the same, from a fresh set-up
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
START, END = "<!-- bench:start -->", "<!-- bench:end -->"


def run(script: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, str(HERE / script), "--json", *args], cwd=HERE, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_on_postgres(script: str, *args: str) -> dict:
    """The script against a throwaway PostgreSQL server (scripts/with-postgres.sh)."""
    done = subprocess.run(["scripts/with-postgres.sh", sys.executable, str(HERE / script), "--json", "--postgres",
                           *args],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


PAGE_LABELS = {"leaderboard": "leaderboard", "leaderboard_api": "its API", "case_page": "case page",
               "all_page_3": "?all=1&page=3"}


def standings_rows(result: dict) -> list[tuple]:
    pages, database = result["pages"], result["database"]
    label = "SQLite" if database == "sqlite" else "PostgreSQL"
    worst = max(pages[name]["ratio"] for name in PAGE_LABELS)
    rows = [
        (f"Growth, {result['small']:,} → {result['large']:,} submissions on one version, page cache off ({label})",
         f"{result['small']:,}: " + ", ".join(f"{PAGE_LABELS[name]} {pages[name]['small_ms']:.1f} ms" for name in
         PAGE_LABELS),
         f"{result['large']:,}: " + ", ".join(f"{pages[name]['large_ms']:.1f} ms" for name in PAGE_LABELS),
         ", ".join(f"{pages[name]['ratio']:.2f}" for name in PAGE_LABELS), "each ≤ 2", verdict(worst <= 2)),
        (f"Case list (a tag and a difficulty), 1,000 → 10,000 cases, page cache off ({label})",
         f"{pages['case_list']['small_ms']:.1f} ms", f"{pages['case_list']['large_ms']:.1f} ms",
         f"{pages['case_list']['ratio']:.2f}", "≤ 2", verdict(pages["case_list"]["ratio"] <= 2)),
    ]
    writes = result.get("under_writes")
    if writes:
        other, same = writes["other_versions"], writes["same_version"]
        rows.append((f"Leaderboard under 20 scores/s on other versions (gunicorn + wrk, {label})",
                     f"trivial view {other['trivial_rps']:,.0f} req/s",
                     f"leaderboard {other['leaderboard_rps']:,.0f} req/s",
                     f"{other['ratio']:.2f}", "≥ 0.5", verdict(other["ratio"] >= 0.5)))
        rows.append((f"…with the 20 scores/s on the same version ({label})",
                     f"trivial view {same['trivial_rps']:,.0f} req/s",
                     f"leaderboard {same['leaderboard_rps']:,.0f} req/s",
                     f"{same['ratio']:.2f}", "(for comparison)", "—"))
    return rows


def catalog_standings_rows(result: dict) -> list[tuple]:
    label = "SQLite" if result["database"] == "sqlite" else "PostgreSQL"
    rows = [(f"Standings refresh, {result['cases']:,} cases × {result['submitters']:,} submitters ({label})",
             f"{result['cases'] * result['submitters']:,} best entries", f"recomputed in {result['refresh_s']:.1f} s",
             "—", "(a background job)", "—")]
    writes = result.get("under_writes")
    if writes:
        rows.append((f"Standings page under 20 scores/s, refreshed every {result['refresh_interval_s']} s by a worker "
                     f"(gunicorn + wrk, {label})",
                     f"trivial view {writes['trivial_rps']:,.0f} req/s",
                     f"/standings/ {writes['standings_rps']:,.0f} req/s "
                     f"(page {writes['age_s']:.0f} s old)" if writes["age_s"] is not None else "",
                     f"{writes['ratio']:.2f}", "≥ 0.5", verdict(writes["ratio"] >= 0.5)))
    return rows


AGENT_PAGES = {"page": "/agents/", "api": "its API", "by_cost": "?sort=cost", "one_harness": "?harness="}


def agents_rows(result: dict) -> list[tuple]:
    label = "SQLite" if result["database"] == "sqlite" else "PostgreSQL"
    pages, small, full, large = result["pages"], result["small"], result["full"], result["large"]
    worst = max(page["ratio"] for page in pages.values())
    refresh = result["refreshes"][str(large)]
    return [
        (f"Agents matrix, {full:,} (a full page) → {large:,} agents × {result['cases']:,} cases, page cache off "
         f"({label})",
         f"{full:,}: " + ", ".join(f"{AGENT_PAGES[name]} {pages[name]['full_ms']:.1f} ms" for name in AGENT_PAGES)
         + f" ({small:,} agents: " + ", ".join(f"{pages[name]['small_ms']:.1f}" for name in AGENT_PAGES) + " ms)",
         f"{large:,}: " + ", ".join(f"{pages[name]['large_ms']:.1f} ms" for name in AGENT_PAGES),
         ", ".join(f"{pages[name]['ratio']:.2f}" for name in AGENT_PAGES)
         + f" (from {small:,}, five times fewer rows shown: "
         + ", ".join(f"{pages[name]['ratio_from_small']:.2f}" for name in AGENT_PAGES) + ")",
         "each ≤ 2", verdict(worst <= 2)),
        (f"Agents matrix refresh, {large:,} agents × {result['cases']:,} cases ({label})",
         f"{large * result['cases']:,} trials", f"recomputed in {refresh['refresh_s']:.1f} s", "—",
         "(a background job)", "—"),
    ]


def slow_client_rows(result: dict) -> list[tuple]:
    front, slow, alone = result["nginx"], result["nginx_200_slow"], result["gunicorn_10_slow"]
    return [
        ("Case list with 200 slow clients holding connections (nginx in front of gunicorn, wrk)",
         f"no slow clients {front['rps']:,.0f} req/s", f"200 slow clients {slow['rps']:,.0f} req/s",
         f"{slow['rps'] / front['rps']:.2f}", "≥ 0.5", verdict(slow["rps"] / front["rps"] >= 0.5)),
        ("…gunicorn alone, facing 10 slow clients", "(for comparison)",
         f"{alone['rps']:,.0f} req/s, {alone['timeouts']:,} timeouts", "—", "(why the front is there)", "—"),
    ]


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def handlebars_differential(examples: int) -> dict:
    """The differential test of lib/templates/ against Handlebars.js, with more examples."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_handlebars.py",
                           "-k", "random_templates"], cwd=ROOT, env={**os.environ,
                                                                     "HANDLEBARS_EXAMPLES": str(examples)},
                          capture_output=True, text=True)
    return {"examples": examples, "identical": done.returncode == 0, "seconds": time.monotonic() - started}


def batch_rows(result: dict) -> list[tuple]:
    return [(f"Batch scoring, a sweep of {result['lines']} runs from the command line (SQLite)",
             f"one `score` process per run {result['separate_s']:.1f} s ({result['separate_per_s']:.2f} runs/s)",
             f"`score_many --jobs {result['jobs']}` {result['batch_s']:.1f} s ({result['batch_per_s']:.2f} runs/s); "
             f"re-run, all skipped, {result['rerun_s']:.1f} s",
             f"{result['speedup']:.1f}×", "> 1× (same entries)", verdict(result["speedup"] > 1))]


def upload_rows(result: dict) -> list[tuple]:
    return [(f"Entries over HTTP: {result['lines']} prebuilt modules uploaded through nginx by 2 clients, scored by "
             f"{result['jobs']} workers (SQLite)",
             f"`score_many --jobs {result['jobs']}` {result['batch_s']:.1f} s ({result['batch_per_s']:.2f} entries/s)",
             f"upload to final {result['http_s']:.1f} s ({result['http_per_s']:.2f} entries/s)",
             f"{result['ratio']:.2f}", "≥ 0.5 (same entries)", verdict(result["ratio"] >= 0.5))]


def worker_host_rows(result: dict) -> list[tuple]:
    return [(f"A build-dominated sweep: {result['entries']} entries over HTTP, each build {result['build_cpu_s']:g} "
             f"processor-seconds in its cgroup (one processor each), one worker per host (PostgreSQL, "
             f"{result['cores']} cores)",
             f"one host (`make serve`) {result['one_host_s']:.1f} s ({result['one_per_min']:.1f} entries/min)",
             f"two hosts (+ `scripts/worker.sh`) {result['two_hosts_s']:.1f} s ({result['two_per_min']:.1f} "
             f"entries/min)",
             f"{result['ratio']:.2f}×", "> 1× (a second host adds workers)", verdict(result["ratio"] > 1))]


def schema_row(result: dict) -> tuple:
    return (f"Held-out inputs checked against their schema: the bundled catalog's {result['documents']} inputs, "
            f"{result['bytes'] / 1e6:.1f} MB",
            f"jsonschema's validator: {result['generic_s']:.2f} s",
            f"ours: {result['quick_s']:.2f} s (the same findings)",
            f"{result['ratio']:.3f}", "≤ 0.5", verdict(result["ratio"] <= 0.5))


def table(scoring: dict, imports: dict, pages: dict, boards: list[dict], catalogs: list[dict], slow: dict,
          handlebars: dict, seconds: float, batch: dict | None = None, uploads: dict | None = None,
          agents: list[dict] = (), hosts: dict | None = None, checked: dict | None = None,
          metered: dict | None = None, schemas: dict | None = None) -> str:
    execution, tiny = scoring["overhead_execution"], scoring["overhead_tiny"]
    parallel, cache, hostile = scoring["parallel"], scoring["compile_cache"], scoring["hostile_answer"]
    cached, uncached = pages["cached"], pages["uncached"]
    rows = [
        ("Scoring overhead, execution-dominated (40 inputs × 20M loop iterations)",
         f"bare loop {execution['bare_s']:.3f} s", f"our scorer {execution['ours_s']:.3f} s",
         f"{execution['ratio']:.3f}", "≤ 1.10", verdict(execution["ratio"] <= 1.10)),
        ("Scoring overhead per input, tiny inputs (3,000)",
         f"bare loop {tiny['per_input_bare_us']:.0f} µs", f"our scorer {tiny['per_input_ours_us']:.0f} µs",
         f"{tiny['ratio']:.2f}", "≤ 2", verdict(tiny["ratio"] <= 2)),
        (f"Parallel scoring, 16 stress inputs ({parallel['cores']} cores)",
         f"serial {parallel['serial_s']:.2f} s", f"parallel {parallel['parallel_s']:.2f} s",
         f"{parallel['speedup']:.2f}× {'(identical fuel)' if parallel['identical_fuel'] else '(FUEL DIFFERS)'}",
         "≥ 1.7×", verdict(parallel["speedup"] >= 1.7 and parallel["identical_fuel"])),
        ("Compile cache, the same module scored twice",
         f"first {cache['first_s']:.3f} s ({cache['compiles']} compile)",
         f"second {cache['second_s'] * 1000:.1f} ms, new process {cache['from_disk_s'] * 1000:.1f} ms "
         f"({cache['compiles_fresh_process']} compiles)",
         "—", "no second compile", verdict(cache["compiles"] == 1 and cache["compiles_fresh_process"] == 0)),
        ("Hostile answer judged: valid items until the last, lattice's output schema",
         f"40 MB, cap lifted: stopped after {hostile['forty_mb']['seconds']:.2f} s",
         f"at the {hostile['cap_bytes']:,}-byte cap: judged in {hostile['at_cap']['seconds']:.2f} s",
         "—", f"both within the {hostile['guard_s']:g} s guard",
         verdict(hostile["at_cap"]["seconds"] <= hostile["guard_s"] and hostile["forty_mb"]["seconds"] <=
         hostile["guard_s"] + 1
                 and hostile["forty_mb"]["status"] == "invalid_output")),
        (f"Import scale, {imports['versions']:,} versions",
         f"first import {imports['first_import_s']:.2f} s", f"re-import {imports['reimport_s']:.2f} s",
         f"{imports['ratio']:.3f}", "≤ 0.10", verdict(imports["ratio"] <= 0.10)),
        ("Case list, 1,000 cases (gunicorn + wrk)",
         f"trivial view {cached['trivial_rps']:,.0f} req/s", f"case list {cached['case_list_rps']:,.0f} req/s",
         f"{cached['case_list_ratio']:.2f}", "≥ 0.5", verdict(cached["case_list_ratio"] >= 0.5)),
        ("Leaderboard, 10,000 submissions (gunicorn + wrk)",
         f"trivial view {cached['trivial_rps']:,.0f} req/s", f"leaderboard {cached['leaderboard_rps']:,.0f} req/s",
         f"{cached['leaderboard_ratio']:.2f}", "≥ 0.5", verdict(cached["leaderboard_ratio"] >= 0.5)),
        ("…the same two pages with the page cache off",
         f"trivial view {uncached['trivial_rps']:,.0f} req/s",
         f"list {uncached['case_list_rps']:,.0f}, leaderboard {uncached['leaderboard_rps']:,.0f} req/s",
         f"{uncached['case_list_ratio']:.2f}, {uncached['leaderboard_ratio']:.2f}", "(for comparison)", "—"),
    ]
    for board in boards:
        rows += standings_rows(board)
    for catalog in catalogs:
        rows += catalog_standings_rows(catalog)
    for matrix in agents:
        rows += agents_rows(matrix)
    rows += slow_client_rows(slow)
    if batch:
        rows += batch_rows(batch)
    if uploads:
        rows += upload_rows(uploads)
    if hosts:
        rows += worker_host_rows(hosts)
    if checked:
        rows.append((f"check_case on the bundled catalog: {checked['versions']} versions, {checked['runs']} solution "
                     f"runs",
                     f"score, each solution on each version: {checked['score_s']:.1f} s",
                     f"check_case: {checked['check_case_s']:.1f} s ({checked['errors']} errors)",
                     f"{checked['ratio']:.2f}", "≤ 2.5", verdict(checked["ratio"] <= 2.5)))
    if metered:
        rows.append((f"Fuel meter from a kit, {metered['version']}: {metered['modules']} examples × "
                     f"{metered['inputs']} "
                     "held-out inputs, as commands",
                     f"`manage.py score --wasm`: {metered['score_per_input_s'] * 1000:.0f} ms per input",
                     f"`python3 meter`: {metered['meter_per_input_s'] * 1000:.0f} ms per input (the same figures)",
                     f"{metered['ratio']:.2f}", "≤ 1.1", verdict(metered["ratio"] <= 1.1)))
    if schemas:
        rows.append(schema_row(schemas))
    rows.append((f"Templates against Handlebars.js, {handlebars['examples']:,} random templates and contexts",
                 "Handlebars.js 4.7.8 (Node.js)", "lib/templates/",
                 "identical" if handlebars["identical"] else "**differ**", "identical",
                 verdict(handlebars["identical"])))
    lines = ["| benchmark | baseline | ours | ratio | target | |", "|---|---|---|---:|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines.append("")
    lines.append(f"Measured by `make bench` on {platform.machine()}, {os.cpu_count()} cores, Python "
                 f"{platform.python_version()}, {time.strftime('%Y-%m-%d')}; the run took {seconds:.0f} s.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--update-docs", action="store_true", help="write the table into docs/benchmarks.md")
    args = parser.parse_args()
    started = time.monotonic()
    print("scoring benchmarks…", flush=True)
    scoring = run("scoring.py")
    print("import scale…", flush=True)
    imports = run("import_scale.py")
    print("page throughput…", flush=True)
    pages = run("pages.py")
    print("Handlebars differential, 20,000 random templates…", flush=True)
    handlebars = handlebars_differential(20_000)
    print("results at scale (SQLite, then PostgreSQL)…", flush=True)
    boards = [run("standings.py"), run_on_postgres("standings.py")]
    print("catalog-wide standings (SQLite, then PostgreSQL)…", flush=True)
    # Refreshed every 5 s (several refreshes during the measurement), and at the default interval.
    catalogs = [run("catalog_standings.py"), run_on_postgres("catalog_standings.py"),
                run_on_postgres("catalog_standings.py", "--refresh-seconds", "60")]
    print("agents matrix (SQLite, then PostgreSQL)…", flush=True)
    agents = [run("agents.py"), run_on_postgres("agents.py")]
    print("slow clients…", flush=True)
    slow = run("slow_clients.py")
    print("batch scoring…", flush=True)
    batch = run("score_many.py")
    print("entries over HTTP…", flush=True)
    uploads = run("uploads.py")
    print("worker hosts (PostgreSQL)…", flush=True)
    hosts = run_on_postgres("worker_hosts.py")
    print("check_case on the bundled catalog…", flush=True)
    checked = run("check_case.py")
    print("the fuel meter against the scorer…", flush=True)
    metered = run("meter.py")
    print("held-out inputs against their schemas…", flush=True)
    schemas = run("schemas.py")
    text = table(scoring, imports, pages, boards, catalogs, slow, handlebars, time.monotonic() - started, batch,
                 uploads, agents, hosts, checked, metered, schemas)
    print(text)
    if args.update_docs:
        page = ROOT / "docs" / "benchmarks.md"
        content = page.read_text()
        updated = re.sub(f"{re.escape(START)}.*?{re.escape(END)}", f"{START}\n{text}\n{END}", content, flags=re.DOTALL)
        page.write_text(updated)
        print("docs/benchmarks.md updated")


if __name__ == "__main__":
    main()
