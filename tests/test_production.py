"""The production path: security headers, `check --deploy`, and `make serve`: nginx before gunicorn."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from catalog.importer import import_catalog
from engine.tests.launchers import starting_a_launcher
from tests import bundled
from tests.serve_stack import (
    first_answer,
    free_port,
    front_folder,
    get,
    launcher_socket,
    manage_as_site,
    processes_of,
    stop,
)

ROOT = Path(__file__).resolve().parent.parent

# The production settings the manual documents (docs/operating.md, "Deploying").
PRODUCTION_ENV = {
    "SECRET_KEY": secrets.token_urlsafe(50),
    "DEBUG": "0",
    "ALLOWED_HOSTS": "fuel.example.org",
    "HTTPS": "1",
    "TRUST_X_FORWARDED_PROTO": "1",
    "STATIC_MANIFEST": "1",
    "TASKS_BACKEND": "database",
}


@pytest.mark.django_db
def test_every_response_carries_the_security_headers(client, catalog):
    assert import_catalog(catalog.root).ok
    for url in ("/", "/cases/adder/", "/cases/adder/leaderboard/", "/api/v1/cases/", "/cases/nope/"):
        response = client.get(url)
        policy = response["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["Referrer-Policy"] == "same-origin"
        assert response["X-Frame-Options"] == "DENY"


@pytest.mark.django_db
def test_pages_need_no_inline_script_or_style(client, catalog):
    """What the policy forbids, the pages must not use."""
    assert import_catalog(catalog.root).ok
    for url in ("/", "/cases/?difficulty=easy", "/cases/adder/", "/cases/adder/leaderboard/", "/cases/nope/"):
        html = client.get(url).content.decode()
        assert not re.search(r"<script(?![^>]*\bsrc=)", html), url
        assert not re.search(r"\sstyle=|<style", html), url
        assert not re.search(r"\son[a-z]+=", html), url


def _run(args: list[str], env: dict, **options) -> subprocess.CompletedProcess:
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DJANGO_SETTINGS_MODULE": "config.settings"}
    return subprocess.run(args, cwd=ROOT, env={**base, **env}, capture_output=True, text=True, **options)


def test_check_deploy_is_clean_with_the_documented_production_settings(tmp_path):
    done = _run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                {**PRODUCTION_ENV, "VAR_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_without_https_settings_check_deploy_warns(tmp_path):
    """The check really looks: the same settings without HTTPS are not production-ready."""
    env = {**PRODUCTION_ENV, "VAR_DIR": str(tmp_path)}
    del env["HTTPS"]
    done = _run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)
    assert done.returncode != 0
    assert "security.W012" in done.stderr  # SESSION_COOKIE_SECURE


def test_https_makes_cookies_secure_and_enables_hsts(tmp_path):
    code = ("from django.conf import settings as s; import django; django.setup(); "
            "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS)")
    on = _run([sys.executable, "-c", code], {**PRODUCTION_ENV, "VAR_DIR": str(tmp_path)})
    assert on.stdout.split() == ["True", "True", "True", "31536000"], on.stderr
    off = _run([sys.executable, "-c", code], {"VAR_DIR": str(tmp_path)})
    assert off.stdout.split() == ["False", "False", "False", "0"], off.stderr


def test_the_site_loads_before_gunicorn_forks_without_a_thread_or_a_connection(tmp_path):
    """gunicorn loads the site once and forks each worker from it (config/gunicorn.py): a thread
    or a database connection opened while loading would be shared by every worker."""
    code = ("import os; import config.wsgi; from django.db import connections; "
            "print(len(os.listdir('/proc/self/task')), sum(c.connection is not None for c in connections.all()), "
            "'api.main' in __import__('sys').modules)")
    done = _run([sys.executable, "-c", code], {**PRODUCTION_ENV, "VAR_DIR": str(tmp_path)})
    assert done.stdout.split() == ["1", "0", "True"], done.stderr  # every view loaded, nothing running


SLOW_CLIENTS = 200


def _ordinary_requests_survive_slow_clients(port: int) -> None:
    """200 connections that send a header byte every 2 s, and never finish, hold no worker:
    ordinary requests are still answered promptly (nginx reads requests whole first)."""
    stop = threading.Event()
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(SLOW_CLIENTS)]
    for connection in slow:
        connection.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")

    def drip() -> None:
        while not stop.wait(2):
            for connection in slow:
                try:
                    connection.sendall(b"X")
                except OSError:
                    pass

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    try:
        time.sleep(3)  # the slow clients are all connected and dripping
        for _ in range(3):
            for path in ("/health/", "/cases/", "/cases/lattice/", "/standings/", "/api/v1/cases/"):
                started = time.monotonic()
                status, _, _ = get(f"http://127.0.0.1:{port}{path}")
                assert status == 200 and time.monotonic() - started < 2, path
    finally:
        stop.set()
        dripper.join()
        for connection in slow:
            connection.close()


def _manage(env: dict, *args: str) -> str:
    return manage_as_site(env, *args).stdout


def _nothing_runs_as_root_and_only_nginx_reaches_the_socket(var: Path, port: int) -> None:
    """Started as root, gunicorn and its workers run as the site's account; the socket's folder
    admits only that account and nginx's group; the database is the site's alone."""
    import grp
    import pwd

    app = pwd.getpwnam("fuelboard")
    gunicorns = processes_of("config/gunicorn.py", var)  # this server's (other tests may serve too)
    assert len(gunicorns) >= 3, gunicorns  # the arbiter and two workers
    assert {uid for uid, _ in gunicorns} == {app.pw_uid}
    assert [uid for uid, _ in processes_of("db_worker", var)] == [app.pw_uid] * 3  # TASK_WORKERS
    nginx_workers = [uid for uid, command in processes_of("nginx: worker")]
    assert nginx_workers and set(nginx_workers) == {pwd.getpwnam("www-data").pw_uid}
    run = var / "run"
    assert (run.stat().st_uid, grp.getgrgid(run.stat().st_gid).gr_name, oct(run.stat().st_mode & 0o7777)) == (
        app.pw_uid, "www-data", "0o750")
    assert oct(var.stat().st_mode & 0o777) == "0o710"
    socket_file = (run / "gunicorn.sock").stat()
    assert socket_file.st_mode & 0o007 == 0 and grp.getgrgid(socket_file.st_gid).gr_name == "www-data"
    for name in ("serve.sqlite3", "secret_key"):
        info = (var / name).stat()
        assert (info.st_uid, info.st_mode & 0o077) == (app.pw_uid, 0), name
    # Another local account cannot talk to gunicorn directly.
    connect = f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({str(run / 'gunicorn.sock')!r})"
    probe = subprocess.run(["/usr/sbin/runuser", "-u", "nobody", "--", "/usr/bin/python3", "-c", connect],
                           capture_output=True, text=True)
    assert probe.returncode != 0 and "Permission denied" in probe.stderr, probe.stderr


def _upload_head(port: int, path: str, token: str = "") -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{auth}"
            f"Content-Type: application/octet-stream\r\nContent-Length: {32 << 20}\r\n\r\n").encode()


def _answer_head(connection: socket.socket) -> bytes:
    connection.settimeout(10)
    return connection.recv(1000)


def _hang_up(connection: socket.socket) -> None:
    """Close a connection whose upload was refused at its headers, and wait until nginx has let
    it go: until then it still counts against the address's one upload at a time."""
    try:
        connection.shutdown(socket.SHUT_WR)
        connection.settimeout(10)
        while connection.recv(65536):
            pass
    except OSError:
        pass
    finally:
        connection.close()


