"""Measurement epochs (docs/epochs.md): moving the site to another engine only once every entry
has been measured under it, and keeping what each entry measured under the engine before.

Fuel is exact for one module under one wasmtime release and one engine configuration. An upgrade
goes in four steps:

1. A host running the candidate engine (scripts/worker.sh with CANDIDATE_WASMTIME) runs
   `manage.py epoch prepare`: the candidate epoch is recorded and every entry on a board of a
   current (not retired) version — ranked or not, references and examples among them — is
   queued for a measurement under it (the `epoch` queue, which only candidate hosts take).
2. Each measurement rebuilds the entry from its stored source (or takes its stored module) and
   runs every held-out input, storing nothing on the entry itself.
3. `report()` sets each entry's figures under the candidate beside its own, and each board's
   order under both: an entry whose rebuild gave another module, or whose status or fuel moved,
   is flagged; a board whose order moved says so.
4. `switch()`, run on a host already on the candidate engine: in one transaction every measured
   entry's own figures are kept as the old epoch's measurement and replaced by the candidate's,
   the boards are rebuilt, and the candidate becomes the current epoch (a line on /changes/).

Retired versions are not measured again: their boards stay as they were counted when they were
frozen, and their published data lets anyone measure them under any engine.
"""

from __future__ import annotations

from scoring.epochs.candidates import (
    measure_for_epoch_job,
    prepare,
    requeue_stale_measurements,
    run_measurement,
    stale_measurements,
)
from scoring.epochs.engines import (
    QUEUE,
    THIS_ENGINE,
    EpochError,
    board_engine,
    candidate_epoch,
    current_epoch,
    forget_site_engine,
    label,
    record_site_epoch,
    refuse_other_engine,
    site_engine,
    to_measure,
)
from scoring.epochs.reports import counted_by, epoch_json, epochs_of, report
from scoring.epochs.switching import drop, switch

__all__ = ["QUEUE", "THIS_ENGINE", "EpochError", "board_engine", "candidate_epoch", "counted_by", "current_epoch",
           "drop", "epoch_json", "epochs_of", "forget_site_engine", "label", "measure_for_epoch_job", "prepare",
           "record_site_epoch", "refuse_other_engine", "report", "requeue_stale_measurements", "run_measurement",
           "site_engine", "stale_measurements", "switch", "to_measure"]
