"""The production path in tests: `make serve` (scripts/serve.sh) and a worker host
(scripts/worker.sh) as they run, root starting them and the site running as its own account.

Helpers only: a free port, the first answer of a server starting up, `manage.py` as the site's
account, the processes of a stack, and a PostgreSQL database reachable over TCP (the suite's own
server when it runs on PostgreSQL, else a throwaway one started for the test)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str, **headers) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, dict(response.headers), response.read()


def first_answer(server: subprocess.Popen, url: str, seconds: float) -> tuple[int, dict, bytes]:
    """The first answer of a server starting up (an error status fails at once: nginx is up, the
    site behind it is not)."""
    deadline = time.monotonic() + seconds
    while True:
        assert server.poll() is None, server.stdout.read() if server.stdout else f"the server stopped ({server.args})"
        try:
            return get(url)
        except urllib.error.HTTPError as error:
            answer = f"{url} answered {error.code}: {error.read()[:300]!r}"
            try:  # a stack whose start failed behind a running nginx: say why it failed
                server.wait(timeout=5)
            except subprocess.TimeoutExpired:
                raise AssertionError(answer) from None
            output = server.stdout.read()[-5000:] if server.stdout else ""
            raise AssertionError(f"{answer}; the server stopped ({server.returncode}):\n{output}") from None
        except OSError:
            assert time.monotonic() < deadline, f"{url} did not answer within {seconds:g} s"
            time.sleep(0.5)


def stop(server: subprocess.Popen) -> None:
    """Stop a stack started in a session of its own: TERM (each script stops what it started),
    then KILL whatever is still there after 30 s."""
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=30)


def launcher_socket(var: Path) -> str:
    """Where scripts/launcher.sh puts the launcher of the site whose state is `var` (as root)."""
    return f"/run/fuelboard-launcher/{hashlib.sha1(str(var).encode()).hexdigest()[:16]}/launcher.sock"


def front_folder(var: Path) -> Path:
    """Where scripts/serve.sh keeps nginx's files: root's own folder under /run when it runs as root."""
    if os.geteuid() == 0:
        return Path("/run/fuelboard-front") / hashlib.sha1(str(var).encode()).hexdigest()[:16]
    return var / "nginx"


def manage_as_site(env: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """manage.py against the served site's state, as the account the site runs as."""
    command = [str(ROOT / ".venv" / "bin" / "python"), "manage.py", *args]
    if os.geteuid() == 0:
        command = ["/usr/sbin/runuser", "-u", "fuelboard", "--", "env", f"HOME={env['VAR_DIR']}", *command]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=check)


def processes_of(command_fragment: str, var: Path | None = None) -> list[tuple[int, str]]:
    """(uid, command line) of the processes running `command_fragment` (with VAR_DIR `var`)."""
    return [(uid, command) for _, uid, command in _running(command_fragment, var)]


def pids_of(command_fragment: str, var: Path | None = None) -> list[int]:
    """The processes running `command_fragment` (with VAR_DIR `var`)."""
    return [pid for pid, _, _ in _running(command_fragment, var)]


def _running(command_fragment: str, var: Path | None) -> list[tuple[int, int, str]]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit():
                continue
            if var is not None and f"VAR_DIR={var}\0".encode() not in (entry / "environ").read_bytes():
                continue
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
            if command_fragment in command:
                uid = next(line for line in (entry / "status").read_text().splitlines() if line.startswith("Uid:"))
                found.append((int(entry.name), int(uid.split()[1]), command))
        except (OSError, StopIteration):
            continue
    return found


def uids_running() -> dict[int, int]:
    """pid → uid of every process on the machine."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = next(line for line in (entry / "status").read_text().splitlines() if line.startswith("Uid:"))
        except (OSError, StopIteration):
            continue
        found[int(entry.name)] = int(line.split()[1])
    return found


def _suites_postgres() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else None


@contextmanager
def postgres_database() -> Iterator[str]:
    """The URL of an empty PostgreSQL database reachable over TCP, dropped afterwards (with its
    server, when one was started for it)."""
    import psycopg

    server = None
    url = _suites_postgres()
    if url is None:
        server = _ThrowawayServer()
        url = server.url
    name = f"serve_{uuid.uuid4().hex[:12]}"
    admin = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(url)._replace(path=f"/{name}"))
    finally:
        if server is not None:
            server.stop()
        else:
            with psycopg.connect(admin, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class _ThrowawayServer:
    """A PostgreSQL server in a temporary folder on a free loopback port (as scripts/with-postgres.sh
    starts one), run as the `postgres` account when this is root."""

    def __init__(self):
        binaries = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda path: int(path.parent.name))
        assert binaries, "PostgreSQL's server binaries are not installed"
        self.bin = binaries[-1]
        self.folder = Path(tempfile.mkdtemp(prefix="fuelboard-postgres-"))
        self.port = free_port()
        self.prefix = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres")
            self.prefix = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.folder / "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--locale=C.UTF-8")
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-l", str(self.folder / "server.log"), "-w", "-o",
                  f"-h 127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off -c synchronous_commit=off "
                  "-c full_page_writes=off -c max_connections=200", "start")
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *arguments: str) -> None:
        done = subprocess.run([*self.prefix, str(self.bin / program), *arguments], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


def poll_json(url: str, done, seconds: float, interval: float = 0.5) -> dict:
    """GET `url` (a JSON document) until `done(document)`; fails after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        document = json.loads(get(url)[2])
        if done(document):
            return document
        assert time.monotonic() < deadline, f"{url} still says {document.get('status')} after {seconds:g} s"
        time.sleep(interval)
