"""The JSON API, version 1 (Django Ninja): reads for everyone and entries written by operators with
a token, paginated, its OpenAPI schema generated from the code. `main` mounts the routers (`cases`,
`results`, `agents`, `submissions`) under /api/v1/ and serves the schema and its documentation
page; `schemas` holds the documents' declared shapes. It reads through the
domain apps (catalog, scoring) and never imports a page module of `web`."""
