"""The models and the migrations agree: a model change without its migration fails here."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


@pytest.mark.django_db
def test_the_template_context_migration_fills_what_the_importer_stores(catalog):
    """Versions imported before variants kept their template context get the same one."""
    import importlib

    from django.apps import apps

    from catalog.importer import import_catalog
    from catalog.models import Variant

    assert import_catalog(catalog.root).ok
    stored = {variant.pk: variant.template_context for variant in Variant.objects.all()}
    assert stored and all(stored.values())
    Variant.objects.update(template_context={})
    importlib.import_module("catalog.migrations.0006_variant_template_context").fill(apps, None)
    assert {variant.pk: variant.template_context for variant in Variant.objects.all()} == stored


@pytest.mark.django_db
def test_the_provenance_migration_fills_standings_and_record_steps_for_existing_submissions(board):
    """Boards scored before records were kept get the same standings and steps scoring keeps now."""
    import importlib

    from django.apps import apps

    from scoring.models import RecordStep, Standing

    def state():
        return (set(Standing.objects.values_list("version_id", "variant_key", "name", "submission_id", "model")),
                set(RecordStep.objects.values_list("version_id", "variant_key", "submission_id", "total_fuel")))

    kept = state()
    assert kept[1]
    Standing.objects.all().delete()
    RecordStep.objects.all().delete()
    importlib.import_module("scoring.migrations.0010_board_summary_variant_key").fill_boards(apps, None)
    assert state() == kept


@pytest.mark.django_db
def test_the_agents_migration_copies_only_run_figures_the_schema_now_takes(board):
    """Before run records had typed cost fields, `cost_usd` and the token counts could be any
    short text: such a value is no figure, and copying it must neither stop the migration nor
    show `$inf` on the agents page."""
    import importlib

    from django.apps import apps

    from scoring.models import Submission

    runs = {"alice-1": {"model": "m", "harness": " h ", "cost_usd": 0.5, "input_tokens": 12, "output_tokens": 3},
            "alice-2": {"model": "m", "cost_usd": "$1.20", "input_tokens": "1e999", "output_tokens": 2.5},
            "bob": {"model": "m", "cost_usd": "nan", "input_tokens": True, "output_tokens": -1},
            "carol": {"model": "m", "cost_usd": 2_000_000, "input_tokens": 10 ** 13}}
    for key, run in runs.items():
        Submission.objects.filter(pk=board[key].pk).update(run=run)
    importlib.import_module("scoring.migrations.0013_agents_and_verifications").copy_run_columns(apps, None)
    copied = {key: Submission.objects.filter(pk=board[key].pk).values_list(
        "harness", "cost_usd", "input_tokens", "output_tokens").get() for key in runs}
    assert copied == {"alice-1": ("h", 0.5, 12, 3), "alice-2": ("", None, None, None), "bob": ("", None, None, None),
                      "carol": ("", None, None, None)}


@pytest.mark.django_db
def test_the_skeleton_migration_reports_look_alike_names_already_here_and_changes_none(capsys):
    """Names taken before skeletons were kept may look alike: each keeps its row and owner, the
    first (an owned one first) keeps the look, and each group is printed for staff to settle."""
    import importlib

    from django.apps import apps
    from django.contrib.auth.models import User

    from scoring.models import NameSkeleton, SubmitterName

    alice, mallory = User.objects.create(username="alice"), User.objects.create(username="mallory")
    SubmitterName.objects.create(name="aIice", owner=None)
    SubmitterName.objects.create(name="alice", owner=alice)
    SubmitterName.objects.create(name="\u0430\u0441\u0435", owner=mallory)
    SubmitterName.objects.create(name="ace", owner=alice)
    SubmitterName.objects.create(name="bob", owner=mallory)
    before = set(SubmitterName.objects.values_list("name", "owner__username"))
    importlib.import_module("scoring.migrations.0015_name_skeletons").skeletons(apps, None)
    said = capsys.readouterr().out
    assert "'alice' (alice), 'aIice' (no owner)" in said
    assert "'\u0430\u0441\u0435' (mallory), 'ace' (alice)" in said
    assert "bob" not in said
    assert set(SubmitterName.objects.values_list("name", "owner__username")) == before
    holders = dict(NameSkeleton.objects.values_list("skeleton", "name__name"))
    assert holders["alice"] == "alice" and holders["ace"] == "\u0430\u0441\u0435" and holders["bob"] == "bob"


@pytest.mark.django_db
def test_the_mark_migration_reports_names_that_now_look_alike_or_break_the_rules_and_changes_none(capsys):
    """UTS #39's mark rules on names stored before them: "alicé" and "alice" now look alike (the
    first, owned, keeps the look); a name with a no-break space breaks the rules. Each is printed,
    every row stays as it was."""
    import importlib

    from django.apps import apps
    from django.contrib.auth.models import User

    from scoring.models import NameSkeleton, SubmitterName

    alice, mallory = User.objects.create(username="alice"), User.objects.create(username="mallory")
    for name, owner in (("alice", alice), ("alic\u00e9", mallory), ("bo\u0331b", None), ("al\u00a0ice", None)):
        SubmitterName.objects.create(name=name, owner=owner)
    importlib.import_module("scoring.migrations.0015_name_skeletons").skeletons(apps, None)
    NameSkeleton.objects.filter(skeleton="alice", name__name="alic\u00e9").delete()  # as before the rules
    before = set(SubmitterName.objects.values_list("name", "owner__username"))
    capsys.readouterr()
    importlib.import_module("scoring.migrations.0018_name_marks").marks(apps, None)
    said = capsys.readouterr().out
    assert "'alice' (alice), 'alicé' (mallory)" in said
    assert "'al\\xa0ice' (no owner): U+00A0 is a space other than U+0020" in said  # as Python writes it
    assert set(SubmitterName.objects.values_list("name", "owner__username")) == before
    assert NameSkeleton.objects.get(skeleton="alice").name.name == "alice"
