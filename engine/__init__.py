"""The scoring engine: everything between a submission's bytes and its per-input outcomes.

A plain package (no Django, and no app of this project): `builds/` builds a source folder into a
module in the bubblewrap sandbox, `sandbox/` checks a module against the solution ABI and runs
one input in wasmtime under fuel metering, `judging.py` checks an answer in a bounded child
process, `evaluate.py` runs the smoke then the stress phase, `progress.py` is how it reports, and
`workers/` are the child processes it starts (`python -m engine.workers.judge`, `…compile`).
The results app (`scoring/`) ties it to the database; nothing here knows there is one.
"""
