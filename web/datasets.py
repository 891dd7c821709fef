"""The latest dataset export (`/datasets/latest/<file>`): the files `manage.py export_dataset`
wrote into the newest folder of DATASET_DIR (docs/dataset.md), and nothing else there."""

from __future__ import annotations

import os

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest
from django.utils.http import http_date

from lib.files import open_regular
from scoring.dataset.folders import CARD, CROISSANT, EXPORT_FILES, latest_export

CONTENT_TYPES = {CARD: "text/markdown; charset=utf-8", CROISSANT: "application/ld+json"}
PARQUET_TYPE = "application/vnd.apache.parquet"


def dataset_file(request: HttpRequest, file: str) -> FileResponse:
    """One file of the latest export. The name is looked up among the names an export writes, so
    what was asked for never reaches the file system."""
    if file not in EXPORT_FILES:
        raise Http404("no such file in a dataset export")
    folder = latest_export(settings.DATASET_DIR)
    if folder is None:
        raise Http404("this site keeps no dataset export")
    try:
        handle = open_regular(folder / file)
    except OSError:
        raise Http404("no such file in the latest dataset export") from None
    response = FileResponse(handle, content_type=CONTENT_TYPES.get(file, PARQUET_TYPE))
    response["Last-Modified"] = http_date(int(os.fstat(handle.fileno()).st_mtime))
    if file not in CONTENT_TYPES:
        response["Content-Disposition"] = f'attachment; filename="{file}"'
    return response
