"""The production path keeps every cap: `scripts/serve.sh` started by root (nginx, gunicorn and
task workers running as the site's own account, PostgreSQL over TCP), operators sending entries
over HTTP, and a second worker host (scripts/worker.sh) in a mount namespace of its own with a
state folder of its own, as another machine would run it.

What it shows: every build runs as an account of the launcher's range, never the site's, with its
memory, processes and processors capped; one operator's build holding ~500 processes does not fail
another's; a build with no sandbox waits in the queue and is built once the sandbox is back; one
operator's slow entries wait their turn while another's quick one goes first; look-alike names
are refused; a task worker and the launcher killed are started again; a second host takes jobs
beside the first (its own killed worker started again), its builds capped the same way, and
killing it mid-build loses nothing."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from catalog.tests.trees import ADDER_V1, VALID_CATALOG, CatalogTree
from engine.builds import pack_folder
from engine.tests import wat
from engine.tests.launchers import no_launcher_starting, starting_a_launcher
from scoring.tests.helpers import adder_answers
from tests.serve_stack import (
    ROOT,
    first_answer,
    free_port,
    launcher_socket,
    manage_as_site,
    pids_of,
    poll_json,
    postgres_database,
    processes_of,
    stop,
    uids_running,
)

pytestmark = [pytest.mark.slow, pytest.mark.long]

DONE = ("scored", "build_failed", "invalid_module", "error")
SLEEP = 3  # seconds a slow build sleeps (a build needs no processor to hold a worker)


def build_uid(log: str) -> int:
    """The account a build ran as: what its first command (`id -u`) printed."""
    return int(log.split("$ sh build.sh\n", 1)[1].split("\n", 1)[0])


class Site:
    """The served site, as an operator reaches it."""

    def __init__(self, port: int, env: dict, folder: Path, module: bytes):
        self.base = f"http://127.0.0.1:{port}"
        self.env = env
        self.folder = folder
        self.module = bytes(module)
        self.tokens: dict[str, str] = {}

    def token(self, operator: str) -> str:
        if operator not in self.tokens:
            self.tokens[operator] = manage_as_site(self.env, "api_token", "create", operator).stdout.splitlines()[-1]
        return self.tokens[operator]

    def source(self, name: str, script: str) -> bytes:
        """A submission folder (build.sh and the correct module), packed as a harness uploads it."""
        folder = self.folder / "sources" / name
        folder.mkdir(parents=True)
        (folder / "build.sh").write_text(script + "\ncp solution.wasm out.wasm\n")
        (folder / "solution.wasm").write_bytes(self.module)
        return pack_folder(folder, max_bytes=10 << 20)

    def send(self, operator: str, name: str, *, script: str | None = None, **fields) -> httpx.Response:
        files = {"source": ("entry.tar.gz", self.source(name, script))} if script is not None else {
            "wasm": ("solution.wasm", self.module)}
        return httpx.post(f"{self.base}/api/v1/submissions/",
                          headers={"Authorization": f"Bearer {self.token(operator)}"},
                          data={"case": "adder", "version": "v1", "name": name, **fields}, files=files, timeout=60)

    def entry(self, operator: str, name: str, **options) -> int:
        response = self.send(operator, name, **options)
        assert response.status_code == 202, response.text
        return response.json()["submission"]

    def query(self, sql: str) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.env["DATABASE_URL"]) as connection:
            return connection.execute(sql).fetchall()

    def document(self, submission: int) -> dict:
        return httpx.get(f"{self.base}/api/v1/submissions/{submission}/", timeout=10).json()

    def finished(self, submission: int, seconds: float = 120) -> dict:
        return poll_json(f"{self.base}/api/v1/submissions/{submission}/", lambda found: found["status"] in DONE,
                         seconds)

    def log(self, operator: str, submission: int) -> str:
        """The build log, as the entry's operator reads it."""
        response = httpx.get(f"{self.base}/api/v1/submissions/{submission}/detail",
                             headers={"Authorization": f"Bearer {self.token(operator)}"}, timeout=10)
        assert response.status_code == 200, response.text
        return response.json()["build_log"] + response.json()["detail"]


