"""Standings kept in the database: maintained as scores land, equal to a rebuild from scratch."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalog.models import CaseVersion
from engine.tests import wat
from scoring import history
from scoring.attempts import score
from scoring.boards.places import RANKED
from scoring.boards.reading import SUBMISSION_FIELDS, Leaderboard
from scoring.boards.rebuilding import rebuild
from scoring.boards.updates import set_hidden, update_boards
from scoring.jobs import new_attempt
from scoring.models import BoardSummary, RecordStep, Standing, Submission
from scoring.recording import submit
from scoring.references import ReferenceRefused, set_reference
from scoring.tests.helpers import adder_answers
from scoring.tests.oracle import rank, record_progression

pytestmark = pytest.mark.django_db

NAMES = ["ada", "bob", "cy"]


@pytest.fixture
def modules(imported, tmp_path):
    """Three kinds of answers for adder v1: right with little fuel, right with more, wrong."""
    answers = adder_answers(imported)
    paths = {}
    for kind, wasm in (("fast", wat.lookup(answers)), ("slow", wat.lookup(answers, iterations=2000)),
                       ("wrong", wat.lookup({}))):
        paths[kind] = tmp_path / f"{kind}.wasm"
        paths[kind].write_bytes(wasm)
    return paths


def snapshot() -> tuple[set, set, set, set, set]:
    rows = set(Standing.objects.values_list("version_id", "variant_key", "name", "submission_id", "board_group",
                                            "board_key", "submitted_at", "engine", "model"))
    summaries = {
        (row.version_id, row.variant_key, row.entries, row.submissions,
         tuple(sorted((row.entry_engines or {}).items())), tuple(sorted((row.submission_engines or {}).items())))
        for row in BoardSummary.objects.all()
        if row.entries or row.submissions
    }
    places = set(Submission.objects.values_list("pk", "board_group", "board_key"))
    best = set(CaseVersion.objects.values_list("pk", "best_fuel", "reference_fuel"))
    steps = set(RecordStep.objects.values_list("version_id", "variant_key", "submission_id", "scored_at", "total_fuel"))
    return rows, summaries, places, best, steps


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("score"), st.sampled_from(NAMES), st.sampled_from(["base", "long-lists"]),
                  st.sampled_from(["fast", "slow", "wrong"])),
        st.tuples(st.sampled_from(["hide", "show", "rescore", "delete", "rescore-and-score", "exclude", "include",
                                   "reference"]),
                  st.integers(0, 20)),
    ),
    min_size=1, max_size=10,
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(operations=OPERATIONS)
def test_the_standings_kept_as_scores_land_equal_a_rebuild(adder_v1, modules, django_capture_on_commit_callbacks,
                                                           operations):
    Submission.objects.all().delete()
    variants = {variant.slug: variant for variant in adder_v1.variants.all()}
    for operation in operations:
        made = list(Submission.objects.order_by("pk").defer("source"))
        if operation[0] == "score":
            _, name, variant, kind = operation
            score(submit(adder_v1, variants[variant], name, wasm_file=modules[kind], run={"model": f"model-{kind}"}))
            continue
        if not made:
            continue
        action, index = operation
        chosen = made[index % len(made)]
        if action in ("hide", "show"):
            set_hidden(Submission.objects.filter(pk=chosen.pk), action == "hide")
        elif action == "delete":
            chosen.delete()
        elif action == "reference":  # only a ranked entry may be one
            if chosen.board_group == RANKED:
                set_reference(chosen)
            else:
                with pytest.raises(ReferenceRefused):
                    set_reference(chosen)
        elif action in ("exclude", "include"):  # what the admin's save does
            Submission.objects.filter(pk=chosen.pk).update(excluded=action == "exclude")
            update_boards([chosen.pk])
        else:  # a new attempt takes it off the boards until it is scored again
            with django_capture_on_commit_callbacks(execute=action == "rescore-and-score"):
                new_attempt(chosen)
    kept = snapshot()
    rebuild()
    assert snapshot() == kept
    # And the board it gives is the one docs/reading.md orders: each submitter's best, ranked.
    # With its reference's fuel while the reference is ranked, and each entry's speedup against it.
    on_board = Submission.objects.filter(version=adder_v1, board_group__isnull=False)
    reference = on_board.filter(is_reference=True, board_group=RANKED).values_list("total_fuel", flat=True).first()
    adder_v1.refresh_from_db()
    assert adder_v1.reference_fuel == reference
    expected = rank(list(on_board.values(*SUBMISSION_FIELDS, "excluded")), best_per_name=True, reference_fuel=reference)
    assert list(Leaderboard(adder_v1)) == expected
    every = rank(list(on_board.values(*SUBMISSION_FIELDS, "excluded")), best_per_name=False, reference_fuel=reference)
    assert list(Leaderboard(adder_v1, include_all=True)) == every
    assert [entry for batch in Leaderboard(adder_v1).batches(2) for entry in batch] == [
        replace(entry, tied=False) for entry in expected]  # a download's rows: the shared place, no look ahead
    # The record progression, per variant and over all of them, is the one written the plain way.
    fields = ("pk", "passed", "hidden", "excluded", "status", "scored_at", "submitted_at", "total_fuel")
    for variant in (None, *variants.values()):
        rows = Submission.objects.filter(version=adder_v1, **({"variant": variant} if variant else {}))
        assert [step.submission for step in history.steps(adder_v1.pk, variant.pk if variant else None)] == (
            record_progression(list(rows.values(*fields))))


def test_rebuild_standings_recomputes_what_was_lost(adder_v1, modules):
    for name in NAMES:
        score(submit(adder_v1, adder_v1.default_variant(), name, wasm_file=modules["fast"]))
    kept = snapshot()
    Standing.objects.all().delete()
    BoardSummary.objects.all().delete()
    call_command("rebuild_standings", verbosity=0)
    assert snapshot() == kept


def test_a_page_of_a_board_is_read_through_an_index_not_a_scan_of_the_submissions(db):
    """EXPLAIN on the database in use (PostgreSQL in CI's second run, SQLite in the first)."""
    from django.db import connection

    from tests.factories import make_cases, make_many_submissions

    version = make_cases(1)[0]
    make_many_submissions(version, 20_000)  # written by the database itself: the plan, not the load, is tested
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    for include_all in (False, True):
        plan = Leaderboard(version, include_all=include_all).rows(100, 150).explain()
        index = "board_all" if include_all else "standing_order"
        assert index in plan, plan
        if connection.vendor == "postgresql":
            assert "Seq Scan on scoring_" not in plan and "Sort" not in plan, plan
        else:  # SQLite: every table searched by a key, no sorting of its own
            assert "SCAN" not in plan and "TEMP B-TREE" not in plan, plan
