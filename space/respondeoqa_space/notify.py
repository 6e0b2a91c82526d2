"""Asking a running Space to read its record now (`POST /record/pull`, web/routes.py), after
`respondeoqa-space admin --repo` or the worker changed it, or (with a choice) to re-push its entries into a
record that no longer holds them or accept the new record; used by both command lines (cli.py,
worker/cli.py).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request


def notify_space(url: str, token: str | None, choice: str = "") -> str:
    """Ask a running Space to read its record now (or, with `choice`, to re-push into it or
    accept it); a note on how it went."""
    if not token:
        return "; --space-url needs $HF_TOKEN (the Space's own token)"
    query = f"?choice={choice}" if choice else ""
    request = urllib.request.Request(
        url.rstrip("/") + "/record/pull" + query,
        method="POST",
        headers={"X-Record-Token": token},
    )
    try:
        with urllib.request.urlopen(request, timeout=600 if choice else 30) as resp:
            if choice:
                return "; the Space " + json.loads(resp.read())["record"]
            return "; the Space reads the record now" if resp.status == 202 else ""
    except urllib.error.HTTPError as exc:
        said = exc.read().decode("utf-8", "replace")[:300]
        return f"; the Space answered HTTP {exc.code}: {said}"
    except (urllib.error.URLError, OSError, ValueError, KeyError, TypeError) as exc:
        return f"; the Space did not take the request ({exc}); it reads the record within a minute"
