"""What a task says to the agent (`instruction.md`) and the image it runs in (`environment/Dockerfile`).

The image is Debian 12 with Debian's `rustc-web` and `cargo-web` 1.96 and the wasm32 standard
library built from Debian's own sources by the site's own script (scripts/rust-wasm32-std.sh),
rather than the `rust:1.96` image with rustup's wasm32 target: fuel is counted on the module, and
another build of the standard library can make another module from the same source, so only the
compiler the site builds with meters in the task what the site will store.
"""

from __future__ import annotations

import json

from catalog.models import CaseVersion
from engine.toolchain import RUST_RELEASE

WORKSPACE = "/workspace"  # the run root in the image, where the agent works
HOME = "/opt/fuelboard"  # the fuel meter, its Python environment and when the run root was laid out
METER_COMMAND = "fuel-meter"  # the kit's `python3 meter`, on the agent's PATH

WHERE = """
---

Your workspace is `{workspace}`, laid out as the site lays out a run (the prompt above is its
`PROMPT.md`). When you stop, the verifier builds it with the case's build command and meters the
module on the public samples in `{workspace}/samples/` with the site's own fuel meter, as
`{meter} check {workspace}` does now: the reward is 1 when every sample passes and 0 otherwise.
When the task is given a Fuelboard site, your workspace is scored there instead, on held-out
inputs: the reward is its speedup against the case's reference entry (1 without one), or 0 when
it does not pass every input.
"""

IMAGE = f"""\
# One run of a Fuelboard case: the compiler the site builds submissions with, the case's fuel
# meter, and the run root at {WORKSPACE}, laid out as `manage.py seed_run` lays it out.
FROM debian:bookworm
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
# Debian's current Rust (rustc-web and cargo-web, from bookworm-security), which must be the
# release the site builds with, its standard library's sources, and the linker of its LLVM;
# Python for the fuel meter.
RUN apt-get update \\
 && apt-get install -y --no-install-recommends rustc-web cargo-web rust-web-src python3 python3-venv \\
    ca-certificates \\
 && release=$(rustc -vV | sed -n 's/^release: //p') \\
 && if [ "$release" != "{RUST_RELEASE}" ]; then \\
      echo "the site builds with rustc {RUST_RELEASE}, Debian gives $release: fuel could differ" >&2; exit 1; fi \\
 && llvm=$(rustc -vV | sed -n 's/^LLVM version: \\([0-9]*\\).*/\\1/p') \\
 && apt-get install -y --no-install-recommends "lld-$llvm" \\
 && rm -rf /var/lib/apt/lists/*
# The wasm32-unknown-unknown standard library, built as the site builds it (the site's own script).
COPY rust-wasm32-std.sh {HOME}/rust-wasm32-std.sh
RUN sh {HOME}/rust-wasm32-std.sh
# The fuel meter of the case's kit, with its pinned requirements, as `{METER_COMMAND}`.
COPY meter/requirements.txt {HOME}/meter-requirements.txt
RUN python3 -m venv {HOME}/meter-env \\
 && {HOME}/meter-env/bin/pip install --no-cache-dir --quiet -r {HOME}/meter-requirements.txt
COPY meter/ {HOME}/meter/
RUN printf '#!/bin/sh\\nexec {HOME}/meter-env/bin/python {HOME}/meter "$@"\\n' > /usr/local/bin/{METER_COMMAND} \\
 && chmod 755 /usr/local/bin/{METER_COMMAND}
# The run root.
COPY run/ {WORKSPACE}/
WORKDIR {WORKSPACE}
"""


def instruction(prompt: bytes) -> str:
    """The prompt exactly as the site renders it for the variant, then where and how the run is scored."""
    return prompt.decode("utf-8").rstrip("\n") + "\n" + WHERE.format(workspace=WORKSPACE, meter=METER_COMMAND)


def dockerfile(version: CaseVersion) -> str:
    """The image: the compiler, the meter and the run root; then the case's `init` command (the
    harness runs it after seeding), and the time the run root was laid out (the run record's)."""
    init = f"RUN {json.dumps(['/bin/sh', '-c', version.init])}\n" if version.init else ""
    return IMAGE + init + f"RUN date -u +%Y-%m-%dT%H:%M:%SZ > {HOME}/seeded-at\n"