# Asks for 700 processes, counts what it was given (itself included), lets them go; then spins
# on two processes for 3 s and says how much processor time they got.
PROBE = """id -u
python3 - <<'PROBE'
import os, signal, time
children = []
try:
    while len(children) < 700:
        pid = os.fork()
        if pid == 0:
            os.execv("/bin/sleep", ["sleep", "30"])
        children.append(pid)
except OSError as refused:
    print("fork refused:", refused.strerror)
print("processes:", len(children) + 1)
for pid in children:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
until = time.monotonic() + 3
spinners = [os.fork() for _ in range(2)]
if 0 in spinners:
    while time.monotonic() < until:
        pass
    os._exit(0)
for child in spinners:
    os.waitpid(child, 0)
times = os.times()
print("cpu seconds:", round(times.children_user + times.children_system, 2))
PROBE"""
MEMORY = ("for i in 1 2 3 4; do python3 -c 'x = bytearray(100 << 20); import time; time.sleep(4)' & done; wait; "
          "exit 1")
HOG = "i=0; while [ $i -lt 490 ]; do sleep 12 & i=$((i + 1)); done; echo holding; sleep 10"


def _every_build_is_capped_and_never_the_sites_account(site: Site, uids: range) -> None:
    probe = site.entry("op-a", "probe", script=PROBE)
    assert site.finished(probe)["status"] == "scored", site.log("op-a", probe)
    log = site.log("op-a", probe)
    uid = build_uid(log)
    assert uid in uids and uid != pwd.getpwnam("fuelboard").pw_uid
    processes = int(log.split("processes: ", 1)[1].split()[0])
    assert 100 < processes <= 512, log  # the cgroup's and the account's own limit (SCORING_BUILD_PROCESSES)
    used = float(log.split("cpu seconds: ", 1)[1].split()[0])
    assert used < 2.5, log  # half a processor (SCORING_BUILD_CPUS) for 3 s: not the 6 s two cores would give
    assert "by its share of the processors (0.5)" in log
    hungry = site.entry("op-a", "hungry", script=MEMORY)
    found = site.finished(hungry)
    assert (found["status"], found["message"]) == (
        "build_failed", "the build ran out of memory: its processes and files may hold 268,435,456 bytes together")


def _a_build_holding_500_processes_does_not_fail_another_operators(site: Site) -> None:
    hog = site.entry("op-a", "hog", script=HOG)
    poll_json(f"{site.base}/api/v1/submissions/{hog}/", lambda found: found["status"] == "running", 60)
    time.sleep(3)  # its processes are up
    quick = site.entry("op-b", "bystander", script="true")
    found = site.finished(quick, 60)
    assert (found["status"], found["passed"]) == ("scored", True), site.log("op-b", quick)
    assert site.document(hog)["status"] == "running"  # the other build held its processes all along
    assert site.finished(hog)["status"] == "scored"


def _a_build_without_a_sandbox_waits_and_is_built_when_it_is_back(site: Site, var: Path) -> None:
    socket_path = Path(launcher_socket(var))
    hidden = socket_path.with_name("hidden.sock")
    socket_path.rename(hidden)  # the launcher cannot be reached (as when it restarts)
    try:
        waiting = site.entry("op-b", "waits", script="true")
        found = poll_json(f"{site.base}/api/v1/submissions/{waiting}/",
                          lambda document: document["message"] == "waiting for a build sandbox", 60)
        assert (found["status"], found["job"]) == ("pending", "queued")
        assert "cannot be reached" in site.log("op-b", waiting)  # the operator (and staff) see why
    finally:
        hidden.rename(socket_path)
    found = site.finished(waiting, 90)
    assert (found["status"], found["passed"]) == ("scored", True)
    assert site.query(f"SELECT attempt, sandbox_waits > 0 FROM scoring_submission WHERE id = {waiting}") == [(0, True)]
    after = site.entry("op-b", "after", script="true")  # the worker that met it builds the next job
    assert site.finished(after, 60)["status"] == "scored"


