"""A source may not choose how cargo builds it. A cargo configuration file in it
(`.cargo/config.toml` or `.cargo/config`, in any of its folders) can name another compiler or
linker, for the target or for the host, pass rustc flags, or set the compiler's environment
(`[env]`: a preloaded library runs inside rustc); `cargo-features` in a `Cargo.toml` asks for
cargo's unstable features (profile `rustflags` among them), and a `Cargo.toml` that cannot be read
here cannot be told free of them. Any of these could pass off a module
made elsewhere as one the named compiler built, so a source holding one is refused: by the site's
build driver, inside the sandbox (engine/builds/driver.py), and by a kit's `meter check`, alike.

Standard library only: the build driver runs it under the system's python3.
"""

import os
import tomllib

CONFIG_NAMES = ("config", "config.toml")
MANIFEST_BYTES = 1 << 20  # a Cargo.toml larger than this is refused unread
REFUSED = {
    "cargo_config": "the source holds a cargo configuration (.cargo/config.toml): a source may not choose how cargo "
                    "builds it (the compiler, the linker, their flags or their environment); the site builds with "
                    "its own",
    "cargo_features": "a Cargo.toml of the source asks for cargo's unstable features (cargo-features): the site "
                      "builds with stable cargo",
    # What cannot be read cannot be told free of `cargo-features`, though cargo may read it.
    "cargo_manifest": "a Cargo.toml of the source cannot be read here (it must be UTF-8 TOML 1.0, at most 1 MiB), so "
                      "it cannot be told free of cargo's unstable features",
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
                    text = manifest.read(MANIFEST_BYTES + 1)
                if len(text) > MANIFEST_BYTES:
                    return "cargo_manifest"
                # cargo reads a manifest that starts with a byte order mark: so is it read here.
                data = tomllib.loads(text.removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return "cargo_manifest"
            if "cargo-features" in data:
                return "cargo_features"
    return None
