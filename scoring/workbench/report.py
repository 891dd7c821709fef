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


def as_document(checks: list[VersionCheck], problems: list[dict]) -> dict:
    """`{"versions": [{"case", "version", "folder", "solutions": [...], "errors", "warnings",
    "suggested_fuel_limit", "fuel_limit", "ceilings"}]}`; `problems`: versions that did not validate."""
    return {"versions": [*({
        "case": check.version.slug, "version": check.version.version, "folder": str(check.version.path),
        "solutions": [{"name": run.solution.name, "expected": run.solution.expected, "verdict": run.verdict,
                       "decided_by": run.decided_by,
                       "results": [{"input": path, "status": status, "fuel": fuel} for path, status,
                                   fuel in run.results]}
                      for run in check.runs],
        "errors": check.errors, "warnings": check.warnings, "fuel_limit": check.version.fuel_limit,
        "suggested_fuel_limit": check.suggested_fuel_limit, "ceilings": check.ceilings,
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
        verdicts = [(run.verdict + (" ✓" if run.verdict == run.solution.expected else " ✗")).ljust(size)
                    for run, size in zip(check.runs, columns)]
        lines.append("  " + "verdict".ljust(width) + "".join(verdicts))
    lines.extend(f"  error: {error}" for error in check.errors)
    lines.extend(f"  warning: {warning}" for warning in check.warnings)
    if check.suggested_fuel_limit is not None:
        lines.append(f"  fuel limit: {version.fuel_limit:,}; suggested {check.suggested_fuel_limit:,} (the slowest "
                     "accepted solution's fuel on an input × 2, two significant figures)")
    for row in check.ceilings:
        slowest = f"{row['slowest_fuel']:,}" if row["slowest_fuel"] is not None else "no correct answer"
        lines.append(f"  {row['input']}: runway {row['runway']:g}× gives a ceiling of {row['ceiling']:,}; the "
                     f"slowest solution used {slowest}")
    return lines
