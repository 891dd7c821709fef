"""Rows in bulk for page and query-count tests (real rows in the real test database)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from catalog.models import Case, CaseVersion, HeldOutInput, Tag, Variant
from scoring.models import Result, Submission
from scoring.sandbox import WASMTIME_VERSION


def make_cases(count: int, *, prefix: str = "bulk", tags: tuple[str, ...] = ("bulk", "generated")) -> list[CaseVersion]:
    """`count` cases with one version each, two stress inputs, a base variant and tags."""
    cases = Case.objects.bulk_create(
        Case(slug=f"{prefix}-{index:05d}", folder=f"performance/easy/{prefix}-{index:05d}") for index in range(count)
    )
    versions = CaseVersion.objects.bulk_create(
        CaseVersion(
            case=case, version="v1", ordinal=0, digest="0" * 64, manifest_text="", name=f"Bulk case {index:05d}",
            type="performance", difficulty=("easy", "medium", "hard")[index % 3], tag_names=list(tags),
            summary=f"Generated case number {index}.", changelog="# v1\n", changelog_path="changelog.md",
            prompt_path="prompt.hbs", max_runtime_hours="1", build_command="true", build_module="out.wasm",
            contract_entry="solve", contract_input="in.json", contract_output="out.json", fuel_limit=1_000_000,
            max_memory_bytes=1 << 20, smoke_count=0, stress_count=2,
        )
        for index, case in enumerate(cases)
    )
    Variant.objects.bulk_create(Variant(version=version, position=0, slug="base", name="Base") for version in versions)
    tag_rows = [Tag.objects.get_or_create(name=name)[0] for name in tags]
    CaseVersion.tags.through.objects.bulk_create(
        CaseVersion.tags.through(caseversion_id=version.pk, tag_id=tag.pk) for version in versions for tag in tag_rows
    )
    HeldOutInput.objects.bulk_create(
        HeldOutInput(version=version, position=position, kind="stress", input_path=f"cases/{position}.json",
                     expected_path=f"cases/{position}.out", fuel_runway="1", ceiling=1_000_000,
                     input_bytes=b"{}", expected_bytes=b"{}", input_size=2, expected_size=2)
        for version in versions for position in range(2)
    )
    return versions


def make_submissions(version: CaseVersion, count: int, *, distinct_names: bool = True) -> list[Submission]:
    """`count` scored submissions with stress results: a third passed, a third over, a third failing."""
    variant = version.variants.first()
    now = timezone.now()
    submissions = Submission.objects.bulk_create(
        Submission(
            version=version, variant=variant, name=f"solver-{index:05d}" if distinct_names else f"solver-{index % 7}",
            source_kind="wasm", source=b"", wasmtime_version=WASMTIME_VERSION, status=Submission.State.SCORED,
            passed=index % 3 == 0, total_fuel=None if index % 3 == 2 else 1_000 + (index * 7919) % 100_000,
            overshoot=500 if index % 3 == 1 else 0, passed_count=2 if index % 3 == 0 else index % 2,
            input_count=2, created_at=now - timedelta(seconds=count - index),
        )
        for index in range(count)
    )
    Result.objects.bulk_create(
        Result(submission=submission, position=position, kind="stress", input_path=f"cases/{position}.json",
               status="passed" if submission.passed else "wrong_answer", fuel=100 + position, fuel_limit=1_000_000,
               ceiling=1_000_000)
        for submission in submissions for position in range(2)
    )
    return submissions
