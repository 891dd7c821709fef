"""What an author might put in a description or a changelog to attack a reader: every one must be
stripped."""

from __future__ import annotations

XSS_PAYLOADS = [
    "<script>alert('x')</script>",
    '<img src="x" onerror="alert(1)">',
    "[click](javascript:alert(1))",
    '<a href="javascript:alert(1)">link</a>',
    '<p style="position:fixed;top:0">cover</p>',
    '<iframe src="https://example.com"></iframe>',
    '<svg onload="alert(1)"><circle r="1"/></svg>',
    '<a href="JaVaScRiPt:alert(1)">mixed case</a>',
    '<div onclick="alert(1)">click</div>',
    "<style>body{display:none}</style>",
    '<form action="https://example.com"><input name="x"></form>',
]
