#!/bin/sh
# Install the Debian packages the project needs, if they are missing.
#
#   scripts/system-packages.sh toolchain   rustc, cargo, the wasm32 standard library, bubblewrap and
#                                          Debian's python3 (builds)
#   scripts/system-packages.sh browser     chromium (browser tests)
#   scripts/system-packages.sh bench       wrk (the page-throughput benchmark)
#   scripts/system-packages.sh serve       nginx (the buffering front of `make serve`)
#   scripts/system-packages.sh node        Node.js, npm and a Java runtime (test-only oracles: Handlebars.js,
#                                          axe-core, pa11y, the Nu HTML Checker)
#
# Debian's rustc carries the wasm32-unknown-unknown standard library (libstd-rust-dev-wasm32)
# and links with lld; a rustup toolchain would have to download its own, which needs internet.
set -eu

missing=""
need() {  # need <package> <file that proves it is installed>
    [ -e "$2" ] || missing="$missing $1"
}

for group in "$@"; do
    case "$group" in
        toolchain)
            need rustc /usr/bin/rustc
            need cargo /usr/bin/cargo
            need libstd-rust-dev-wasm32 /usr/lib/rustlib/wasm32-unknown-unknown
            need lld-14 /usr/bin/lld-14
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

[ -z "$missing" ] && exit 0

echo "Installing Debian packages:$missing"
if [ "$(id -u)" = 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root="sudo"
else
    echo "These Debian packages are missing and installing them needs root:$missing" >&2
    echo "Run: sudo apt-get update && sudo apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$as_root apt-get update -q
# shellcheck disable=SC2086
$as_root apt-get install -y -q --no-install-recommends $missing
