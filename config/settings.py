"""The one settings module. Everything a deployment changes comes from the environment.

See README.md ("Settings") for the list. Defaults are the zero-set-up local path: SQLite in
`var/`, scoring in-process, DEBUG off.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path
from urllib.parse import urlsplit

from config.env import database_from_url, envbool, envfloat, envint, envlist, envstr, envurl
from config.state import private_folder, private_sqlite

BASE_DIR = Path(__file__).resolve().parent.parent
# Local state, private to the account that runs the site (config/state.py), made whatever else
# is configured: the SQLite file and the module cache live here by default.
VAR_DIR = private_folder(Path(envstr("VAR_DIR", str(BASE_DIR / "var"))))


def _local_secret_key() -> str:
    """A key kept in var/ so a local run needs no set-up; production sets SECRET_KEY.

    Two commands started at once on a new VAR_DIR make one key between them: each writes its key
    whole under a name of its own and links it into place, so the other reads no key or the whole
    key, never a half-written one, and the first link wins."""
    key_file = VAR_DIR / "secret_key"
    try:
        return key_file.read_text().strip()
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(50)
    draft = VAR_DIR / f"secret_key.{os.getpid()}.{secrets.token_hex(8)}"
    handle = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(handle, "w") as stream:
            stream.write(key)
        os.link(draft, key_file)
    except FileExistsError:  # another process's key landed first: it is the key
        return key_file.read_text().strip()
    finally:
        draft.unlink(missing_ok=True)
    return key


DEBUG = envbool("DEBUG", False)
SECRET_KEY = envstr("SECRET_KEY", "") or _local_secret_key()
# Where the site is reached: every absolute link (API lists, feeds, the sitemap, canonical
# links) is built from it, never from a request's Host header, and the page cache is keyed
# without the Host (a client could otherwise miss the cache at will by varying it).
SITE_URL = envurl("SITE_URL", "http://127.0.0.1:8000")
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", sorted({urlsplit(SITE_URL).hostname, "127.0.0.1", "localhost"}))

INSTALLED_APPS = [
    "whitenoise.runserver_nostatic",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "corsheaders",
    # Before django_tasks_db: its `db_worker` command is scoring's own (the first app's wins).
    "scoring",
    "django_tasks",
    "django_tasks_db",
    "sitecache",
    "catalog",
    "web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.SecurityHeadersMiddleware",
    # The API: read-only CORS for any origin, then its methods and problem documents.
    "corsheaders.middleware.CorsMiddleware",
    "config.middleware.ApiMiddleware",
    "config.middleware.PageOptionsMiddleware",
    # Compression last on the way out (so ETags are computed on what the view wrote), never for
    # a response tied to a visitor; then ETags, 304s and a short public Cache-Control.
    "config.middleware.SafeGZipMiddleware",
    "django.middleware.http.ConditionalGetMiddleware",
    "config.middleware.PublicCachingMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# --- security headers and HTTPS ------------------------------------------------------------------
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# HTTPS=1 when the site is reached over HTTPS (directly, or through a proxy that sets
# X-Forwarded-Proto, with TRUST_X_FORWARDED_PROTO=1): secure cookies, redirects and HSTS.
HTTPS = envbool("HTTPS", False)
if envbool("TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS and envbool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 31_536_000, minimum=0) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS and envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = HTTPS and envbool("SECURE_HSTS_PRELOAD", True)
SESSION_COOKIE_HTTPONLY = True

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "web.context_processors.engine",
            ],
        },
    },
]

DATABASES = {
    "default": database_from_url(
        envstr("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"), BASE_DIR
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    private_sqlite(DATABASES["default"]["NAME"])  # 0600 before SQLite first creates it
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# STATIC_MANIFEST=1 (production; run collectstatic with it too): hashed, compressed files in
# STATIC_ROOT, cached forever. Off (the local default): WhiteNoise serves straight from static/.
STATIC_MANIFEST = envbool("STATIC_MANIFEST", False)
STATIC_ROOT = Path(envstr("STATIC_ROOT", str(BASE_DIR / "staticfiles"))) if STATIC_MANIFEST else None
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_MANIFEST
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = not STATIC_MANIFEST

# --- the catalog ---------------------------------------------------------------------------
CATALOG_DIR = Path(envstr("CATALOG_DIR", str(BASE_DIR / "test-cases")))
CATALOG_SHOW_EXPERIMENTAL = envbool("CATALOG_SHOW_EXPERIMENTAL", False)
# What one version folder may hold (larger files are errors, and are never read).
CATALOG_MAX_FILE_BYTES = envint("CATALOG_MAX_FILE_BYTES", 256 << 20, minimum=1024)
CATALOG_MAX_VERSION_BYTES = envint("CATALOG_MAX_VERSION_BYTES", 1 << 30, minimum=1024)
CATALOG_MAX_VERSION_FILES = envint("CATALOG_MAX_VERSION_FILES", 10_000, minimum=1)

# Retired versions' held-out zips (catalog/published.py), made once each and kept.
HELD_OUT_DIR = VAR_DIR / "held-out"

# --- scoring -------------------------------------------------------------------------------
# Wall-clock guard per input (alloc + entry). Fuel is the measure; this only protects the host.
SCORING_WALL_SECONDS = envfloat("SCORING_WALL_SECONDS", 60.0, minimum=0.001)
# Threads that run the inputs of one submission. 0 means one per CPU core.
SCORING_THREADS = envint("SCORING_THREADS", 0, minimum=0)
# Compiled modules are cached here, keyed by module digest and wasmtime version.
SCORING_CACHE_DIR = Path(envstr("SCORING_CACHE_DIR", str(VAR_DIR / "module-cache")))
# …at most this many bytes of them; the least recently used go first.
SCORING_CACHE_MAX_BYTES = envint("SCORING_CACHE_MAX_BYTES", 2 << 30, minimum=1 << 20)
# The PATH a build runs with. Debian's rustc/cargo live in /usr/bin and carry the
# wasm32-unknown-unknown standard library; a rustup shim earlier on the user's PATH does not.
SCORING_BUILD_PATH = envstr("SCORING_BUILD_PATH", "/usr/bin:/bin:/usr/sbin:/sbin")
# Bytes of build output kept with a submission (the tail, where the error usually is).
SCORING_BUILD_LOG_BYTES = envint("SCORING_BUILD_LOG_BYTES", 64 * 1024, minimum=1024)
# Submitted modules compile in a child process that is killed after this long.
SCORING_COMPILE_SECONDS = envfloat("SCORING_COMPILE_SECONDS", 60.0, minimum=0.1)
# …and whose address space is at most this (a module may be made to need any amount to compile).
SCORING_COMPILE_MEMORY_BYTES = envint("SCORING_COMPILE_MEMORY_BYTES", 2 << 30, minimum=256 << 20)
# Modules larger than this are refused before compiling.
SCORING_MAX_MODULE_BYTES = envint("SCORING_MAX_MODULE_BYTES", 64 * 1024 * 1024, minimum=1024)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "WARNING")},
}
# Longest a build command may run, in seconds; a case's max_runtime_hours caps it further.
SCORING_BUILD_TIMEOUT = envfloat("SCORING_BUILD_TIMEOUT", 900.0, minimum=1.0)
# Builds run in a bubblewrap sandbox, as an account of their own, in a cgroup of their own, with
# these limits. A scorer that is not root asks the build launcher listening on this socket for
# them (scripts/build-launcher, run as root; "" builds in this process, which must then be root).
SCORING_BUILD_LAUNCHER = envstr("SCORING_BUILD_LAUNCHER", "")
# Where a build cannot get an account and a cgroup of its own it is refused, and a task worker
# refuses to start, unless this is on (a development machine): then it runs in the sandbox with
# the per-process limits only, and every page that shows its entry says so.
SCORING_ALLOW_UNCONFINED_BUILDS = envbool("SCORING_ALLOW_UNCONFINED_BUILDS", False)
# Without bubblewrap builds are refused, unless this is on: then the submission's build runs with
# the scorer's own rights (and its entry says so, as above).
SCORING_ALLOW_UNSANDBOXED_BUILDS = envbool("SCORING_ALLOW_UNSANDBOXED_BUILDS", False)
SCORING_BUILD_CPU_SECONDS = envint("SCORING_BUILD_CPU_SECONDS", 900, minimum=1)
SCORING_BUILD_MEMORY_BYTES = envint("SCORING_BUILD_MEMORY_BYTES", 8 << 30, minimum=64 << 20)
SCORING_BUILD_FILE_BYTES = envint("SCORING_BUILD_FILE_BYTES", 512 << 20, minimum=1 << 20)
SCORING_BUILD_PROCESSES = envint("SCORING_BUILD_PROCESSES", 512, minimum=8)
# Each build runs in a cgroup of its own: all its processes and the files in its tmpfs together.
SCORING_BUILD_TOTAL_MEMORY_BYTES = envint("SCORING_BUILD_TOTAL_MEMORY_BYTES", 4 << 30, minimum=128 << 20)
SCORING_BUILD_DISK_BYTES = envint("SCORING_BUILD_DISK_BYTES", 2 << 30, minimum=16 << 20)
# …and a share of the processors: this many processors' worth of time per second, all its
# processes together (so concurrent builds and the site's own processes keep theirs).
SCORING_BUILD_CPUS = envfloat("SCORING_BUILD_CPUS", 1.0, minimum=0.01)
# A submitted folder is packed into the database; larger ones are refused.
SCORING_MAX_SOURCE_BYTES = envint("SCORING_MAX_SOURCE_BYTES", 32 * 1024 * 1024, minimum=1024)
# What a packed submission may unpack to in its build's sandbox (bytes written, entries).
SCORING_MAX_UNPACKED_BYTES = envint("SCORING_MAX_UNPACKED_BYTES", 256 << 20, minimum=1 << 20)
SCORING_MAX_SOURCE_ENTRIES = envint("SCORING_MAX_SOURCE_ENTRIES", 20_000, minimum=10)
# A scorer run as root builds each submission as an account of its own: uids
# SCORING_BUILD_UID_BASE … + SCORING_BUILD_SLOTS - 1, one per concurrent build on the machine,
# claimed with lock files in SCORING_BUILD_SLOT_DIR (shared by every root scorer on the machine).
# A build launcher claims a block of 1,024 uids of its own above them (one per launcher).
SCORING_BUILD_UID_BASE = envint("SCORING_BUILD_UID_BASE", 2_000_000_000, minimum=1000)
SCORING_BUILD_SLOTS = envint("SCORING_BUILD_SLOTS", 8, minimum=1)
SCORING_BUILD_SLOT_DIR = envstr("SCORING_BUILD_SLOT_DIR", "/run/fuelboard-build-slots")
# Answers: at most SCORING_ANSWER_SIZE_FACTOR times the expected answer's size (and never less
# than SCORING_ANSWER_MIN_BYTES); judged in a process of at most SCORING_JUDGE_MEMORY_BYTES.
SCORING_ANSWER_MIN_BYTES = envint("SCORING_ANSWER_MIN_BYTES", 64 << 10, minimum=16)
SCORING_ANSWER_SIZE_FACTOR = envint("SCORING_ANSWER_SIZE_FACTOR", 16, minimum=1)
SCORING_JUDGE_MEMORY_BYTES = envint("SCORING_JUDGE_MEMORY_BYTES", 2 << 30, minimum=256 << 20)
# Archives uploaded in the admin's "Import case version": the upload, and what it may unpack to.
CATALOG_MAX_UPLOAD_BYTES = envint("CATALOG_MAX_UPLOAD_BYTES", 64 * 1024 * 1024, minimum=1024)
CATALOG_MAX_UNPACKED_BYTES = envint("CATALOG_MAX_UNPACKED_BYTES", 512 * 1024 * 1024, minimum=1024)
CATALOG_MAX_ARCHIVE_ENTRIES = envint("CATALOG_MAX_ARCHIVE_ENTRIES", 10_000, minimum=1)

# A new latest version of a case starts with the previous version's best entries, scored again
# against it: this many of them (0: off). See scoring/carry.py.
CARRY_FORWARD_TOP = envint("CARRY_FORWARD_TOP", 20, minimum=0)

# The catalog-wide standings (/standings/) and the agents matrix (/agents/) are snapshots
# recomputed in the background once the scores moved, at most this often: a page lags the
# scores by at most this plus one refresh.
STANDINGS_REFRESH_SECONDS = envint("STANDINGS_REFRESH_SECONDS", 60, minimum=0)

# Queue a re-measurement (scoring/verification.py) of every new record as it is set: each one
# costs a build and a scoring run more, on the task queue's workers.
VERIFY_NEW_RECORDS = envbool("VERIFY_NEW_RECORDS", False)

# The public dataset (`manage.py export_dataset`, docs/dataset.md): the folder whose exports the
# site serves (the latest at /datasets/latest/<file>, linked from /api/v1/; empty: none), and the
# licence its card and Croissant file give the data (a Hugging Face Hub licence identifier).
DATASET_DIR = envstr("DATASET_DIR", "")
DATASET_LICENSE = envstr("DATASET_LICENSE", "cc-by-4.0")
if not re.fullmatch(r"[a-z0-9][a-z0-9.+-]*", DATASET_LICENSE):
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"DATASET_LICENSE={DATASET_LICENSE!r}: a licence identifier as the Hugging Face Hub "
                               "lists them (cc-by-4.0, odc-by, other…)")

# --- scoring jobs (the Django Tasks API; the django-tasks backport on Django 5.2) ----------------
# "immediate": jobs run in the process that enqueues them (the zero-set-up default).
# "database": jobs wait in the database for `manage.py db_worker` processes on any machine.
TASKS_BACKEND = envstr("TASKS_BACKEND", "immediate")
_TASK_BACKENDS = {
    "immediate": "django_tasks.backends.immediate.ImmediateBackend",
    "database": "django_tasks_db.DatabaseBackend",
}
if TASKS_BACKEND not in _TASK_BACKENDS:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"TASKS_BACKEND={TASKS_BACKEND!r}: use one of {', '.join(_TASK_BACKENDS)}")
# Scoring and re-measurement jobs wait in "default"; a candidate epoch's measurements in "epoch",
# which only a host running the candidate engine takes (docs/epochs.md).
TASKS = {"default": {"BACKEND": _TASK_BACKENDS[TASKS_BACKEND], "QUEUES": ["default", "epoch"]}}
# A scoring attempt refreshes its heartbeat this often; `requeue_stale_jobs` gives up on an
# attempt whose heartbeat is older than SCORING_STALE_SECONDS, at most SCORING_MAX_ATTEMPTS times.
SCORING_HEARTBEAT_SECONDS = envfloat("SCORING_HEARTBEAT_SECONDS", 10.0, minimum=0.05)
SCORING_STALE_SECONDS = envfloat("SCORING_STALE_SECONDS", 60.0, minimum=0.1)
SCORING_MAX_ATTEMPTS = envint("SCORING_MAX_ATTEMPTS", 3, minimum=1)
# A job whose build could not be given a sandbox (a launcher restarting, a machine out of
# processes) goes back to the queue without spending an attempt, after SCORING_SANDBOX_RETRY_SECONDS,
# doubled at each retry up to SCORING_SANDBOX_RETRY_MAX_SECONDS; its worker waits as long before
# it takes another job, so a worker with a broken sandbox does not take every job there is.
SCORING_SANDBOX_RETRY_SECONDS = envfloat("SCORING_SANDBOX_RETRY_SECONDS", 5.0, minimum=0.1)
SCORING_SANDBOX_RETRY_MAX_SECONDS = envfloat("SCORING_SANDBOX_RETRY_MAX_SECONDS", 300.0, minimum=0.1)
# A retried job goes behind fresh ones; after SCORING_SANDBOX_MAX_WAITS retries the attempt ends
# in `error` (staff score it again once the sandbox is back), so no entry bounces for ever.
SCORING_SANDBOX_MAX_WAITS = envint("SCORING_SANDBOX_MAX_WAITS", 20, minimum=1)
# A fair queue: at most this many of one operator's entries are queued or being scored at once;
# the rest wait their turn while other operators' entries go first (entries from the shell and
# carried ones are not an operator's, and queue as they come).
SCORING_OPERATOR_JOBS = envint("SCORING_OPERATOR_JOBS", 1, minimum=1)

# Public pages are cached for this long (0: off), keyed by the content generation, so a cached
# page is never older than the data. Each process has its own cache unless CACHES says otherwise.
PAGE_CACHE_SECONDS = envint("PAGE_CACHE_SECONDS", 300, minimum=0)
# Browsers and proxies may keep an anonymous page this long before revalidating it (its ETag).
PUBLIC_CACHE_SECONDS = envint("PUBLIC_CACHE_SECONDS", 30, minimum=0)

# --- the API ---------------------------------------------------------------------------------------
# Operators submit entries with a token (POST /api/v1/submissions/): per operator, at most this
# many an hour and this many still being scored, and a request body of at most this many bytes.
API_SUBMISSIONS_PER_HOUR = envint("API_SUBMISSIONS_PER_HOUR", 60, minimum=1)
API_REQUESTS_PER_HOUR = envint("API_REQUESTS_PER_HOUR", 240, minimum=1)
API_SUBMISSIONS_IN_FLIGHT = envint("API_SUBMISSIONS_IN_FLIGHT", 8, minimum=1)
API_UPLOAD_MAX_BYTES = envint("API_UPLOAD_MAX_BYTES", 32 << 20, minimum=1024)
# The whole build of an entry sent over HTTP, start to end, however it spends it (working,
# sleeping, holding a pipe open): shorter than the shell's, so a queue moves.
API_BUILD_WALL_SECONDS = envfloat("API_BUILD_WALL_SECONDS", 300.0, minimum=1.0)
# Django spools uploads larger than this to a temporary file instead of holding them in memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 1 << 20
# Read-only and public: any origin may read it from a browser, never with credentials (cookies are
# not sent, so a page elsewhere cannot read what a signed-in visitor sees).
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_ALLOW_HEADERS = ["accept", "if-none-match", "if-modified-since"]
CORS_EXPOSE_HEADERS = ["ETag"]
CORS_PREFLIGHT_MAX_AGE = 86400
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "OPTIONS": {"MAX_ENTRIES": 2000}},
    # The case list's remembered counts (sitecache.pages.CountedByGeneration), apart from the pages.
    "counts": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "counts",
               "OPTIONS": {"MAX_ENTRIES": 5000}},
}
