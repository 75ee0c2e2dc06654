"""The one error the engine raises for bad input.

`HandError(message, code=<a stable snake_case code>, **params)`: `message` is English (the command line
prints it); `code` names the error for every language and `params` are the values its templates
fill in (webapp/messages/*.json). A param that is itself an error (`cause=exc`) is kept as
{"code", "params"}, so a message such as "hand 3: …" is translated as a whole. Long values are cut
(`short`), so an error never echoes a huge input.
"""
from __future__ import annotations

import math

MAX_VALUE = 40       # characters of a user value kept in a message or a param
MAX_MESSAGE = 300    # characters of a whole message


def short(value, limit: int = MAX_VALUE) -> str:
    """repr(value) (a string as is), cut to `limit` characters with an ellipsis.

    >>> short("x" * 100)[-5:], len(short("x" * 100))
    ('xxxx…', 40)
    >>> short(None), short([1, 2])
    ('None', '[1, 2]')
    """
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def short_repr(value, limit: int = MAX_VALUE) -> str:
    """repr(value) cut to `limit` characters, for messages that quote a value.

    >>> short_repr(5), short_repr("abc"), len(short_repr("x" * 100))
    ('5', "'abc'", 40)
    """
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def clean_params(params: dict) -> dict:
    """JSON-safe, size-bounded params: numbers and booleans kept, errors nested, the rest cut. A
    float that is no JSON number (inf, nan: from a damaged stored row) is quoted as text, or the
    whole answer (the list of games with it) would be JSON no browser parses.

    >>> clean_params({"n": 3, "x": float("inf"), "s": "abc"})
    {'n': 3, 'x': 'inf', 's': 'abc'}
    """
    out = {}
    for key, value in params.items():
        if isinstance(value, float) and not math.isfinite(value):
            out[key] = short(value)
        elif isinstance(value, (bool, int, float)) or value is None:
            out[key] = value
        elif hasattr(value, "code") and hasattr(value, "params"):
            out[key] = {"code": value.code, "params": value.params, "message": cut(str(value))}
        elif isinstance(value, dict) and "code" in value:
            out[key] = value
        else:
            out[key] = short(value)
    return out


def cut(message: str, limit: int = MAX_MESSAGE) -> str:
    return message if len(message) <= limit else message[:limit - 1] + "…"


class HandError(ValueError):
    """Input that is not a valid tile, hand, meld, context or rule table."""

    def __init__(self, message: str, code: str = "bad_input", **params):
        message = cut(str(message))
        super().__init__(message)
        self.message = message
        self.code = code
        self.params = clean_params(params)

    def as_dict(self) -> dict:
        return {"error": self.message, "code": self.code, "params": self.params}
