"""Run every benchmark and print one table; with --update-readme, also write it into README.md.

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


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def table(scoring: dict, imports: dict, pages: dict, seconds: float) -> str:
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
         f"{parallel['speedup']:.2f}× {'(identical fuel)' if parallel['identical_fuel'] else '(FUEL DIFFERS)'}", "≥ 1.7×",
         verdict(parallel["speedup"] >= 1.7 and parallel["identical_fuel"])),
        ("Compile cache, the same module scored twice",
         f"first {cache['first_s']:.3f} s ({cache['compiles']} compile)",
         f"second {cache['second_s'] * 1000:.1f} ms, new process {cache['from_disk_s'] * 1000:.1f} ms ({cache['compiles_fresh_process']} compiles)",
         "—", "no second compile", verdict(cache["compiles"] == 1 and cache["compiles_fresh_process"] == 0)),
        ("Hostile answer judged: valid items until the last, lattice's output schema",
         f"40 MB, cap lifted: stopped after {hostile['forty_mb']['seconds']:.2f} s",
         f"at the {hostile['cap_bytes']:,}-byte cap: judged in {hostile['at_cap']['seconds']:.2f} s",
         "—", f"both within the {hostile['guard_s']:g} s guard",
         verdict(hostile["at_cap"]["seconds"] <= hostile["guard_s"] and hostile["forty_mb"]["seconds"] <= hostile["guard_s"] + 1
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
    lines = ["| benchmark | baseline | ours | ratio | target | |", "|---|---|---|---:|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines.append("")
    lines.append(f"Measured by `make bench` on {platform.machine()}, {os.cpu_count()} cores, Python "
                 f"{platform.python_version()}, {time.strftime('%Y-%m-%d')}; the run took {seconds:.0f} s.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--update-readme", action="store_true")
    args = parser.parse_args()
    started = time.monotonic()
    print("scoring benchmarks…", flush=True)
    scoring = run("scoring.py")
    print("import scale…", flush=True)
    imports = run("import_scale.py")
    print("page throughput…", flush=True)
    pages = run("pages.py")
    text = table(scoring, imports, pages, time.monotonic() - started)
    print(text)
    if args.update_readme:
        readme = ROOT / "README.md"
        content = readme.read_text()
        updated = re.sub(f"{re.escape(START)}.*?{re.escape(END)}", f"{START}\n{text}\n{END}", content, flags=re.DOTALL)
        readme.write_text(updated)
        print("README.md updated")


if __name__ == "__main__":
    main()
