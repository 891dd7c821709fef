"""Entries over HTTP: prebuilt modules uploaded through nginx, against `score_many` on the same modules.

LINES distinct correct modules for adder v1 of the test catalog are scored twice into fresh SQLite
files. First through the production path, `scripts/serve.sh` (nginx in front of gunicorn, with
TASKS_BACKEND=database and its `db_worker` processes, one per core): two clients, each from an
address of its own (the upload location takes one upload at a time per address), POST every module
to /api/v1/submissions/ with an operator's token, then poll their entries until each is final.
Then the same modules in one `score_many --jobs <cores>`. Both must store the same entries and
fuel; the figure is entries scored per second, from the first byte sent to the last entry final,
and the ratio of the two (the target is ≥ 0.5). nginx's per-client request rate is off, and the
operator's quotas raised, so that they do not measure themselves.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

from pages import free_port, wait_until_serving
from score_many import ROOT, fresh, manage, modules, stored

CLIENT_ADDRESSES = ("127.0.0.2", "127.0.0.3")
UNFINISHED = {"pending", "running"}


def multipart(fields: dict[str, str], name: str, payload: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
             for key, value in fields.items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="wasm"; filename="{name}"\r\n'
                 "Content-Type: application/wasm\r\n\r\n".encode() + payload + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


class Client:
    """One harness: its own source address, one keep-alive connection, its uploads in turn."""

    def __init__(self, port: int, address: str, token: str):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=(address, 0))
        self.headers = {"Authorization": f"Bearer {token}"}
        self.ids: list[int] = []
        self.refused: list[str] = []

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None) -> tuple[int,
                                                                                                               dict]:
        self.connection.request(method, path, body=body, headers={**self.headers, **(headers or {})})
        response = self.connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")

    def upload(self, paths: list[Path]) -> None:
        for path in paths:
            body, content_type = multipart({"case": "adder", "version": "v1", "name": path.stem,
                                            "meta": json.dumps({"model": "bench"})}, path.name, path.read_bytes())
            status, document = self.request("POST", "/api/v1/submissions/", body, {"Content-Type": content_type})
            if status == 202:
                self.ids.append(document["submission"])
            else:
                self.refused.append(f"{path.name}: {status} {document.get('code')}")

    def wait_final(self, deadline: float) -> None:
        pending = list(self.ids)
        while pending:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{len(pending)} uploads never reached a final status")
            status, document = self.request("GET", f"/api/v1/submissions/{pending[0]}/")
            if status == 200 and document.get("status") not in UNFINISHED:
                pending.pop(0)
            else:
                time.sleep(0.1)


def over_http(env: dict, paths: list[Path], token: str) -> float:
    """Seconds from the first upload to the last entry final, through scripts/serve.sh."""
    port = free_port()
    front = subprocess.Popen(["scripts/serve.sh"], cwd=ROOT, env={**env, "PORT": str(port)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_until_serving(port, "scripts/serve.sh")
        clients = [Client(port, address, token) for address in CLIENT_ADDRESSES]
        shares = [paths[index::len(clients)] for index in range(len(clients))]
        started = time.perf_counter()
        threads = [threading.Thread(target=client.upload, args=(share,)) for client, share in zip(clients, shares)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        refused = [line for client in clients for line in client.refused]
        if refused:
            raise RuntimeError("uploads refused: " + "; ".join(refused[:5]))
        deadline = time.monotonic() + 600
        threads = [threading.Thread(target=client.wait_final, args=(deadline,)) for client in clients]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        if sum(len(client.ids) for client in clients) != len(paths):
            raise RuntimeError("not every upload was accepted")
        return elapsed
    finally:
        os.killpg(front.pid, signal.SIGTERM)
        try:
            front.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(front.pid, signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=24)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-uploads-"))
    workdir.chmod(0o755)  # under root, the site's account and nginx's workers must reach the folders in it
    try:
        modules_dir = workdir / "modules"
        modules_dir.mkdir()
        paths = modules(modules_dir, args.lines)
        jobs = os.cpu_count() or 1
        http_env = {**fresh(workdir / "http"), "TASKS_BACKEND": "database", "TASK_WORKERS": str(jobs),
                    "WEB_CONCURRENCY": str(jobs * 2 + 1), "FRONT_RATE": "0", "FRONT_CONNECTIONS": "0",
                    "API_SUBMISSIONS_PER_HOUR": str(args.lines * 10), "API_SUBMISSIONS_IN_FLIGHT": str(args.lines * 10),
}
        (workdir / "http").chmod(0o755)
        token = manage(http_env, "api_token", "create", "harness", "--label", "bench").stdout.split()[-1]
        http_s = over_http(http_env, paths, token)

        batch = fresh(workdir / "many")
        sweep = modules_dir / "sweep.jsonl"
        sweep.write_text("".join(json.dumps({"slug": "adder", "version": "v1", "name": path.stem,
                                             "wasm": path.name, "meta": {"model": "bench"}}) + "\n" for path in paths))
        started = time.perf_counter()
        report = json.loads(manage(batch, "score_many", str(sweep), "--jobs", str(jobs), "--json").stdout)
        batch_s = time.perf_counter() - started
        assert report["scored"] == args.lines, report
        assert stored(http_env) == stored(batch)  # the same entries, the same fuel
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    result = {"lines": args.lines, "jobs": jobs, "http_s": http_s, "batch_s": batch_s,
              "http_per_s": args.lines / http_s, "batch_per_s": args.lines / batch_s, "ratio": batch_s / http_s}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.lines} modules: uploaded through nginx and scored by {jobs} workers {http_s:.1f} s "
              f"({result['http_per_s']:.2f}/s); score_many --jobs {jobs} {batch_s:.1f} s "
              f"({result['batch_per_s']:.2f}/s): "
              f"{result['ratio']:.2f}x")


if __name__ == "__main__":
    main()
