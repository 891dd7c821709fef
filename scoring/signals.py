"""What one part of the results app tells another, so that neither imports the other."""

from django.dispatch import Signal

# Sent when a transaction that stores scores sets new records on boards over every variant:
# `submission_ids` (the new records). With VERIFY_NEW_RECORDS, each is queued for a
# re-measurement (scoring/verification.py), once the transaction commits.
new_records = Signal()
