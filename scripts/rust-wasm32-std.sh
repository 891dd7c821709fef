#!/bin/sh
# The standard library of the wasm32-unknown-unknown target for Debian's `rustc-web`, built once
# from Debian's own sources of it (`rust-web-src`, dependencies vendored) and installed where the
# compiler looks by default (/usr/lib/rustlib/wasm32-unknown-unknown/lib), with the linker it
# calls (`rust-lld`: Debian's `lld` of the compiler's LLVM). Afterwards a plain
# `cargo build --release --target wasm32-unknown-unknown` works, offline, for any workspace.
#
# Debian packages no wasm32 standard library for rustc-web (only for the old `rustc`, whose
# `libstd-rust-dev-wasm32` must go: two standard libraries for one target is an error). Run as
# root, after `apt-get install rustc-web cargo-web rust-web-src lld-<LLVM>`
# (scripts/system-packages.sh toolchain does both). Nothing is done when the library there was
# built for this very compiler (the stamp file records `rustc -vV`); `--current` only says whether
# it was (exit 0) or not (exit 1).
#
# The build is reproducible: it runs in one fixed folder, with the paths of the sources written
# as the Rust project writes them (/rustc/<commit>/library/...), so every machine that runs this
# for the same compiler gets the same library, and the same source gets the same module.
set -eu
export PATH=/usr/bin:/bin:/usr/sbin:/sbin
unset RUSTUP_TOOLCHAIN RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_TARGET CARGO_HOME
RUSTC=/usr/bin/rustc
CARGO=/usr/bin/cargo
TARGET=wasm32-unknown-unknown
HOST=x86_64-unknown-linux-gnu
LIB_DIR=/usr/lib/rustlib/$TARGET/lib
STAMP=/usr/lib/rustlib/$TARGET/built-for-rustc
BUILD=/var/tmp/fuelboard-rust-std  # a fixed folder: the same paths on every machine

version="$($RUSTC -vV)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$version" ] && [ -e "/usr/lib/rustlib/$HOST/bin/rust-lld" ]; then
    exit 0
fi
[ "${1:-}" = --current ] && exit 1  # (only asked whether it is built for this compiler)
if [ "$(id -u)" != 0 ]; then
    echo "the wasm32 standard library for $($RUSTC --version) must be built, as root: sudo $0" >&2
    exit 1
fi
release=$(printf '%s\n' "$version" | sed -n 's/^release: //p')
commit=$(printf '%s\n' "$version" | sed -n 's/^commit-hash: //p')
llvm=$(printf '%s\n' "$version" | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
source_dir=/usr/src/rustc-$release/library
if [ ! -d "$source_dir/vendor" ]; then
    echo "the sources of the standard library of rustc $release are missing ($source_dir/vendor):" >&2
    echo "apt-get install rust-web-src" >&2
    exit 1
fi
if [ ! -x "/usr/bin/lld-$llvm" ]; then
    echo "the linker of rustc $release (LLVM $llvm) is missing: apt-get install lld-$llvm" >&2
    exit 1
fi
echo "Building the $TARGET standard library for rustc $release (once; about a minute)"

rm -rf "$BUILD"
mkdir -p "$BUILD"
cp -a "$source_dir" "$BUILD/library"
# Debian's vendor/ lacks the crates only tests, the C runtime, profiling and Windows need, while
# cargo resolves every dependency a manifest names: those are taken out of the manifests.
python3 - "$BUILD/library" <<'EOF'
import glob, json, os, re, sys

library = sys.argv[1]
header = re.compile(r"^\s*\[")


def edit(path, change):
    text = open(path).read()
    changed = change(text)
    if changed == text:
        return
    open(path, "w").write(changed)
    checksums = os.path.join(os.path.dirname(path), ".cargo-checksum.json")
    if "/vendor/" in path and os.path.exists(checksums):  # a vendored crate checks its files' digests
        document = json.load(open(checksums))
        document["files"] = {}
        json.dump(document, open(checksums, "w"))


def without_tables(text, unwanted):
    kept, skipping = [], False
    for line in text.splitlines(keepends=True):
        if header.match(line):
            skipping = unwanted(line.strip())
        if not skipping:
            kept.append(line)
    return "".join(kept)


for manifest in glob.glob(library + "/**/Cargo.toml", recursive=True):
    if "/vendor/" not in manifest:
        edit(manifest, lambda text: without_tables(text, lambda name: name.endswith("dev-dependencies]")))
for manifest in glob.glob(library + "/vendor/*/Cargo.toml"):
    edit(manifest, lambda text: without_tables(text, lambda name: "dependencies.windows" in name))
edit(library + "/Cargo.toml", lambda text: re.sub(r'(?m)^\s*"(coretests|alloctests)",?\n', "", text))
for manifest in glob.glob(library + "/**/compiler*builtins*/Cargo.toml", recursive=True):
    if 'name = "compiler_builtins"' in open(manifest).read():
        edit(manifest, lambda text: re.sub(r"(?ms)^\[build-dependencies\.cc\]\n(?:[^\[].*?\n)*", "", re.sub(
            r"(?m)^c\s*=\s*\[.*\]", "c = []", re.sub(r"(?m)^cc\s*=.*\n", "", text))))
edit(library + "/sysroot/Cargo.toml", lambda text: re.sub(
    r'profiler\s*=\s*\["dep:profiler_builtins"\]', "profiler = []",
    re.sub(r'"dep:profiler_builtins",?\s*', "", re.sub(r"(?m)^profiler_builtins\s*=.*\n", "", text))))
EOF
rm -f "$BUILD/library/Cargo.lock"  # resolved again, offline, against vendor/

# As the Rust project builds it for a release ("dist": one codegen unit, bitcode kept for LTO).
profile=release
grep -q '^\[profile.dist\]' "$BUILD/library/Cargo.toml" && profile=dist
separator=$(printf '\037')
flags="-Zforce-unstable-if-unmarked${separator}--remap-path-prefix=$BUILD=/rustc/$commit"
[ "$profile" = release ] && flags="$flags${separator}-Cembed-bitcode=yes"
started=$(date +%s)
CARGO_HOME="$BUILD/cargo-home" RUSTC_BOOTSTRAP=1 CARGO_ENCODED_RUSTFLAGS="$flags" \
    $CARGO build --quiet --offline \
    --config "source.crates-io.replace-with='vendored'" \
    --config "source.vendored.directory='$BUILD/library/vendor'" \
    --manifest-path "$BUILD/library/sysroot/Cargo.toml" \
    --target "$TARGET" --profile "$profile" --target-dir "$BUILD/target"

rm -rf "$LIB_DIR"
mkdir -p "$LIB_DIR" "/usr/lib/rustlib/$HOST/bin"
cp "$BUILD/target/$TARGET/$profile/deps/"*.rlib "$LIB_DIR/"
rm -f "$LIB_DIR"/libsysroot-*.rlib
# rustc looks for `rust-lld` beside its own libraries first.
ln -sf "/usr/bin/lld-$llvm" "/usr/lib/rustlib/$HOST/bin/rust-lld"
printf '%s\n' "$version" > "$STAMP"
rm -rf "$BUILD"
echo "Built the $TARGET standard library for rustc $release in $(( $(date +%s) - started )) s"
