"""The engine this process runs, the site's epochs as recorded, and what a candidate measures."""

from __future__ import annotations

import time

from django.db import IntegrityError, transaction
from django.db.models.signals import post_migrate
from django.dispatch import receiver
from django.utils import timezone

from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
from scoring.boards.places import engine_label
from scoring.models import Epoch, Submission

State = Epoch.State
THIS_ENGINE = (WASMTIME_VERSION, ENGINE_DIGEST)
QUEUE = "epoch"


class EpochError(Exception):
    """What staff asked for cannot be done; the message says why and what to do instead."""


def label(engine: tuple[str, str]) -> str:
    return f"wasmtime {engine[0]} ({engine[1]})"


def current_epoch() -> Epoch | None:
    return Epoch.objects.filter(state=State.CURRENT).first()


def candidate_epoch() -> Epoch | None:
    return Epoch.objects.filter(state=State.CANDIDATE).first()


# A process reads which engine the site counts with at most this often (a switch made elsewhere
# shows on its pages this much later at most; one made here, at once).
SITE_ENGINE_SECONDS = 10
_site_engine: dict = {}


def site_engine() -> tuple[str, str]:
    """The engine the site counts with — its current epoch's, whatever this process runs (a web
    host may be on the next release's pins before the switch, or still on the last's after it);
    this process's own before the site has recorded one."""
    now = time.monotonic()
    if _site_engine.get("until", 0) > now:
        return _site_engine["engine"]
    epoch = current_epoch()
    engine = epoch.engine if epoch is not None else THIS_ENGINE
    _site_engine.update(engine=engine, until=now + SITE_ENGINE_SECONDS)
    return engine


def forget_site_engine() -> None:
    """Read the site's engine afresh next time (after a switch made in this process)."""
    _site_engine.clear()


def board_engine(version) -> tuple[str, str]:
    """The engine a version's board is counted by: the site's, or for a retired version the one
    that was current when its board was frozen (a later switch does not measure it again)."""
    if version.retired_at is not None:
        counted = Epoch.objects.filter(switched_at__isnull=False).exclude(state=State.DROPPED)
        # Retired before the site recorded any epoch: by the first it recorded (the engine it ran then).
        epoch = (counted.filter(switched_at__lte=version.retired_at).order_by("-switched_at", "-pk").first()
                 or counted.order_by("switched_at", "pk").first())
        if epoch is not None:
            return epoch.engine
    return site_engine()


def counting_label(version) -> str:
    """How a board names the engine that counts it (`board_engine`): an entry measured by another is marked."""
    return engine_label(*board_engine(version))


def record_site_epoch() -> Epoch:
    """The current epoch; a site that has recorded none counts with this process's engine (the
    site's own hosts record it when they migrate: a candidate host never migrates)."""
    epoch = current_epoch()
    if epoch is not None:
        return epoch
    forget_site_engine()
    try:
        with transaction.atomic():
            return Epoch.objects.create(wasmtime_version=WASMTIME_VERSION, engine_digest=ENGINE_DIGEST,
                                        state=State.CURRENT, switched_at=timezone.now())
    except IntegrityError:  # another process recorded it first
        return current_epoch()


@receiver(post_migrate, dispatch_uid="record-site-epoch")
def _record_after_migrate(sender, using="default", apps=None, **kwargs) -> None:
    if sender.name == "scoring" and using == "default" and _epochs_table_is_whole(apps):
        record_site_epoch()


def _epochs_table_is_whole(apps) -> bool:
    """Whether the database, as the migration left it, has the epochs table with every column
    (a migration back to before it, e.g. `migrate scoring zero`, records nothing)."""
    try:
        migrated = apps.get_model("scoring", "Epoch") if apps is not None else Epoch
    except LookupError:
        return False
    columns = {field.column for field in migrated._meta.concrete_fields}
    return columns >= {field.column for field in Epoch._meta.concrete_fields}


def other_site_engine() -> Epoch | None:
    """The site's current epoch when this process runs another engine (None: the same, or none recorded)."""
    epoch = current_epoch()
    return epoch if epoch is not None and epoch.engine != THIS_ENGINE else None


def refuse_other_engine(*, scoring: bool) -> None:
    """For a task worker at start: one that scores entries must run the engine the site counts with."""
    epoch = other_site_engine() if scoring else None
    if epoch is not None:
        raise EpochError(
            f"this worker runs {label(THIS_ENGINE)}, but the site counts fuel with {label(epoch.engine)}: "
            f"install the site's pins (requirements.txt), or run it as a candidate host "
            f"(`manage.py db_worker --queue-name {QUEUE}`: docs/epochs.md)")


def to_measure():
    """The entries a candidate measures: every finished entry on a board of a current version."""
    return Submission.objects.filter(status__in=Submission.FINAL_STATES, hidden=False,
                                     version__retired_at__isnull=True)
