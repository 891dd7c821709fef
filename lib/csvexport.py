"""CSV downloads: streamed row by row, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
from typing import Iterable

from django.http import StreamingHttpResponse

# A cell a spreadsheet would read as a formula (OWASP "CSV injection"): text is prefixed with '.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value) -> object:
    """A value as a CSV cell: None empty, text that could start a formula quoted with a leading '."""
    if value is None:
        return ""
    if isinstance(value, str) and value.lstrip(" \"'").startswith(_FORMULA_STARTS):
        return "'" + value
    return value


class _Echo:
    def write(self, value: str) -> str:
        return value


def csv_response(filename: str, header: list[str], rows: Iterable[Iterable]) -> StreamingHttpResponse:
    """A streamed `text/csv` attachment named `filename`: the header, then `rows`."""
    # Every cell quoted: a spreadsheet that splits on `;` cannot find a formula inside one.
    writer = csv.writer(_Echo(), lineterminator="\r\n", quoting=csv.QUOTE_ALL)

    def lines():
        yield writer.writerow(header)
        for row in rows:
            yield writer.writerow([cell(value) for value in row])

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
