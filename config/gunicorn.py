"""gunicorn settings for `make serve` and production: `gunicorn -c config/gunicorn.py`."""

import multiprocessing
import os

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
wsgi_app = "config.wsgi:application"
accesslog = "-"
errorlog = "-"
timeout = 60
graceful_timeout = 30
# Pages never score anything (scoring runs in `score` or in task workers), so requests are short.
max_requests = 2000
max_requests_jitter = 200
