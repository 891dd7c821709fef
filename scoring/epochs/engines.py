"""The engine this process runs, the site's epochs as recorded, and what a candidate measures."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models.signals import post_migrate
from django.dispatch import receiver
from django.utils import timezone

from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
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


def record_site_epoch() -> Epoch:
    """The current epoch; a site that has recorded none counts with this process's engine (the
    site's own hosts record it when they migrate: a candidate host never migrates)."""
    epoch = current_epoch()
    if epoch is not None:
        return epoch
    try:
        with transaction.atomic():
            return Epoch.objects.create(wasmtime_version=WASMTIME_VERSION, engine_digest=ENGINE_DIGEST,
                                        state=State.CURRENT, switched_at=timezone.now())
    except IntegrityError:  # another process recorded it first
        return current_epoch()


@receiver(post_migrate, dispatch_uid="record-site-epoch")
def _record_after_migrate(sender, using="default", **kwargs) -> None:
    if sender.name == "scoring" and using == "default":
        record_site_epoch()


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
