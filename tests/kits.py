"""Held-out files written beside an unpacked kit, for the fuel meter's proof and its benchmark:
the site never gives them out, so the test (or the benchmark) copies them in."""

from __future__ import annotations

from pathlib import Path

from catalog.models import CaseVersion


def held_out_files(version: CaseVersion, kit: Path) -> tuple[list[str], list[str], list[str]]:
    """The version's held-out inputs and answers written beside the kit: (inputs, expected, runways)."""
    inputs, expected, runways = [], [], []
    for row in version.held_out_inputs.order_by("position"):
        for rel, content in ((row.input_path, row.input_bytes), (row.expected_path, row.expected_bytes)):
            (kit / "held-out" / rel).parent.mkdir(parents=True, exist_ok=True)
            (kit / "held-out" / rel).write_bytes(bytes(content))
        inputs.append(f"held-out/{row.input_path}")
        expected.append(f"held-out/{row.expected_path}")
        runways.append(row.input_path)  # each input under its own runway, by its name
    return inputs, expected, runways