def _what_nginx_answers_itself_is_a_problem_document(port: int) -> None:
    """TRACE (which nginx refuses before any location), a request line over 8 KiB and one nginx
    cannot read are answered by nginx, in the API's form: a problem document, with `Allow`."""
    def raw(request: bytes) -> tuple[bytes, bytes]:
        connection = socket.create_connection(("127.0.0.1", port))
        try:
            connection.sendall(request)
            connection.settimeout(10)
            answer = b""
            while chunk := connection.recv(65536):
                answer += chunk
                if b"\r\n\r\n" in answer and answer.endswith(b"}\n"):
                    break
        finally:
            connection.close()
        head, _, body = answer.partition(b"\r\n\r\n")
        return head, body

    host = f"Host: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
    for request, status, allow in ((b"TRACE /api/v1/ HTTP/1.1\r\n" + host, 405, b"Allow: GET, HEAD, OPTIONS"),
                                   (b"TRACE /api/v1/submissions/ HTTP/1.1\r\n" + host, 405, b"Allow: POST, OPTIONS"),
                                   (b"GET /api/v1/cases/?q=" + b"a" * 9000 + b" HTTP/1.1\r\n" + host, 414, None),
                                   (b"GARBAGE\r\n\r\n", 400, None)):
        head, body = raw(request)
        assert head.startswith(f"HTTP/1.1 {status}".encode()), head[:200]
        assert b"Content-Type: application/problem+json" in head and json.loads(body)["status"] == status
        assert allow is None or allow in head, head
    # Under nginx's limit, a long request line reaches the site (gunicorn takes what nginx passes).
    head, body = raw(b"GET /api/v1/cases/?q=" + b"a" * 6000 + b" HTTP/1.1\r\n" + host)
    assert head.startswith(b"HTTP/1.1 400") and json.loads(body)["code"] == "bad_field", head[:200]


