"""Checking held-out inputs against their schema: the generic validator against ours.

Every held-out input of the bundled catalog (the documents an import checks; an answer is
checked the same way when it is judged), each checked REPEAT times by jsonschema's own
validator for the schema's dialect and by lib/schemas.py's (the quick path for long arrays of
plain values, the generic check wherever an item fails). Both must find the same thing in every
document. Prints JSON: the documents, their bytes, the median time of each over all of them,
and the ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jsonschema import validators  # noqa: E402

from lib.schemas import first_violation, load_validator  # noqa: E402
from lib.strictjson import loads_strict  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def documents(case: str) -> list[tuple[bytes, Path]]:
    """(the input schema's bytes, a held-out input) for every bundled version (of one case), as its
    manifest names them."""
    found = []
    for manifest in sorted((ROOT / "test-cases").glob(f"*/*/{case}/*/test-case.toml")):
        declared = tomllib.loads(manifest.read_text())
        schema = (manifest.parent / declared["contract"]["input"]).read_bytes()
        found += [(schema, manifest.parent / case["input"]) for case in declared["case"]]
    return found


def timed(check, items: list) -> float:
    started = time.perf_counter()
    for validator, document in items:
        check(validator, document)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--case", default="*", help="only this case's inputs (a slug)")
    parser.add_argument("--json", action="store_true", help="(the output is JSON either way)")
    args = parser.parse_args()
    pairs = documents(args.case)
    generic, quick, size = [], [], 0
    for schema, path in pairs:
        document = loads_strict(path.read_bytes())
        size += path.stat().st_size
        parsed = loads_strict(schema)
        generic.append((validators.validator_for(parsed, default=validators.Draft202012Validator)(parsed), document))
        quick.append((load_validator(schema), document))
    for (slow, document), (ours, _) in zip(generic, quick):
        if first_violation(slow, document) != first_violation(ours, document):
            sys.exit("the two validators disagree on a bundled input")
    generic_s = statistics.median(timed(first_violation, generic) for _ in range(args.repeat))
    quick_s = statistics.median(timed(first_violation, quick) for _ in range(args.repeat))
    print(json.dumps({"documents": len(pairs), "bytes": size, "generic_s": round(generic_s, 4),
                      "quick_s": round(quick_s, 4), "ratio": round(quick_s / generic_s, 4)}))


if __name__ == "__main__":
    main()
