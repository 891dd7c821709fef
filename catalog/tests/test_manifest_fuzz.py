"""Property: whatever a manifest or variant file holds, the validator returns errors, never raises."""

from __future__ import annotations

import json
import math
import shutil
import tempfile
import tomllib
from decimal import Decimal
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from catalog.manifest import ManifestError, scan_catalog
from catalog.tests.broken_manifests import FUZZ_SETTINGS
from catalog.tests.trees import ADDER_V1, VALID_CATALOG

VALID_MANIFEST = tomllib.loads((VALID_CATALOG / ADDER_V1 / "test-case.toml").read_text())


def toml_value(value) -> str:
    """Serialise a value as an inline TOML value (arrays of inline tables are valid TOML)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (float, Decimal)):
        value = float(value)
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(key))} = {toml_value(item)}" for key, item in value.items()) + "}"
    raise TypeError(type(value))


def toml_document(data: dict) -> str:
    return "".join(f"{json.dumps(str(key))} = {toml_value(value)}\n" for key, value in data.items())


scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["../../etc/passwd", "/abs/path", "schemas", "cases/small.json", "x.hbs", "", "performance",
                     "smoke"]),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(min_size=1, max_size=12), children, max_size=4),
    ),
    max_leaves=12,
)
known_keys = sorted(
    set(VALID_MANIFEST)
    | {"simulation", "match", "check", "variants", "experimental", "fuel_runway", "kind", "dest", "source"}
)


@st.composite
def mutated_manifests(draw) -> dict:
    data = json.loads(json.dumps(VALID_MANIFEST, default=float))
    for _ in range(draw(st.integers(min_value=1, max_value=5))):
        operation = draw(st.sampled_from(["replace", "delete", "add", "replace-nested", "delete-nested"]))
        key = draw(st.sampled_from(sorted(data) or ["slug"]))
        if operation == "replace":
            data[key] = draw(values)
        elif operation == "delete":
            data.pop(key, None)
        elif operation == "add":
            data[draw(st.sampled_from(known_keys) | st.text(min_size=1, max_size=10))] = draw(values)
        else:
            container = data.get(key)
            if isinstance(container, list) and container and isinstance(container[0], dict):
                container = container[draw(st.integers(min_value=0, max_value=len(container) - 1))]
            if isinstance(container, dict) and container:
                inner = draw(st.sampled_from(sorted(container)))
                if operation == "replace-nested":
                    container[inner] = draw(values)
                else:
                    del container[inner]
    return data


def _scan_with(manifest_text: str | bytes, variant_text: str | bytes | None = None) -> list[ManifestError]:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        version_dir = root / ADDER_V1
        shutil.copytree(VALID_CATALOG / ADDER_V1, version_dir)
        manifest = version_dir / "test-case.toml"
        (manifest.write_bytes if isinstance(manifest_text, bytes) else manifest.write_text)(manifest_text)
        if variant_text is not None:
            variant = version_dir / "variants" / "long-lists.toml"
            (variant.write_bytes if isinstance(variant_text, bytes) else variant.write_text)(variant_text)
        scan = scan_catalog(root)
    for error in scan.errors:
        assert isinstance(error, ManifestError)
        assert isinstance(error.file, str) and isinstance(error.key, str) and error.message
        assert "Traceback" not in str(error)
    return scan.errors


@FUZZ_SETTINGS
@given(st.text(max_size=400))
def test_arbitrary_text_as_a_manifest_only_yields_errors(text):
    _scan_with(text)


@FUZZ_SETTINGS
@given(st.binary(max_size=200))
def test_arbitrary_bytes_as_a_manifest_only_yields_errors(data):
    assert _scan_with(data)


@FUZZ_SETTINGS
@given(mutated_manifests())
def test_mutated_manifests_only_yield_errors(data):
    _scan_with(toml_document(data))


@FUZZ_SETTINGS
@given(st.dictionaries(st.sampled_from(["slug", "name", "spec", "specs", "x"]), values, max_size=4))
def test_mutated_variant_files_only_yield_errors(data):
    _scan_with((VALID_CATALOG / ADDER_V1 / "test-case.toml").read_text(), toml_document(data))


def test_the_serialiser_round_trips_the_valid_manifest():
    """Guards the property tests above: an unmutated document must still validate."""
    data = json.loads(json.dumps(VALID_MANIFEST, default=str))
    data["max_runtime_hours"] = 0.5
    data["case"][1]["fuel_runway"] = 1.15
    data["domain"][0]["weight"] = 1.5
    assert _scan_with(toml_document(data)) == []
