"""The JSON API, version 1 (Django Ninja): read-only, paginated, its OpenAPI schema generated from
the code. `main` mounts the routers (`cases`, `results`) under /api/v1/ and serves the schema and
its documentation page; `schemas` holds the documents' declared shapes. It reads through the
domain apps (catalog, scoring) and never imports a page module of `web`."""
