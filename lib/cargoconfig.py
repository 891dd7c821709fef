"""A source may not choose how cargo builds it. A cargo configuration file in it
(`.cargo/config.toml` or `.cargo/config`, in any of its folders) can name another compiler or
linker, for the target or for the host, pass rustc flags, or set the compiler's environment
(`[env]`: a preloaded library runs inside rustc); `cargo-features` in a `Cargo.toml` asks for
cargo's unstable features (profile `rustflags` among them). Any of these could pass off a module
made elsewhere as one the named compiler built, so a source holding one is refused: by the site's
build driver, inside the sandbox (engine/builds/driver.py), and by a kit's `meter check`, alike.

Standard library only: the build driver runs it under the system's python3.
"""

import os
import tomllib

CONFIG_NAMES = ("config", "config.toml")
MANIFEST_BYTES = 1 << 20  # a Cargo.toml larger than this is not read (cargo will refuse it itself)
REFUSED = {
    "cargo_config": "the source holds a cargo configuration (.cargo/config.toml): a source may not choose how cargo "
                    "builds it (the compiler, the linker, their flags or their environment); the site builds with "
                    "its own",
    "cargo_features": "a Cargo.toml of the source asks for cargo's unstable features (cargo-features): the site "
                      "builds with stable cargo",
}


def own_build_settings(root, *, skip=()) -> str | None:
    """The key of REFUSED that the folder `root` breaks, or None. Folders are walked without
    following links, but a `.cargo` that is a link counts (cargo would follow it). `skip`: folder
    names not walked (a workspace's own build products)."""
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if name not in skip]
        if any(os.path.lexists(os.path.join(directory, ".cargo", name)) for name in CONFIG_NAMES):
            return "cargo_config"
        if "Cargo.toml" in filenames:
            try:
                with open(os.path.join(directory, "Cargo.toml"), "rb") as manifest:
                    data = tomllib.loads(manifest.read(MANIFEST_BYTES).decode("utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue  # unreadable: cargo says so itself
            if "cargo-features" in data:
                return "cargo_features"
    return None
