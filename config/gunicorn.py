"""gunicorn settings for `make serve` and production: `gunicorn -c config/gunicorn.py`."""

import multiprocessing
import os
from pathlib import Path

# `make serve` binds a Unix socket behind nginx (scripts/serve.sh); alone, gunicorn binds HOST:PORT.
bind = os.environ.get("GUNICORN_BIND") or f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
# The control socket lives in this instance's own state folder, so two instances never share one.
_run_dir = Path(os.environ.get("VAR_DIR") or Path(__file__).resolve().parent.parent / "var") / "run"
_run_dir.mkdir(parents=True, exist_ok=True)
control_socket = str(_run_dir / "gunicorn.ctl")
# The socket is 0660 (gunicorn's default mask leaves it writable by every local account, which
# could then hold every worker past nginx); scripts/serve.sh keeps its folder to nginx's group.
umask = 0o007
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
wsgi_app = "config.wsgi:application"
# The site (Django, every view) is loaded once, in the arbiter, and each worker is forked from it:
# a worker starts, or is replaced after max_requests, in milliseconds and shares the loaded code's
# memory. Loading opens no database connection and starts no thread (tests/test_production.py).
# A new release of the code is a restart, not a HUP.
preload_app = True
accesslog = "-"
errorlog = "-"
timeout = 60
graceful_timeout = 30
# Pages never score anything (scoring runs in `score` or in task workers), so requests are short.
max_requests = 2000
max_requests_jitter = 200
# nginx in front holds a request line to 8 KiB (large_client_header_buffers) and answers a longer
# one itself, with a problem document: gunicorn takes whatever nginx passes.
limit_request_line = 8190
