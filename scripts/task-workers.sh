# Sourced by scripts/serve.sh and scripts/worker.sh: the task workers (`manage.py db_worker`, as
# the site's account where AS_APP says so), started, and started again when one stops, as the
# build launcher is: a worker killed by the machine (out of memory, say) is replaced within a
# second, with a line on stderr saying so. Workers that stop within WORKER_QUICK_EXIT seconds of
# being started are started again only after WORKER_RETRY seconds: a worker that cannot start
# (the database gone, say) is tried again now and then, never in a tight loop.
#
#   start_workers N ARGS…   N workers of `manage.py db_worker ARGS…`
#   keep_workers            start again the ones that stopped (call it every second)
#   stop_workers

workers="" worker_args="" worker_missing=0 worker_last_start=0 worker_retry_at=0
WORKER_QUICK_EXIT="${WORKER_QUICK_EXIT:-5}"
WORKER_RETRY="${WORKER_RETRY:-10}"

start_workers() {
    workers_to_start="$1"
    shift
    worker_args="$*"
    while [ "$workers_to_start" -gt 0 ]; do
        start_worker
        workers_to_start=$((workers_to_start - 1))
    done
}

start_worker() {
    # shellcheck disable=SC2086
    $AS_APP $PY manage.py db_worker $worker_args &
    workers="$workers $!"
    worker_last_start=$(date +%s)
}

keep_workers() {
    alive=""
    lost=0
    for worker in $workers; do
        if kill -0 "$worker" 2>/dev/null; then
            alive="$alive $worker"
        else
            status=0
            wait "$worker" 2>/dev/null || status=$?
            echo "a task worker (pid $worker) stopped (exit status $status)" >&2
            lost=$((lost + 1))
        fi
    done
    workers="$alive"
    now=$(date +%s)
    if [ "$lost" -gt 0 ] && [ $((now - worker_last_start)) -lt "$WORKER_QUICK_EXIT" ]; then
        worker_retry_at=$((now + WORKER_RETRY))
        echo "task workers stop as soon as they start: trying again in $WORKER_RETRY s" >&2
    fi
    worker_missing=$((worker_missing + lost))
    if [ "$worker_missing" -eq 0 ] || [ "$now" -lt "$worker_retry_at" ]; then
        return 0
    fi
    echo "starting $worker_missing task worker(s) again" >&2
    while [ "$worker_missing" -gt 0 ]; do
        start_worker
        worker_missing=$((worker_missing - 1))
    done
}

stop_workers() {
    # shellcheck disable=SC2086
    kill $workers 2>/dev/null || true
    for worker in $workers; do
        wait "$worker" 2>/dev/null || true
    done
    workers=""
}
