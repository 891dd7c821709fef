"""The compiler that builds submissions: the Rust release the site names (RUST_RELEASE, the one its
starters pin in their `rust-toolchain.toml`), and the one a build really ran with, as `rustc -vV`
and `cargo -V` say, recorded with every entry beside its module digest.

Fuel is counted on the module, so it is exact for one module; the same source built by another
compiler (another release, or the same release with another standard library build) may give
another module, and so other fuel. Builds run Debian's `rustc-web` with the wasm32 standard
library built from Debian's own sources (scripts/rust-wasm32-std.sh).
"""

from __future__ import annotations

import functools
import re
import subprocess
from dataclasses import asdict, dataclass

# The release the site builds with, named on every case page, in every kit and starter.
RUST_RELEASE = "1.96.0"
RUSTC = "/usr/bin/rustc"
CARGO = "/usr/bin/cargo"
_ENVIRONMENT = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}  # never a rustup shim, never its overrides
# What a source's cargo configuration may not change, on the site and in a kit's `meter check`
# alike: a `rustc-wrapper` around the compiler, and flags for it (`rustflags`, where `-C linker=`
# would swap the linker). cargo reads the environment before any configuration file.
UNCONFIGURABLE = {
    "RUSTC_WRAPPER": "",
    "RUSTC_WORKSPACE_WRAPPER": "",
    "CARGO_ENCODED_RUSTFLAGS": "",
}
# A site's build names, besides, the compiler and the linker it records (a `rustc` or a target's
# `linker` in the configuration changes nothing). What a source's build runs of its own (a build
# script, a prebuilt library) is in the source for anyone to read (docs/taking-part.md).
# And cargo keeps to its stable channel: Debian's cargo, built from a source tarball, names its
# channel "dev" and would take a manifest's `cargo-features`; this is how cargo's own tests ask it
# to be the stable release it is (lib/cargoconfig.py refuses such a manifest first).
PINNED_TOOLCHAIN = {
    "RUSTC": RUSTC,
    "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER": "rust-lld",
    "__CARGO_TEST_CHANNEL_OVERRIDE_DO_NOT_USE_THIS": "stable",
    **UNCONFIGURABLE,
}


@dataclass(frozen=True)
class Toolchain:
    """A compiler as `rustc -vV` and `cargo -V` describe it ("" where nothing could be learnt)."""

    release: str = ""  # "1.96.0"
    commit: str = ""  # the full commit hash of rustc's sources
    date: str = ""  # the commit's date
    cargo: str = ""  # "cargo 1.96.0 (30a34c682 2026-05-25)"

    @property
    def rustc(self) -> str:
        """As `rustc -V` names it: "rustc 1.96.0 (ac68faa20 2026-05-25)"; "" when unknown."""
        if not self.release:
            return ""
        return f"rustc {self.release} ({self.commit[:9]} {self.date})" if self.commit else f"rustc {self.release}"

    def as_dict(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_dict(cls, value) -> "Toolchain":
        """From what a launcher sent: strings only, each bounded; anything else is unknown."""
        if not isinstance(value, dict):
            return cls()
        return cls(**{key: value[key][:200] for key in ("release", "commit", "date", "cargo")
                      if isinstance(value.get(key), str)})


def parse(rustc_verbose: str, cargo_version: str) -> Toolchain:
    """`rustc -vV` and `cargo -V` read."""
    fields = dict(line.split(": ", 1) for line in rustc_verbose.splitlines() if ": " in line)
    commit = fields.get("commit-hash", "")
    date = fields.get("commit-date", "")
    cargo = cargo_version.strip().split(" (built from", 1)[0]  # Debian's suffix: not part of the name
    return Toolchain(release=fields.get("release", ""), commit="" if commit == "unknown" else commit,
                     date="" if date == "unknown" else date, cargo=cargo)


def ask(rustc: str = RUSTC, cargo: str = CARGO, *, cwd: str | None = None, env: dict | None = None) -> Toolchain:
    """What `rustc -vV` and `cargo -V` say (run in `cwd`: rustup picks a folder's pinned toolchain)."""
    try:
        said_rustc = subprocess.run([rustc, "-vV"], capture_output=True, text=True, timeout=60, cwd=cwd,
                                    env=_ENVIRONMENT if env is None else env)
        said_cargo = subprocess.run([cargo, "-V"], capture_output=True, text=True, timeout=60, cwd=cwd,
                                    env=_ENVIRONMENT if env is None else env)
    except (OSError, subprocess.SubprocessError):
        return Toolchain()
    return parse(said_rustc.stdout if said_rustc.returncode == 0 else "",
                 said_cargo.stdout if said_cargo.returncode == 0 else "")


@functools.cache
def installed() -> Toolchain:
    """The compiler this machine builds submissions with (asked once per process)."""
    return ask()


# What a build's log says when the source asks for another toolchain than this one, and how the
# entry's public message says it (in the site's words only: a log quotes the submission).
_TOOLCHAIN_SIGNS = (
    (re.compile(r"lock file version `?\d+`? (was found|requires)"),
     "its Cargo.lock is of a format this cargo cannot read"),
    (re.compile(r"(edition `?20\d\d`? is unstable|feature `edition20\d\d` is required|"
                r"is older than the `20\d\d` edition)"), "it asks for a Rust edition this compiler does not have"),
    (re.compile(r"requires rustc \d+\.\d+(\.\d+)? or newer"), "a crate of it asks for a newer rustc"),
    (re.compile(r"(can't find crate for `(core|std)`|target may not be installed)"),
     "the standard library of its target is not here (only wasm32-unknown-unknown is)"),
    (re.compile(r"(E0554|`#!\[feature\]` may not be used on the stable release channel|-Z flags? (is|are) only "
                r"accepted on the nightly)"), "it uses unstable features, which only a nightly compiler takes"),
)


def toolchain_reason(log: str) -> str | None:
    """Why a failed build failed because of the toolchain, in the site's words, or None."""
    for sign, reason in _TOOLCHAIN_SIGNS:
        if sign.search(log):
            found = installed()
            return f"{reason} (this site builds with {found.rustc or 'rustc ' + RUST_RELEASE})"
    return None


def toolchain_problem() -> str | None:
    """Why builds here would not be made by the compiler the site names, or None."""
    found = installed()
    if not found.release:
        return f"no Rust compiler at {RUSTC}: run scripts/system-packages.sh toolchain"
    if found.release != RUST_RELEASE:
        return (f"builds here use rustc {found.release}, but the site names rustc {RUST_RELEASE} (its starters pin "
                f"it): fuel may differ from what solvers measure at home; update RUST_RELEASE with the compiler")
    return None
