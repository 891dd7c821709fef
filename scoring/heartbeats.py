"""A heartbeat for long work done in a task worker: a thread refreshing a row's `heartbeat_at`,
so a worker that died can be told from a slow one (`requeue_stale_jobs`)."""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from typing import Iterator

from django.conf import settings
from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

logger = logging.getLogger(__name__)


@contextmanager
def heartbeat(rows: QuerySet, name: str) -> Iterator[None]:
    """Refresh `heartbeat_at` of `rows` every SCORING_HEARTBEAT_SECONDS while the block runs."""
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(settings.SCORING_HEARTBEAT_SECONDS):
                try:
                    rows.update(heartbeat_at=timezone.now())
                except Exception:  # a missed beat is not worth failing the work for
                    logger.warning("heartbeat for %s failed", name, exc_info=True)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=beat, name=f"heartbeat-{name}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
