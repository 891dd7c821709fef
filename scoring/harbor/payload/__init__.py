"""The files a task runs, shipped into it as they are (scoring/harbor/folders.py): they stand alone,
with nothing of the site on their path."""