def _one_operators_slow_entries_wait_while_anothers_quick_one_goes_first(site: Site) -> None:
    slow = [site.entry("op-c", f"slow-{index}", script=f"sleep {SLEEP}") for index in range(4)]
    refused = site.send("op-c", "slow-4", script="true")  # the whole in-flight quota is taken
    assert (refused.status_code, refused.json()["code"]) == (429, "too_many_in_flight")
    assert site.document(slow[3])["queue"] == {"state": "waiting", "ahead": 3}
    quick = site.entry("op-d", "quick")
    assert site.finished(quick, 60)["status"] == "scored"
    # Its job started within one build's time of being queued: it waited for no slow build (the
    # queue's own clock, so a loaded machine's slower build and scoring of it do not count).
    [(waited,
      )] = site.query("SELECT EXTRACT(EPOCH FROM started_at - enqueued_at) FROM django_tasks_database_dbtaskresult "
                             f"WHERE args_kwargs -> 'args' -> 0 = '{quick}'::jsonb")
    assert waited < SLEEP, waited
    # The slow ones go one at a time, in order: some done, at most one running, the rest waiting
    # (how far they got while the quick one ran depends on the machine's load). One query reads
    # them all at one moment: read one by one, a build ending between two reads shows two running.
    found = dict(site.query(f"SELECT id, status FROM scoring_submission WHERE id IN ({', '.join(map(str, slow))})"))
    states = [found[entry] for entry in slow]
    order = ["scored", "running", "pending"]
    assert states.count("running") <= 1 and states == sorted(states, key=order.index), states
    assert states[-1] == "pending", states  # the quick one did not wait for them all
    for entry in slow:
        assert site.finished(entry, 4 * SLEEP + 60)["status"] == "scored"


def _look_alike_names_are_refused(site: Site) -> None:
    assert site.send("op-a", "alice").status_code == 202
    assert site.send("op-a", "\u0430\u0441\u0435").status_code == 202  # all Cyrillic: a name of its own
    for name, status, code in (("aIice", 403, "name_taken"), ("ace", 403, "name_taken"),
                               ("alice\u206a", 422, "bad_name"), ("alice\U0001bca0", 422, "bad_name"),
                               ("\u0301alice", 422, "bad_name")):
        response = site.send("op-b", name)
        assert response.status_code == status, (name, response.text)
        assert code is None or response.json()["code"] == code


def _a_killed_task_worker_and_launcher_are_started_again(site: Site, var: Path, log: Path) -> range:
    """The machine kills a task worker and the build launcher (out of memory, say): make serve
    starts each again, says so, and the site goes on scoring. A launcher that will not start again
    at first (here: the machine's folder of build-account blocks made writable by all) is tried
    again later while the site is served. Returns the new launcher's build uids."""
    workers = pids_of("db_worker", var)
    assert len(workers) == 2, workers
    ranges = Path("/run/fuelboard-build-ranges")
    with no_launcher_starting():  # elsewhere on the machine (other tests) while the folder is unusable
        ranges.chmod(0o777)
        try:
            os.kill(workers[0], signal.SIGKILL)
            os.kill(pids_of("build-launcher", var)[0], signal.SIGKILL)
            deadline = time.monotonic() + 60
            while "the build launcher did not start again (its message is above): trying again in 2s" not in (
                    said := log.read_text()):
                assert time.monotonic() < deadline, said[-3000:]
                time.sleep(0.2)
            assert "writable by root alone" in said
            assert httpx.get(f"{site.base}/health/", timeout=10).status_code == 200  # served all along
        finally:
            ranges.chmod(0o700)
    deadline = time.monotonic() + 60
    while not ("starting 1 task worker(s) again" in (said := log.read_text())
               and "the build launcher stopped: starting it again" in said and len(pids_of("db_worker", var)) == 2
               and pids_of("build-launcher", var)):
        assert time.monotonic() < deadline, said[-3000:]
        time.sleep(0.2)
    assert "(exit status 137)" in said  # the line names how it stopped
    entry = site.entry("op-a", "after-the-restarts", script="id -u")
    assert site.finished(entry)["status"] == "scored"
    status = json.loads(manage_as_site({**site.env, "SCORING_BUILD_LAUNCHER": launcher_socket(var)}, "sandbox_status",
                                       "--json").stdout)
    assert build_uid(site.log("op-a", entry)) in range(status["uids"][0], status["uids"][1] + 1)
    return range(status["uids"][0], status["uids"][1] + 1)


