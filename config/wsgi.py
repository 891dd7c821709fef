import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Every view is imported now rather than at each process's first request (gunicorn forks its
# workers from this module once it is loaded: config/gunicorn.py).
get_resolver().url_patterns
