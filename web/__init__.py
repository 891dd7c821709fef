"""The site's pages: every public HTML page, the feeds and the template tags. An app with no
models: it reads through the domain apps' QuerySets and services (catalog, scoring), and never
imports the API."""
