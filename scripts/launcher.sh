# Sourced by scripts/serve.sh and scripts/worker.sh, started as root: the site's build launcher
# (scripts/build-launcher), which gives each build an account and a cgroup of its own while the
# site itself runs as APP_USER. One per machine and site (VAR_DIR): its socket lives in a folder
# of root's under /run/fuelboard-launcher/, 0750 of APP_USER's group; the launcher claims a block
# of build accounts of its own, so two sites on one machine share no account and no limit.
#
#   site_account         APP_USER, made if missing, and AS_APP (run a command as it)
#   start_launcher       starts it, waits for its socket, exports SCORING_BUILD_LAUNCHER
#   keep_launcher        starts it again if it stopped (call it now and then)
#   stop_launcher

LAUNCHER_DIR="/run/fuelboard-launcher/$(printf '%s' "$VAR_DIR" | sha1sum | cut -c1-16)"
LAUNCHER_SOCKET="$LAUNCHER_DIR/launcher.sock"
launcher=""

# Starts the launcher and waits for its socket; returns 1 (its message above) if it does not start.
launch() {
    mkdir -p -m 0755 /run/fuelboard-launcher
    rm -rf "$LAUNCHER_DIR"
    mkdir -m 0750 "$LAUNCHER_DIR"
    chgrp -h "$(id -gn "$APP_USER")" "$LAUNCHER_DIR"
    scripts/build-launcher --socket "$LAUNCHER_SOCKET" --client-user "$APP_USER" &
    launcher=$!
    waited=0
    while [ ! -S "$LAUNCHER_SOCKET" ]; do
        if ! kill -0 "$launcher" 2>/dev/null || [ "$waited" -ge 300 ]; then
            kill "$launcher" 2>/dev/null || true
            return 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    SCORING_BUILD_LAUNCHER="$LAUNCHER_SOCKET"
    export SCORING_BUILD_LAUNCHER
}

start_launcher() {
    if ! launch; then
        echo "the build launcher did not start (its message is above)" >&2
        exit 1
    fi
    launcher_wait=1
    launcher_next=0
}

# A launcher that stopped is started again; one that will not start is tried again later (after
# 1, 2, 4 … up to 60 seconds) while the site goes on: builds meanwhile fail saying the sandbox
# cannot be had, and everything else is served.
keep_launcher() {
    if [ -z "$launcher" ] || kill -0 "$launcher" 2>/dev/null; then
        return 0
    fi
    now=$(date +%s)
    if [ "$now" -lt "${launcher_next:-0}" ]; then
        return 0
    fi
    echo "the build launcher stopped: starting it again" >&2
    if launch; then
        launcher_wait=1
    else
        echo "the build launcher did not start again (its message is above): trying again in ${launcher_wait}s" >&2
        launcher_next=$((now + launcher_wait))
        launcher_wait=$((launcher_wait * 2 > 60 ? 60 : launcher_wait * 2))
    fi
}

stop_launcher() {
    if [ -n "$launcher" ]; then
        kill "$launcher" 2>/dev/null || true
        wait "$launcher" 2>/dev/null || true
        launcher=""
        rm -rf "$LAUNCHER_DIR"  # root's own folder (the site's group may only pass through it)
    fi
}

# APP_USER, made if missing (no login, no home), and AS_APP: a command run as it. setpriv execs
# the command itself (no process in between to forward signals), with no way back to privileges.
site_account() {
    if ! id -u "$APP_USER" >/dev/null 2>&1; then
        useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$APP_USER"
    fi
    AS_APP="env HOME=$VAR_DIR setpriv --reuid=$APP_USER --regid=$APP_USER --init-groups --no-new-privs --"
}
