#!/bin/sh
# Run a command against a throwaway PostgreSQL server started for it and stopped after it:
#
#   scripts/with-postgres.sh make test
#
# The server lives in a temporary directory, listens on a free loopback port, and is gone when
# the command ends (whatever its exit status). DATABASE_URL points the command at it.
set -eu

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    echo "PostgreSQL server binaries (initdb, pg_ctl) were not found under /usr/lib/postgresql/*/bin" >&2
    exit 1
fi

workdir=$(mktemp -d /tmp/fuelboard-postgres.XXXXXX)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# initdb refuses to run as root: run the server as the postgres user (or nobody) then.
run_as=""
if [ "$(id -u)" = 0 ]; then
    owner=postgres
    id -u "$owner" >/dev/null 2>&1 || owner=nobody
    chown "$owner" "$workdir"
    run_as="runuser -u $owner --"
fi

stop() {
    $run_as "$bindir/pg_ctl" -D "$workdir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$workdir"
}
trap stop EXIT
trap 'exit 130' INT TERM

$run_as "$bindir/initdb" -D "$workdir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$workdir/initdb.log" 2>&1 \
    || { cat "$workdir/initdb.log" >&2; exit 1; }
# Durability is pointless for a throwaway test server; turning it off makes the suite faster, as
# does leaving out what a short-lived server never needs (JIT compiling, autovacuum, WAL for replicas).
$run_as "$bindir/pg_ctl" -D "$workdir/data" -l "$workdir/server.log" -w \
    -o "-h 127.0.0.1 -p $port -k $workdir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c jit=off -c autovacuum=off -c wal_level=minimal -c max_wal_senders=0 -c shared_buffers=256MB" \
    start >/dev/null || { cat "$workdir/server.log" >&2; exit 1; }
"$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres fuelboard

export DATABASE_URL="postgres://postgres@127.0.0.1:$port/fuelboard"
echo "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port for: $*"
"$@"