def _large_uploads_need_a_permit_and_are_few_at_a_time(port: int, env: dict) -> None:
    """nginx buffers a large body to disk before the site can refuse it. So it asks the site
    first, from the headers alone: without a live token (or a staff session for the archive
    import) the upload is refused before its body is read. With one, a third upload from the
    same address is refused while two are under way, and a fifth in all from anywhere, each
    with a problem document naming the upload limit and Retry-After; uploads sent one after
    another never meet either, even right after a refused one; a request whose header fields the
    site cannot read is the client's error (400 or 431), never a 500."""
    token = _manage(env, "api_token", "create", "uploader").splitlines()[-1]
    try:
        get(f"http://127.0.0.1:{port}/upload-permit/submit/")
        raise AssertionError("the permit is reachable from outside")
    except urllib.error.HTTPError as refused:
        assert refused.code == 404
    for path, refusal in (("/api/v1/submissions/", b"401"), ("/admin/catalog/caseversion/import/", b"403")):
        anonymous = socket.create_connection(("127.0.0.1", port))
        try:
            anonymous.sendall(_upload_head(port, path))  # no body follows: the answer must not wait for one
            answer = _answer_head(anonymous)
            assert answer.startswith(b"HTTP/1.1 " + refusal), answer[:200]
            if refusal == b"401":
                assert b"WWW-Authenticate: Bearer" in answer and b"application/problem+json" in answer
        finally:
            _hang_up(anonymous)
    bad = socket.create_connection(("127.0.0.1", port))
    try:
        bad.sendall(_upload_head(port, "/api/v1/submissions/", "fbt_000000000000_" + "x" * 43))
        assert _answer_head(bad).startswith(b"HTTP/1.1 401")
    finally:
        _hang_up(bad)
    _uploads_one_after_another_are_never_held_back(port, token)
    held = []
    try:
        for address in ("127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.4"):  # four under way, two from one address
            connection = socket.create_connection(("127.0.0.1", port), source_address=(address, 0))
            connection.sendall(_upload_head(port, "/api/v1/submissions/", token) + b"x" * 65536)
            held.append(connection)
            time.sleep(0.2)
        for address, what in (("127.0.0.2", "a third upload from one address"), ("127.0.0.9",
                                                                                 "a fifth upload at once")):
            late = socket.create_connection(("127.0.0.1", port), source_address=(address, 0))
            held.append(late)
            late.sendall(_upload_head(port, "/api/v1/submissions/", token) + b"x" * 1024)
            answer = _answer_head(late)
            assert answer.startswith(b"HTTP/1.1 429"), f"{what} was let in"
            # The API's form, as every answer under /api/, naming the limit met.
            assert b"application/problem+json" in answer and b"Retry-After: 1" in answer, answer
            assert b'"code": "upload_busy"' in answer, answer
    finally:
        for connection in held:
            connection.close()


