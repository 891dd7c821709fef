"""Slow clients against the production path: nginx in front of gunicorn (scripts/serve.sh).

wrk loads the case list (1,000 cases, page cache on) three ways: through nginx alone; through
nginx while 200 connections each send a header byte every 2 s and never finish; and, for
comparison, gunicorn alone (its 2 sync workers facing clients) with just 10 such connections.
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
import threading
import time

from _django import ROOT, setup
from pages import free_port, start_server, stop_server, wait_until_serving


def wrk(url: str) -> dict:
    done = subprocess.run(["wrk", "-t2", "-c16", "-d5s", "--timeout", "2s", url], capture_output=True, text=True,
                          check=True)
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", done.stdout).group(1))
    timeouts = re.search(r"timeout (\d+)", done.stdout)
    return {"rps": rate, "timeouts": int(timeouts.group(1)) if timeouts else 0}


class SlowClients:
    def __init__(self, port: int, count: int):
        self.connections = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
        for connection in self.connections:
            connection.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.drip, daemon=True)
        self.thread.start()

    def drip(self) -> None:
        while not self.stop.wait(2):
            for connection in self.connections:
                try:
                    connection.sendall(b"X")
                except OSError:
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        for connection in self.connections:
            connection.close()


def start_front(env: dict, port: int) -> subprocess.Popen:
    front = subprocess.Popen(["scripts/serve.sh"], cwd=ROOT, env={**env, "PORT": str(port)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_until_serving(port, "scripts/serve.sh")
    return front


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    workdir = setup()
    workdir.chmod(0o755)  # under root, nginx's workers (www-data) must reach the socket in it
    from tests.factories import make_cases

    make_cases(1000)
    env = {**os.environ, "VAR_DIR": str(workdir), "DJANGO_SETTINGS_MODULE": "config.settings", "WEB_CONCURRENCY": "2",
           "LOG_LEVEL": "ERROR", "PAGE_CACHE_SECONDS": "300",
           # wrk's connections all come from one address: the per-client limits would measure themselves.
           "FRONT_RATE": "0", "FRONT_CONNECTIONS": "0"}
    result = {}
    port = free_port()
    front = start_front(env, port)
    try:
        url = f"http://127.0.0.1:{port}/cases/"
        result["nginx"] = wrk(url)
        slow = SlowClients(port, 200)
        time.sleep(3)
        try:
            result["nginx_200_slow"] = wrk(url)
        finally:
            slow.close()
    finally:
        os.killpg(front.pid, signal.SIGTERM)
        front.wait(timeout=30)
    port = free_port()
    server = start_server(env, port)
    try:
        slow = SlowClients(port, 10)
        time.sleep(3)
        try:
            result["gunicorn_10_slow"] = wrk(f"http://127.0.0.1:{port}/cases/")
        finally:
            slow.close()
    finally:
        stop_server(server)
    shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    sys.exit(main() and 0)
