"""Asking a running Space to read its record now (`POST /record/pull`, web/routes.py), after
`space admin --repo` or the worker changed it; used by both command lines (cli.py, worker/cli.py).
"""

from __future__ import annotations

import urllib.error
import urllib.request


def notify_space(url: str, token: str | None) -> str:
    """Ask a running Space to read its record now; a note on how it went."""
    if not token:
        return "; --space-url needs $HF_TOKEN (the Space's own token)"
    request = urllib.request.Request(
        url.rstrip("/") + "/record/pull", method="POST", headers={"X-Record-Token": token}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return "; the Space reads the record now" if resp.status == 202 else ""
    except (urllib.error.URLError, OSError) as exc:
        return f"; the Space did not take the request ({exc}); it reads the record within a minute"
