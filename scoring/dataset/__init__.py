"""The site's public data as a dataset (`manage.py export_dataset DIR`, docs/dataset.md).

`columns` names every table and column once, with its type and meaning; `rows` reads each
table's rows from the same documents and queries the API answers from; `metadata` writes the
dataset card (README.md) and the Croissant description (croissant.json); `exporting` writes it
all into a folder, all or nothing; `folders` finds the latest export that the site serves.

This package imports nothing here, so that finding an export (`folders`) does not load pyarrow.
"""
