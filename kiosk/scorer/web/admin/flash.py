"""The message a console page shows after a form: its catalog key and parameters travel in
the redirect's address, signed, so that a link made elsewhere cannot put its words in the
console's notice box (only catalog sentences are ever shown, their parameters as text, or as
words — a list of tables, 第 3、5 桌 — said in the page's language)."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse

from ....errors import words as words_of
from ....rules import Text
from ...printing.templating import words

# A new key at each start: a message in an address from before a restart is simply not shown.
_KEY = secrets.token_bytes(32)


def _signature(fields: list[tuple[str, str]]) -> str:
    return hmac.new(_KEY, urlencode(fields).encode(), hashlib.sha256).hexdigest()[:32]


def back(target: str, kind: str, key: str | None, params: dict[str, Any] | None = None
         ) -> RedirectResponse:
    """Back to a page of the console with a message: "note" or "error", catalog `key`."""
    fields = [("flash", key or "error.unexpected"), ("kind", kind),
              *[(f"w_{k}", json.dumps(as_json(v), ensure_ascii=False)) if _is_words(v)
                else (f"p_{k}", str(v)) for k, v in (params or {}).items()]]
    query = urlencode([*fields, ("sig", _signature(fields))])
    target, mark, anchor = target.partition("#")  # a row to land on (#t437) goes last
    separator = "&" if "?" in target else "?"
    return RedirectResponse(f"{target}{separator}{query}{mark}{anchor}", status_code=303)


def _is_words(value: Any) -> bool:
    return isinstance(getattr(value, "key", None), str) and hasattr(value, "params")


def as_json(value: Any) -> Any:
    """A parameter that is words (第 3、5 桌, said in each language) as JSON's values: its
    catalog key and its parameters, themselves words or text (a ruleset's name: in each
    language)."""
    if _is_words(value):
        return {"key": value.key, "params": {k: as_json(v) for k, v in value.params.items()}}
    if isinstance(value, Text):
        return {"text": [value.zh_hans, value.zh_hant, value.en]}
    return value if isinstance(value, (int, float)) else str(value)


def from_json(value: Any) -> Any:
    """`as_json`'s JSON as words again (only ever read from a signed address)."""
    if isinstance(value, dict) and "text" in value:
        return Text(*map(str, value["text"]))
    if isinstance(value, dict):
        return words_of(str(value["key"]), **{k: from_json(v) for k, v in value["params"].items()})
    return value


def refusal(target: str, exc: Exception) -> RedirectResponse:
    """Back to a page of the console saying why `exc` refused (its catalog key)."""
    return back(target, "error", getattr(exc, "key", None), getattr(exc, "params", None))


def shown(request: Request, lang: str, wording: str = "") -> tuple[str, str] | None:
    """The message a redirect of this console carried: (kind, text), or None; in the
    event's words where they differ (`wording`)."""
    fields = [(k, v) for k, v in request.query_params.multi_items()
              if k in ("flash", "kind") or k.startswith(("p_", "w_"))]
    if not hmac.compare_digest(request.query_params.get("sig", ""), _signature(fields)):
        return None
    key = request.query_params.get("flash", "")
    if not key.startswith(("admin.", "roster.", "error.")):
        return None
    params: dict[str, Any] = {k[2:]: v for k, v in fields if k.startswith("p_")}
    try:
        params |= {k[2:]: from_json(json.loads(v)) for k, v in fields if k.startswith("w_")}
        text = words(lang, wording)(key, **params)
    except (KeyError, IndexError, ValueError, TypeError, AttributeError):
        return None
    kind = request.query_params.get("kind")
    return ("error" if kind == "error" else "note"), text


def safe_back(target: str) -> str:
    """Only a page of this console: a path on this site under /admin, never another site
    (no `//` or backslash a browser would read as one, no scheme, no control character)."""
    path = target.split("#")[0].split("?")[0]
    ours = path == "/admin" or path.startswith("/admin/")
    return target if ours and "//" not in target and "\\" not in target and \
        target.isprintable() else "/admin"
