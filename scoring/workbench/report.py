"""What `check_case` prints: per version, the solutions × inputs table, the errors, the warnings
and the calibration; or one JSON document (`--json`) for an author's CI."""

from __future__ import annotations

from scoring.workbench.checking import VersionCheck


def compact(value: int | None) -> str:
    """12345678 → 12.3M (a table cell)."""
    if value is None:
        return "—"
    for size, suffix in ((10**12, "T"), (10**9, "G"), (10**6, "M"), (10**3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}"
    return str(value)


def compact_bytes(value: int) -> str:
    """1,310,720 → 1.25 MiB (a table cell)."""
    for size, suffix in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if value >= size:
            return f"{value / size:.3g} {suffix}"
    return f"{value} B"


def as_document(checks: list[VersionCheck], problems: list[dict]) -> dict:
    """`{"versions": [{"case", "version", "folder", "solutions": [...], "errors", "warnings", "notes",
    "fuel_limit", "suggested_fuel_limit", "suggested_from_runway", "max_memory_bytes", "peak_memory",
    "suggested_max_memory_bytes", "ceilings"}]}`; `problems`: versions that did not validate."""
    return {"versions": [*({
        "case": check.version.slug, "version": check.version.version, "folder": str(check.version.path),
        "solutions": [{"name": run.solution.name, "expected": run.solution.expected, "verdict": run.verdict,
                       "decided_by": run.decided_by, "reason": run.reason,
                       "results": [{"input": path, "status": status, "fuel": fuel, "memory": memory}
                                   for (path, status, fuel), memory in zip(run.results, run.memory)]}
                      for run in check.runs],
        "errors": check.errors, "warnings": check.warnings, "notes": check.notes,
        "fuel_limit": check.version.fuel_limit, "suggested_fuel_limit": check.suggested_fuel_limit,
        "suggested_from_runway": check.suggested_from_runway, "max_memory_bytes": check.version.max_memory_bytes,
        "peak_memory": check.peak_memory, "suggested_max_memory_bytes": check.suggested_max_memory_bytes,
        "ceilings": check.ceilings,
    } for check in checks), *problems]}


def as_text(check: VersionCheck) -> list[str]:
    """The version's report, as lines."""
    version = check.version
    lines = [f"{version.label} ({version.path})"]
    if check.runs:
        width = max(24, *(len(f"{case.input} ({case.kind})") + 2 for case in version.source.manifest.cases))
        columns = [max(18, len(run.solution.name) + 2) for run in check.runs]
        lines.append("  " + "input".ljust(width) + "".join(run.solution.name.ljust(size)
                                                         for run, size in zip(check.runs, columns)))
        for index, case in enumerate(version.source.manifest.cases):
            cells = []
            for run, size in zip(check.runs, columns):
                results = run.results
                cell = f"{results[index][1]} {compact(results[index][2])}" if results else "—"
                cells.append(cell.ljust(size))
            lines.append("  " + f"{case.input} ({case.kind})".ljust(width) + "".join(cells))
        peaks = [max((memory for memory in run.memory if memory), default=None) for run in check.runs]
        lines.append("  " + "peak memory".ljust(width) + "".join(
            (f"{compact_bytes(peak)}" if peak else "—").ljust(size) for peak, size in zip(peaks, columns)))
        verdicts = [(run.verdict + (" ✓" if run.verdict == run.solution.expected else " ✗")).ljust(size)
                    for run, size in zip(check.runs, columns)]
        lines.append("  " + "verdict".ljust(width) + "".join(verdicts))
        lines.extend(f"  {run.solution.name}: {run.verdict} on {run.decided_by}: {run.reason}" for run in check.runs
                     if run.verdict in ("trapped", "timeout", "invalid_output") and run.reason)
    lines.extend(f"  error: {error}" for error in check.errors)
    lines.extend(f"  warning: {warning}" for warning in check.warnings)
    lines.extend(f"  note: {note}" for note in check.notes)
    if check.suggested_fuel_limit is not None:
        how = ("the slowest accepted solution's fuel on an input × 2, two significant figures"
               if check.suggested_from_runway is None else
               f"no solution passed: measured with a runway of {check.suggested_from_runway:,}×, the slowest solution "
               "filed as accepted's fuel on an input × 2")
        lines.append(f"  fuel limit: {version.fuel_limit:,}; suggested {check.suggested_fuel_limit:,} ({how})")
    if check.suggested_max_memory_bytes is not None:
        lines.append(f"  memory cap: {version.max_memory_bytes:,} bytes; an accepted solution used at most "
                     f"{check.peak_memory:,}; suggested {check.suggested_max_memory_bytes:,} (twice that, in whole "
                     "MiB)")
    for row in check.ceilings:
        slowest = f"{row['slowest_fuel']:,}" if row["slowest_fuel"] is not None else "no correct answer"
        lines.append(f"  {row['input']}: runway {row['runway']:g}× gives a ceiling of {row['ceiling']:,}; the "
                     f"slowest solution used {slowest}")
    return lines


SLOW_VERDICTS = ("over_limit", "fuel_exhausted", "timeout")


def stress_total(solution: dict) -> int | None:
    """A solution's total fuel over the stress inputs (from the JSON document), when it answered
    every one correctly."""
    stress = [result for result in solution["results"] if result["input"] in solution["stress_inputs"]]
    if not stress or not all(result["status"] in ("passed", "over_limit") and result["fuel"] is not None
                             for result in stress):
        return None
    return sum(result["fuel"] for result in stress)


def as_table(document: dict, manifests: dict, versions: dict[str, list[str]]) -> str:
    """The manual's table of the bundled cases from check_case's document: one row per case's
    latest version (`manifests`: (slug, version) → its manifest; `versions`: slug → its versions,
    in order), with its fastest accepted solution's total stress fuel, its slow solution's (the
    one filed under a slow verdict, else the slowest other accepted one) and its pass line."""
    rows = ["| case | difficulty | tags | versions | fastest accepted | slow solution | fuel limit per input |",
            "|---|---|---|---|---:|---:|---:|"]
    order = {"easy": 0, "medium": 1, "hard": 2}
    latest = [checked for checked in document["versions"] if "case" in checked
              and versions[checked["case"]][-1] == checked["version"]]
    for checked in sorted(latest, key=lambda checked: (order.get(manifests[checked["case"], checked["version"]]
                                                                 .difficulty, 3), checked["case"])):
        manifest = manifests[checked["case"], checked["version"]]
        stress = {case.input for case in manifest.stress_cases}
        solutions = [{**solution, "stress_inputs": stress} for solution in checked["solutions"]]
        accepted = [solution for solution in solutions
                    if solution["verdict"] == "accepted" and stress_total(solution) is not None]
        fastest = min(accepted, key=stress_total, default=None)
        slow = next((solution for solution in solutions if solution["expected"] in SLOW_VERDICTS), None) or max(
            (solution for solution in accepted if solution is not fastest), key=stress_total, default=None)
        if slow is None:
            slow_cell = "—"
        elif stress_total(slow) is not None:
            slow_cell = f"{stress_total(slow):,}"
        else:
            slow_cell = f"— ({slow['verdict']} on `{slow['decided_by']}`)"
        tags = ", ".join(manifest.tags)
        if len(manifest.variants) > 1:
            tags += " (variants " + ", ".join(f"`{variant.slug}`" for variant in manifest.variants) + ")"
        difficulty = manifest.difficulty + (", experimental" if manifest.experimental else "")
        fastest_cell = f"{stress_total(fastest):,}" if fastest else "—"
        rows.append(f"| `{checked['case']}` | {difficulty} | {tags} | {', '.join(versions[checked['case']])} | "
                    f"{fastest_cell} | {slow_cell} | {checked['fuel_limit']:,} |")
    return "\n".join(rows)