def _worker_host(env: dict, hide: Path, var: Path, output: Path) -> subprocess.Popen:
    """scripts/worker.sh as another machine would run it: its own state folder, no view of the
    first host's state or launcher (a mount namespace of its own), PostgreSQL over TCP. The
    machine-wide folder where launchers claim their blocks of build accounts stays shared: the
    kernel's uids and cgroups are this machine's either way."""
    script = ("mount -t tmpfs -o mode=0755 tmpfs /run/fuelboard-launcher && "
              f"mount -t tmpfs -o mode=0700 tmpfs {hide} && exec scripts/worker.sh")
    with open(output, "w") as log:
        return subprocess.Popen(["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script], cwd=ROOT,
                                env={**env, "VAR_DIR": str(var), "TASK_WORKERS": "1"}, start_new_session=True,
                                stdout=log, stderr=subprocess.STDOUT)


def _build_uids(site: Site, entries: dict[str, int]) -> dict[str, int]:
    return {operator: build_uid(site.log(operator, entry)) for operator, entry in entries.items()}


def _a_second_host_takes_jobs_and_killing_it_loses_nothing(site: Site, env: dict, state: Path, first: range) -> None:
    output = state / "worker-host.log"
    host = _worker_host(env, state / "var", state / "var2", output)
    try:
        deadline = time.monotonic() + 120
        with starting_a_launcher():  # the host starts one of its own
            while "worker host: 1 workers" not in output.read_text():
                assert host.poll() is None, output.read_text()
                assert time.monotonic() < deadline
                time.sleep(0.2)
        low, high = json.loads(output.read_text().split("build uids ", 1)[1].split("\n", 1)[0])
        second = range(low, high + 1)  # its own launcher's accounts
        # Its one task worker killed: the host starts another, and says so.
        os.kill(pids_of("db_worker", state / "var2")[0], signal.SIGKILL)
        while not ("starting 1 task worker(s) again" in output.read_text() and pids_of("db_worker", state / "var2")):
            assert host.poll() is None, output.read_text()
            assert time.monotonic() < deadline + 60
            time.sleep(0.2)
        # Three operators, one entry each, three workers (two here, one there): each takes one.
        entries = {operator: site.entry(operator, f"{operator}-round-1", script="id -u; sleep 2")
                   for operator in ("op-a", "op-b", "op-c")}
        for entry in entries.values():
            assert site.finished(entry)["status"] == "scored"
        uids = _build_uids(site, entries)
        assert sorted(uid in second for uid in uids.values()) == [False, False, True], uids  # one built there
        assert all(uid in first or uid in second for uid in uids.values())
        # Again, and the second host is killed in the middle of its build.
        entries = {operator: site.entry(operator, f"{operator}-round-2", script=f"id -u; sleep {SLEEP}")
                   for operator in ("op-a", "op-b", "op-c")}
        deadline = time.monotonic() + 60
        while not (remote := [pid for pid, uid in uids_running().items() if uid in second]):
            assert time.monotonic() < deadline, "the second host took no job"
            time.sleep(0.2)
        cgroup = Path(f"/proc/{remote[0]}/cgroup").read_text()
        assert "fuelboard-build-" in cgroup  # capped there as here
        os.killpg(host.pid, signal.SIGKILL)
        host.wait(timeout=30)
        time.sleep(4)  # its heartbeat stops
        manage_as_site(env, "requeue_stale_jobs", "--stale-after", "3")
        for entry in entries.values():
            found = site.finished(entry, 4 * SLEEP + 60)
            assert (found["status"], found["passed"], len(found["results"])) == ("scored", True, 3), found
    finally:
        if host.poll() is None:
            os.killpg(host.pid, signal.SIGKILL)
            host.wait(timeout=30)


def test_the_production_path_caps_every_build_and_keeps_the_queue_fair(tmp_path):
    if os.geteuid() != 0:  # no account and no cgroup can be given a build: the site says so and stops
        done = subprocess.run(["scripts/serve.sh"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "VAR_DIR": str(tmp_path / "var"), "PORT": str(free_port())})
        assert done.returncode != 0 and "builds cannot be confined here" in done.stderr
        return
    state = Path(tempfile.mkdtemp(prefix="fuelboard-caps-"))
    state.chmod(0o755)
    tree = CatalogTree(state / "catalog")
    shutil.copytree(VALID_CATALOG / ADDER_V1, tree.root / ADDER_V1)
    tree.edit('build = "cp solution.wasm out.wasm"', 'build = "sh build.sh"')
    module = wat.lookup(adder_answers(tree))
    port = free_port()
    with postgres_database() as database:
        env = {**os.environ, "DATABASE_URL": database, "SECRET_KEY": "s" * 50, "VAR_DIR": str(state / "var"),
               "STATIC_ROOT": str(state / "static"), "WEB_CONCURRENCY": "2", "TASKS_BACKEND": "database",
               "TASK_WORKERS": "2", "FRONT_RATE": "0", "FRONT_CONNECTIONS": "0", "SCORING_OPERATOR_JOBS": "1",
               "API_SUBMISSIONS_IN_FLIGHT": "4",
               "API_REQUESTS_PER_HOUR": "1000", "API_BUILD_WALL_SECONDS": "120", "SCORING_BUILD_CPUS": "0.5",
               "SCORING_BUILD_TOTAL_MEMORY_BYTES": str(256 << 20), "SCORING_BUILD_PROCESSES": "512",
               "SCORING_SANDBOX_RETRY_SECONDS": "1", "SCORING_HEARTBEAT_SECONDS": "1", "LOG_LEVEL": "WARNING"}
        env.pop("DJANGO_SETTINGS_MODULE", None)
        with open(state / "serve.log", "w") as log, starting_a_launcher():
            server = subprocess.Popen(["scripts/serve.sh"], cwd=ROOT, env={**env, "PORT": str(port)},
                                      start_new_session=True, stdout=log, stderr=subprocess.STDOUT)
            answered = first_answer(server, f"http://127.0.0.1:{port}/health/", 240)
        try:
            assert answered[0] == 200
            manage_as_site(env, "import_catalog", str(tree.root))
            status = json.loads(manage_as_site({**env, "SCORING_BUILD_LAUNCHER": launcher_socket(state / "var")},
                                               "sandbox_status", "--json").stdout)
            uids = range(status["uids"][0], status["uids"][1] + 1)
            site = Site(port, env, state, module)
            _every_build_is_capped_and_never_the_sites_account(site, uids)
            _a_build_holding_500_processes_does_not_fail_another_operators(site)
            _a_build_without_a_sandbox_waits_and_is_built_when_it_is_back(site, state / "var")
            _one_operators_slow_entries_wait_while_anothers_quick_one_goes_first(site)
            _look_alike_names_are_refused(site)
            # The launcher started again claims a block of build accounts afresh.
            uids = _a_killed_task_worker_and_launcher_are_started_again(site, state / "var", state / "serve.log")
            _a_second_host_takes_jobs_and_killing_it_loses_nothing(site, env, state, uids)
        finally:
            stop(server)
    shutil.rmtree(state, ignore_errors=True)


def test_a_worker_host_whose_set_up_fails_leaves_nothing_running(tmp_path):
    """The launcher is started before the workers' set-up; a set-up that fails takes it down too."""
    if os.geteuid() != 0:
        pytest.skip("only root starts a build launcher")
    state = Path(tempfile.mkdtemp(prefix="fuelboard-host-"))
    state.chmod(0o755)
    var = state / "var"
    try:
        with starting_a_launcher():
            done = subprocess.run(["scripts/worker.sh"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                                  env={**os.environ, "VAR_DIR": str(var), "STANDINGS_REFRESH_SECONDS": "often",
                                       "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"})
        assert "build launcher on" in done.stderr, done.stderr  # it had started
        assert done.returncode != 0 and "STANDINGS_REFRESH_SECONDS" in done.stderr, done.stderr
        assert processes_of("build-launcher", var) == []
    finally:
        shutil.rmtree(state, ignore_errors=True)