def _uploads_one_after_another_are_never_held_back(port: int, token: str) -> None:
    import httpx

    url = f"http://127.0.0.1:{port}/api/v1/submissions/"
    auth = {"Authorization": f"Bearer {token}"}
    for _ in range(8):  # one after another, each on a connection of its own; the site refuses each
        refused = _refused_at_its_headers(port)  # and a refused one's connection still being drained
        answer = httpx.post(url, headers=auth, data={"case": "range-sums", "name": "seq"},
                            files={"wasm": ("m.wasm", b"not a module")}, timeout=30)
        _hang_up(refused)
        assert (answer.status_code, answer.json()["code"]) == (422, "bad_module"), answer.text
    for headers, status in (({**auth, "Idempotency-Key": "a\x01b"}, 400),  # a control character
                            ({**auth, **{f"X-Field-{index}": "v" for index in range(200)}}, 431)):  # too many
        answer = httpx.post(url, headers=headers, data={"case": "range-sums", "name": "seq"},
                            files={"wasm": ("m.wasm", b"x")}, timeout=30)
        assert answer.status_code == status, answer.text
        assert answer.headers["Content-Type"] == "application/problem+json", answer.text


def _refused_at_its_headers(port: int) -> socket.socket:
    """An upload without a token that has sent part of its body: refused (401) before the rest."""
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(_upload_head(port, "/api/v1/submissions/") + b"x" * 65536)
    assert _answer_head(connection).startswith(b"HTTP/1.1 401")
    return connection


def _a_restart_follows_no_link_the_site_planted(state: Path, env: dict, port: int) -> None:
    """The site's account owns VAR_DIR: links it puts there (its run folder to a folder of
    root's, a pid file to a file of root's) must not make root change or write what they name."""
    victim_dir, victim_file = state / "root-only", state / "root-only-file"
    victim_dir.mkdir(mode=0o700)
    victim_file.write_text("root's own\n")
    victim_file.chmod(0o600)
    var = state / "var"
    plant = (f"mv {var / 'run'} {var / 'run.old'} && ln -s {victim_dir} {var / 'run'} && "
             f"ln -s {victim_file} {var / 'nginx.pid'} && ln -s {victim_file} {var / 'run.old' / 'nginx.pid'}")
    subprocess.run(["/usr/sbin/runuser", "-u", "fuelboard", "--", "/bin/sh", "-c", plant], check=True)
    server = None
    try:
        with starting_a_launcher():  # the restart starts a launcher too: not while another test bars them
            server = subprocess.Popen(["scripts/serve.sh"], cwd=ROOT, env={**env, "PORT": str(port)},
                                      start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True)
            assert first_answer(server, f"http://127.0.0.1:{port}/health/", 120)[0] == 200
    finally:
        if server is not None:
            with contextlib.suppress(ProcessLookupError):  # a start that failed has stopped already
                os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    info = victim_dir.stat()
    assert (info.st_uid, info.st_gid, oct(info.st_mode & 0o7777)) == (0, 0, "0o700")
    assert list(victim_dir.iterdir()) == []
    assert victim_file.read_text() == "root's own\n" and victim_file.stat().st_uid == 0
    assert (var / "run").is_dir() and not (var / "run").is_symlink()


def _a_flood_from_one_client_is_held_to_its_rate(port: int) -> None:
    """FRONT_RATE=20 a second beyond a burst of 60: 150 requests at once are partly refused
    with 429, a problem document and Retry-After, and the site answers again a moment later."""
    from concurrent.futures import ThreadPoolExecutor

    def fetch(_):
        try:
            return get(f"http://127.0.0.1:{port}/health/")[0], {}
        except urllib.error.HTTPError as refused:
            return refused.code, {"Retry-After": refused.headers.get("Retry-After"),
                                  "type": refused.headers.get("Content-Type"), "body": refused.read()}

    time.sleep(4)  # the burst fills again after the earlier checks
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(fetch, range(150)))
    refused = [extra for status, extra in answers if status == 429]
    assert 0 < len(refused) < 150 and all(status in (200, 429) for status, _ in answers)
    assert refused[0]["Retry-After"] == "1" and refused[0]["type"] == "application/problem+json"
    assert b'"status": 429' in refused[0]["body"]
    time.sleep(2)
    assert get(f"http://127.0.0.1:{port}/health/")[0] == 200


