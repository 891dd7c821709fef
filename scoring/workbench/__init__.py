"""The case author's workbench (`manage.py check_case`): a version folder proven sound before it is
published, by running the author's own solutions through the site's real build and engine.

A case's solutions live outside every version folder, by the verdict each must get
(`solutions.py`): `<DIR>/<slug>/<verdict>/<name>/` (a source folder) or `<name>.wasm` / `<name>.wat`
(a module). For each version (`folder.py` reads one as the site would import it), every solution
that applies is built once, run on every input with the version's limits — twice, in parallel and
one input at a time, and the two must agree to the unit — and judged (`checking.py`): errors for
a verdict other than its folder's, an expected answer the reference solution does not give, a run
that does not repeat; warnings for limits with no headroom or no bite, a verdict that flips at
1.5× the limit, a wrong answer no smoke case catches; and a fuel limit suggested from the
measurements. `expected.py` writes the expected answers from the reference into a version not
yet imported. Nothing is stored: the database is only asked whether a version is imported.
"""
