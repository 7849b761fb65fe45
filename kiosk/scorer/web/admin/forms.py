"""Reading a console form's fields, and the refusal a badly filled field gets (words, never
Python's): an empty required field, a number that is not one."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request

from ....errors import AdminError

Said = tuple[str, dict[str, Any]]  # a catalog key and its parameters


class FormRefusal(AdminError):
    """A refusal made by the console itself, from the form (an empty field, not a number)."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.explained(key, **params)


def text(form: Mapping[str, Any], name: str) -> str:
    """A field as typed, trimmed (a form's, or an address's query)."""
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def required(label: str) -> Any:
    raise FormRefusal("admin.error.required", field=label)


def players(form: FormData) -> tuple[str, ...]:
    return tuple(text(form, f"player{i}") for i in range(1, 5))


def confirmed(form: FormData) -> bool:
    return form.get("confirmed") == "1"


_MISSING: Any = object()


def whole(form: Mapping[str, Any], name: str, label: str, default: Any = _MISSING) -> Any:
    """The field as a whole number; `default` when empty (refused when there is none)."""
    return _typed(form, name, label, default, int, "admin.error.whole_number")


def number(form: FormData, name: str, label: str, default: Any = _MISSING) -> Any:
    """The field as a finite number; `default` when empty (refused when there is none)."""
    return _typed(form, name, label, default, _finite, "admin.error.number")


def _finite(typed: str) -> float:
    value = float(typed)
    if not math.isfinite(value):
        raise ValueError(typed)
    return value


def _typed(form: Mapping[str, Any], name: str, label: str, default: Any,
           parse: Callable[[str], Any], refusal: str) -> Any:
    typed = text(form, name)
    if not typed:
        return required(label) if default is _MISSING else default
    try:
        return parse(typed)
    except ValueError:
        raise FormRefusal(refusal, field=label, value=typed[:20]) from None


def shown_number(value: float) -> str:
    """5 as "5", 2.5 as "2.5" (never "5.0")."""
    return str(int(value)) if value == int(value) else f"{value:g}"


def query_int(request: Request, name: str, default: int) -> int:
    try:
        return int(request.query_params.get(name, default))
    except ValueError:
        return default


def shown(request: Request, filters: dict[str, Any]) -> str:
    """The filter the address asks for (`?show=`), or "" (everything)."""
    show = request.query_params.get("show", "")
    return show if show in filters else ""
