"""A build-dominated sweep on one worker host, then on two (the production path, as root).

The web machine is `scripts/serve.sh` with one task worker; the second host is `scripts/worker.sh`
with one more, its own state folder, on the same PostgreSQL (over TCP: run this with
scripts/with-postgres.sh, as bench/run.py does). An operator sends ENTRIES source archives over
HTTP whose build spends BUILD_SECONDS of processor time (a build's cgroup gives it one
processor: SCORING_BUILD_CPUS=1), then the same number again once the second host is up; the
figure is entries finished a minute, from the first upload to the last entry final, on one host
and on two, and the ratio of the two. On a machine with two free processors, two hosts should
finish about twice as many; the row says what this machine gave.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from pages import free_port, wait_until_serving

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BUILD = """python3 - <<'SPIN'
import time
until = time.process_time() + {seconds}
while time.process_time() < until:
    pass
SPIN
cp solution.wasm out.wasm
"""


def catalog(folder: Path) -> bytes:
    """The test catalog's adder v1, built by the submission's own build.sh; and its correct module."""
    from catalog.tests.trees import ADDER_V1, VALID_CATALOG, CatalogTree
    from engine.tests import wat
    from scoring.tests.helpers import adder_answers

    tree = CatalogTree(folder)
    shutil.copytree(VALID_CATALOG / ADDER_V1, tree.root / ADDER_V1)
    tree.edit('build = "cp solution.wasm out.wasm"', 'build = "sh build.sh"')
    return bytes(wat.lookup(adder_answers(tree)))


def archive(module: bytes, seconds: float) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as packed:
        for name, content in (("entry/build.sh", BUILD.format(seconds=seconds).encode()),
                              ("entry/solution.wasm", module),
                              ("entry/nonce", uuid.uuid4().hex.encode())):  # each entry a source of its own
            info = tarfile.TarInfo(name)
            info.size = len(content)
            packed.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def sweep(base: str, token: str, module: bytes, entries: int, seconds: float, tag: str) -> float:
    """Seconds from the first upload to the last entry final."""
    started = time.perf_counter()
    sent = []
    for index in range(entries):
        response = httpx.post(f"{base}/api/v1/submissions/", headers={"Authorization": f"Bearer {token}"},
                              data={"case": "adder", "version": "v1", "name": f"{tag}-{index}"},
                              files={"source": ("entry.tar.gz", archive(module, seconds))}, timeout=60)
        if response.status_code != 202:
            raise RuntimeError(f"upload refused: {response.status_code} {response.text[:300]}")
        sent.append(response.json()["submission"])
    deadline = time.monotonic() + 600
    for submission in sent:
        while (status := httpx.get(f"{base}/api/v1/submissions/{submission}/").json()["status"]) in ("pending",
                                                                                                     "running"):
            if time.monotonic() > deadline:
                raise RuntimeError("the sweep did not finish")
            time.sleep(0.2)
        if status != "scored":
            raise RuntimeError(f"#{submission} ended {status}")
    return time.perf_counter() - started


def site_command(env: dict, *arguments: str) -> str:
    command = [str(ROOT / ".venv" / "bin" / "python"), "manage.py", *arguments]
    if os.geteuid() == 0:
        command = ["/usr/sbin/runuser", "-u", "fuelboard", "--", "env", f"HOME={env['VAR_DIR']}", *command]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout


def measure(entries: int, seconds: float) -> dict:
    database = os.environ.get("DATABASE_URL", "")
    if not database.startswith(("postgres://", "postgresql://")):
        raise SystemExit("a worker host needs PostgreSQL: run this with scripts/with-postgres.sh")
    state = Path(tempfile.mkdtemp(prefix="fuelboard-hosts-"))
    state.chmod(0o755)
    module = catalog(state / "catalog")
    env = {**os.environ, "SECRET_KEY": "b" * 50, "VAR_DIR": str(state / "var"), "STATIC_ROOT": str(state / "static"),
           "TASKS_BACKEND": "database", "TASK_WORKERS": "1", "WEB_CONCURRENCY": "2", "FRONT_RATE": "0",
           "FRONT_CONNECTIONS": "0", "SCORING_OPERATOR_JOBS": "100", "API_SUBMISSIONS_IN_FLIGHT": "1000",
           "API_SUBMISSIONS_PER_HOUR": "10000", "API_REQUESTS_PER_HOUR": "10000", "SCORING_BUILD_CPUS": "1",
           "LOG_LEVEL": "ERROR"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    port = free_port()
    web = subprocess.Popen(["scripts/serve.sh"], cwd=ROOT, env={**env, "PORT": str(port)}, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    second = None
    try:
        wait_until_serving(port, "scripts/serve.sh")
        site_command(env, "import_catalog", str(state / "catalog"))
        token = site_command(env, "api_token", "create", "sweeper").splitlines()[-1]
        base = f"http://127.0.0.1:{port}"
        one = sweep(base, token, module, entries, seconds, "one")
        second = subprocess.Popen(["scripts/worker.sh"], cwd=ROOT, env={**env, "VAR_DIR": str(state / "var2")},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(5)  # its launcher and worker are up
        two = sweep(base, token, module, entries, seconds, "two")
    finally:
        for process in (second, web):
            if process is not None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=60)
        shutil.rmtree(state, ignore_errors=True)
    return {"entries": entries, "build_cpu_s": seconds, "cores": os.cpu_count(),
            "one_host_s": one, "two_hosts_s": two, "one_per_min": 60 * entries / one, "two_per_min": 60 * entries / two,
            "ratio": one / two}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=2.0, help="processor seconds each build spends")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--postgres", action="store_true", help="(always: DATABASE_URL must be PostgreSQL)")
    arguments = parser.parse_args()
    result = measure(arguments.entries, arguments.seconds)
    if arguments.json:
        print(json.dumps(result))
    else:
        print(f"{result['entries']} builds of {result['build_cpu_s']:g} processor-seconds: one host "
              f"{result['one_host_s']:.1f} s, two hosts {result['two_hosts_s']:.1f} s ({result['ratio']:.2f}×)")


if __name__ == "__main__":
    main()
