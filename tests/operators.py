"""Operators in tests: a token made as `api_token create` makes one, and a submission sent as a
harness sends it (`POST /api/v1/submissions/`, multipart)."""

from __future__ import annotations

import io

from django.core.management import call_command

URL = "/api/v1/submissions/"


def make_token(username: str = "op1", label: str = "") -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("api_token", "create", username, *(["--label", label] if label else []), stdout=out, stderr=err)
    return out.getvalue().splitlines()[-1]


def post(client, token: str | None, *, headers: dict | None = None, **fields):
    """The request a harness sends: files for bytes, form fields for the rest. With the immediate
    backend the entry is scored when the request's transaction commits, which a test's own
    transaction never does: its on-commit callbacks are run here."""
    from django.test import TestCase

    data = {}
    for key, value in fields.items():
        if isinstance(value, (bytes, bytearray)):
            value = io.BytesIO(bytes(value))
            value.name = f"{key}.bin"
        data[key] = value
    extra = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    extra.update({f"HTTP_{name.upper().replace('-', '_')}": value for name, value in (headers or {}).items()})
    with TestCase.captureOnCommitCallbacks(execute=True):
        return client.post(URL, data, **extra)
