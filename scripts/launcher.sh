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

start_launcher() {
    mkdir -p -m 0755 /run/fuelboard-launcher
    rm -rf "$LAUNCHER_DIR"
    mkdir -m 0750 "$LAUNCHER_DIR"
    chgrp -h "$(id -gn "$APP_USER")" "$LAUNCHER_DIR"
    scripts/build-launcher --socket "$LAUNCHER_SOCKET" --client-user "$APP_USER" &
    launcher=$!
    waited=0
    while [ ! -S "$LAUNCHER_SOCKET" ]; do
        if ! kill -0 "$launcher" 2>/dev/null || [ "$waited" -ge 300 ]; then
            echo "the build launcher did not start (its message is above)" >&2
            exit 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    SCORING_BUILD_LAUNCHER="$LAUNCHER_SOCKET"
    export SCORING_BUILD_LAUNCHER
}

keep_launcher() {
    if [ -n "$launcher" ] && ! kill -0 "$launcher" 2>/dev/null; then
        echo "the build launcher stopped: starting it again" >&2
        start_launcher
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
