"""Page throughput under gunicorn, loaded by wrk on loopback, as a ratio to a trivial view.

A catalog of 1,000 cases and a leaderboard of 10,000 submissions; the trivial view is
/health/ on the same server. Pages are measured with the page cache on (the default) and,
for comparison, off.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from _django import ROOT, setup

DURATION = "5s"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(env: dict, port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py"], cwd=ROOT,
        env={**env, "PORT": str(port)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    wait_until_serving(port, "gunicorn")
    return server


def wait_until_serving(port: int, what: str) -> None:
    """Until /health/ answers on `port` (a minute at most)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=2).read()
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{what} did not start")


def stop_server(server: subprocess.Popen) -> None:
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)


def requests_per_second(url: str, duration: str = DURATION) -> float:
    for _ in range(3):  # warm the page cache in every worker
        urllib.request.urlopen(url, timeout=60).read()
    done = subprocess.run(["wrk", "-t2", "-c16", f"-d{duration}", url], capture_output=True, text=True, check=True)
    match = re.search(r"Requests/sec:\s+([\d.]+)", done.stdout)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", done.stdout)
    if errors:
        raise RuntimeError(f"{url}: {errors.group(1)} failed responses")
    return float(match.group(1))


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: scripts/system-packages.sh bench")

    workdir = setup()
    from tests.factories import make_cases, make_submissions

    versions = make_cases(1000)
    make_submissions(versions[0], 10_000)
    board = f"/cases/{versions[0].case.slug}/leaderboard/"
    env = {**os.environ, "DATABASE_URL": os.environ["DATABASE_URL"], "VAR_DIR": str(workdir),
           "DJANGO_SETTINGS_MODULE": "config.settings", "WEB_CONCURRENCY": "2", "LOG_LEVEL": "ERROR"}
    results = {}
    for label, cache_seconds in (("cached", "300"), ("uncached", "0")):
        port = free_port()
        server = start_server({**env, "PAGE_CACHE_SECONDS": cache_seconds}, port)
        try:
            base = f"http://127.0.0.1:{port}"
            trivial = requests_per_second(base + "/health/")
            case_list = requests_per_second(base + "/cases/")
            leaderboard = requests_per_second(base + board)
        finally:
            stop_server(server)
        results[label] = {"trivial_rps": trivial, "case_list_rps": case_list, "leaderboard_rps": leaderboard,
                          "case_list_ratio": case_list / trivial, "leaderboard_ratio": leaderboard / trivial}
    shutil.rmtree(workdir)
    if args.json:
        print(json.dumps(results))
    else:
        for label, figures in results.items():
            print(f"{label}: trivial view {figures['trivial_rps']:.0f} req/s; case list (1,000 cases) "
                  f"{figures['case_list_rps']:.0f} req/s, ratio {figures['case_list_ratio']:.2f}; leaderboard "
                  f"(10,000 submissions) {figures['leaderboard_rps']:.0f} req/s, ratio "
                  f"{figures['leaderboard_ratio']:.2f} (target >= 0.5)")
    return results


if __name__ == "__main__":
    main()
