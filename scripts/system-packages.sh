#!/bin/sh
# Install the Debian packages the project needs, if they are missing.
#
#   scripts/system-packages.sh toolchain   Debian's current Rust (rustc-web, cargo-web, the standard
#                                          library's sources, the linker), bubblewrap and Debian's
#                                          python3 (builds); then the wasm32 standard library, built
#                                          once from those sources (scripts/rust-wasm32-std.sh)
#   scripts/system-packages.sh browser     chromium (browser tests)
#   scripts/system-packages.sh bench       wrk (the page-throughput benchmark)
#   scripts/system-packages.sh serve       nginx (the buffering front of `make serve`)
#   scripts/system-packages.sh node        Node.js, npm and a Java runtime (test-only oracles: Handlebars.js,
#                                          axe-core, pa11y, the Nu HTML Checker)
#
# Debian's `rustc-web` is a current Rust (1.96: edition 2024, lock files of version 4); its
# wasm32-unknown-unknown standard library is built here from Debian's own sources, since a rustup
# toolchain would have to download its own, which needs internet. It replaces Debian's old
# `rustc` 1.63 and its `libstd-rust-dev-wasm32`, which are removed.
set -eu

missing=""
need() {  # need <package> <file that proves it is installed>
    [ -e "$2" ] || missing="$missing $1"
}
package() {  # package <package>: installed by that very name
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" || missing="$missing $1"
}

for group in "$@"; do
    case "$group" in
        toolchain)
            package rustc-web
            package cargo-web
            package rust-web-src
            need bubblewrap /usr/bin/bwrap
            need python3-minimal /usr/bin/python3  # runs the build driver inside the sandbox
            ;;
        browser)
            need chromium /usr/bin/chromium
            ;;
        bench)
            need wrk /usr/bin/wrk
            ;;
        serve)
            need nginx /usr/sbin/nginx
            ;;
        node)
            command -v node >/dev/null 2>&1 || need nodejs /usr/bin/node
            command -v npm >/dev/null 2>&1 || need npm /usr/bin/npm
            command -v java >/dev/null 2>&1 || need default-jre-headless /usr/bin/java  # the Nu HTML Checker
            ;;
        *)
            echo "unknown package group: $group" >&2
            exit 2
            ;;
    esac
done

# After the packages: the linker of the compiler's LLVM, and the wasm32 standard library.
rust_finish() {
    case " $* " in *" toolchain "*) ;; *) return 0 ;; esac
    llvm=$(/usr/bin/rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
    if [ ! -x "/usr/bin/lld-$llvm" ] || dpkg-query -W -f='${Status}' libstd-rust-dev-wasm32 2>/dev/null | grep -q installed; then
        as_root_or_say " lld-$llvm"
        $as_root apt-get install -y -q --no-install-recommends "lld-$llvm"
        # The old compiler's wasm32 library beside the new one's: two candidates for every crate.
        $as_root apt-get purge -y -q libstd-rust-dev-wasm32 || true
    fi
    scripts/rust-wasm32-std.sh --current && return 0
    as_root_or_say " (then scripts/rust-wasm32-std.sh)"
    $as_root scripts/rust-wasm32-std.sh
}

as_root_or_say() {  # as_root: how to run as root here; or stop, saying what to install
    if [ "$(id -u)" = 0 ]; then
        as_root=""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        as_root="sudo"
    else
        echo "These Debian packages are missing and installing them needs root:$*" >&2
        echo "Run: sudo apt-get update && sudo apt-get install -y --no-install-recommends$*" >&2
        exit 1
    fi
}

if [ -z "$missing" ]; then
    rust_finish "$@"
    exit 0
fi

echo "Installing Debian packages:$missing"
as_root_or_say "$missing"
export DEBIAN_FRONTEND=noninteractive
$as_root apt-get update -q
# shellcheck disable=SC2086
$as_root apt-get install -y -q --no-install-recommends $missing
rust_finish "$@"