@pytest.mark.slow
@pytest.mark.long
def test_make_serve_serves_the_site_with_hashed_compressed_static_files_behind_nginx(tmp_path):
    port = free_port()
    # A state folder nginx's workers can reach (pytest's own tmp folders are private to root).
    state = Path(tempfile.mkdtemp(prefix="fuelboard-serve-"))
    state.chmod(0o755)
    # The cases this run proves (tests/bundled.py), where the site's account can read them: make
    # serve imports them and scores their examples as it does the whole catalog's.
    shutil.copytree(bundled.catalog(), state / "test-cases")
    env = {**os.environ, "VAR_DIR": str(state / "var"), "STATIC_ROOT": str(state / "static"),
           "CATALOG_DIR": str(state / "test-cases"),
           "WEB_CONCURRENCY": "2", "DATABASE_URL": f"sqlite:///{state / 'var' / 'serve.sqlite3'}",
           "FRONT_RATE": "20", "FRONT_BURST": "60", "FRONT_CONNECTIONS": "16",
           "TASKS_BACKEND": "database", "TASK_WORKERS": "3"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    with starting_a_launcher():  # make serve starts one (as root)
        server = subprocess.Popen(["make", "serve", f"PORT={port}"], cwd=ROOT, env=env, start_new_session=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        answered = first_answer(server, f"http://127.0.0.1:{port}/", 240)
    try:
        status, headers, body = answered
        assert status == 200
        html = body.decode()
        assert "Lattice" in html  # the bundled catalog, imported by make serve
        stylesheet = re.search(r'href="(/static/css/site\.[0-9a-f]{12}\.css)"', html)
        assert stylesheet, "static files are not hashed"
        status, headers, body = get(f"http://127.0.0.1:{port}{stylesheet.group(1)}", **{"Accept-Encoding": "gzip"})
        assert status == 200
        assert headers.get("Content-Encoding") == "gzip"
        assert "immutable" in headers.get("Cache-Control", "")
        status, headers, _ = get(f"http://127.0.0.1:{port}/cases/lattice/")
        assert status == 200 and "unsafe-inline" not in headers["Content-Security-Policy"]
        status, headers, body = get(f"http://127.0.0.1:{port}/favicon.ico")  # redirected to the hashed icon
        assert status == 200 and headers["Content-Type"].startswith("image/svg") and body.startswith(b"<svg")
        _ordinary_requests_survive_slow_clients(port)
        if os.geteuid() == 0:
            _nothing_runs_as_root_and_only_nginx_reaches_the_socket(state / "var", port)
        _a_flood_from_one_client_is_held_to_its_rate(port)
        _large_uploads_need_a_permit_and_are_few_at_a_time(port, env)
        _what_nginx_answers_itself_is_a_problem_document(port)
        # Only the archive upload takes a large body; anywhere else nginx refuses it before a worker sees it.
        big = urllib.request.Request(f"http://127.0.0.1:{port}/standings/", data=b"x" * (2 << 20), method="POST")
        try:
            urllib.request.urlopen(big, timeout=10)
            raise AssertionError("a 2 MiB body was accepted")
        except urllib.error.HTTPError as refused:
            assert refused.code == 413
        conf = (front_folder(state / "var") / "nginx.conf").read_text()
    finally:
        stop(server)
    if os.geteuid() == 0:  # root's folders under /run for nginx and the launcher go with the stack
        folders = [front_folder(state / "var"), Path(launcher_socket(state / "var")).parent]
        deadline = time.monotonic() + 30  # make is gone; serve.sh may still be stopping what it started
        while any(folder.exists() for folder in folders) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(folder.exists() for folder in folders), folders
    log = server.stdout.read()
    assert "Booting worker" in log or "Listening at" in log, log[-2000:]
    assert f"Listening at: unix:{state / 'var' / 'run' / 'gunicorn.sock'}" in log  # behind nginx
    assert "rate=20r/s" in conf and "burst=60 nodelay" in conf and "limit_conn per_client_connections 16" in conf
    assert f"Control socket listening at {state / 'var' / 'run' / 'gunicorn.ctl'}" in log
    if os.geteuid() == 0:
        _a_restart_follows_no_link_the_site_planted(state, env, port)
    shutil.rmtree(state, ignore_errors=True)
