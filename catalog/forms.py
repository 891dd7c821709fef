from __future__ import annotations

from django import forms

from catalog.manifest import DIFFICULTIES


class CaseFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=100, label="Search by name")
    tag = forms.CharField(required=False, max_length=100)
    difficulty = forms.ChoiceField(required=False, choices=[("", "any")] + [(d, d) for d in DIFFICULTIES])
