"""The fuel meter: a module run on inputs of one's own exactly as the site runs it on its held-out
inputs, to the unit (the same engine configuration, ABI checks, stores, limits, fuel and judging:
this package only feeds them). No Django, so a kit carries it: `catalog/metering.py` copies the
engine's files into a kit's `meter/` folder with the version's contract (`contract.py`);
`kit_main.py` is that folder's `__main__.py`.
"""
