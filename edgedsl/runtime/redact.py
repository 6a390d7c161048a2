"""Keys kept out of everything edgedsl writes: every form a service may echo a key in.

A service that echoes a request writes the key the way its encoder writes text: as itself in
UTF-8 (or CP949), JSON-escaped (``\\/``, ``\\"``, ``\\u002b``, a surrogate pair), as an XML or
HTML character reference (``&amp;``, ``&#60;``, ``&#x3C;``), percent-encoded (``%2B``, ``+``
for a space) or percent-encoded twice (``%252B``), and any mix of these, character by character.
:class:`KeyForms` is one pattern that matches the key in every such form at once: a sequence of
one alternation per character of the key. ASCII letters and digits are matched only as
themselves (no encoder in use escapes them), so the key's longest run of them is an *anchor*: a
text without it cannot hold the key in any form, and the pattern runs only where it might.

:class:`Redactor` applies a set of keys to text, bytes and JSON-shaped values. The process-wide
set of live keys (:func:`remember`, :func:`scrub`) lets the places that write something —
traces, diagnostics, the command line's error output, the store's recorded arguments — hide
a key they never saw being injected: a backend remembers every real key it sends.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "MASK",
    "MIN_REMEMBERED",
    "KeyForms",
    "Redactor",
    "excerpt",
    "forget_all",
    "remember",
    "remember_environment",
    "remembered",
    "scrub",
]

MASK = "***"
"""What a key is replaced with."""

_SHORT_JSON = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n",
               "\r": "\\r", "\t": "\\t"}
_NAMED_XML = {"&": ("&amp;",), "<": ("&lt;",), ">": ("&gt;",), '"': ("&quot;",),
              "'": ("&apos;", "&#39;")}


def _hex(n: int, width: int) -> str:
    """A hexadecimal number as a pattern, digits in either case: exactly ``width`` digits, or
    (``width`` 0) any number of leading zeros."""
    digits = f"{n:0{width}x}" if width else f"{n:x}"
    pat = "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in digits)
    return pat if width else "0*" + pat


def _percent(data: bytes, twice: bool) -> str:
    lead = "%25" if twice else "%"
    return "".join(re.escape(lead) + _hex(b, 2) for b in data)


def _char_forms(c: str) -> list[str]:
    """The pattern alternatives of one character of a key (each a regular expression)."""
    if c.isascii() and c.isalnum():
        return [re.escape(c)]
    code = ord(c)
    utf8 = c.encode("utf-8", "surrogatepass")
    forms = [re.escape(c)]
    if c in _SHORT_JSON:
        forms.append(re.escape(_SHORT_JSON[c]))
    if code <= 0xFFFF:
        forms.append(r"\\u" + _hex(code, 4))
    else:  # a JSON encoder writes a character beyond the BMP as a surrogate pair
        hi, lo = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        forms.append(r"\\u" + _hex(hi, 4) + r"\\u" + _hex(lo, 4))
    forms.extend(re.escape(f) for f in _NAMED_XML.get(c, ()))
    forms.append("&#0*" + str(code) + ";")
    forms.append("&#[xX]" + _hex(code, 0) + ";")
    forms.append(_percent(utf8, twice=False))
    forms.append(_percent(utf8, twice=True))
    if c == " ":
        forms.append(r"\+")
    return forms


class KeyForms:
    """One key and the pattern of every form it may be written in (module docstring)."""

    __slots__ = ("anchor", "anchor_bytes", "key", "pattern", "pattern_bytes")

    def __init__(self, key: str) -> None:
        if not key:
            raise ValueError("an empty key cannot be hidden")
        self.key = key
        forms = [_char_forms(c) for c in key]
        self.pattern = re.compile("".join("(?:" + "|".join(f) + ")" for f in forms))
        # bytes: the same alternatives over the body's UTF-8 bytes, plus a character's CP949
        # bytes (some Korean services answer in EUC-KR)
        parts = []
        for c, alts in zip(key, forms, strict=True):
            options = [a.encode("utf-8", "surrogatepass") for a in alts]
            extra = _cp949(c)
            if extra is not None:
                options.append(re.escape(extra))
            parts.append(b"(?:" + b"|".join(options) + b")")
        self.pattern_bytes = re.compile(b"".join(parts))
        runs = re.findall(r"[A-Za-z0-9]+", key)
        self.anchor = max(runs, key=len) if runs else ""
        self.anchor_bytes = self.anchor.encode()

    def in_text(self, text: str) -> bool:
        """True when ``text`` holds the key in some form."""
        if self.anchor and self.anchor not in text:
            return False
        return self.pattern.search(text) is not None

    def in_bytes(self, data: bytes) -> bool:
        """True when ``data`` holds the key in some form."""
        if self.anchor_bytes and self.anchor_bytes not in data:
            return False
        return self.pattern_bytes.search(data) is not None

    def sub_text(self, text: str) -> str:
        """``text`` with every form of the key replaced by :data:`MASK`."""
        if self.anchor and self.anchor not in text:
            return text
        return self.pattern.sub(MASK, text)

    def sub_bytes(self, data: bytes) -> bytes:
        """``data`` with every form of the key replaced by :data:`MASK`."""
        if self.anchor_bytes and self.anchor_bytes not in data:
            return data
        return self.pattern_bytes.sub(MASK.encode(), data)


def _cp949(c: str) -> bytes | None:
    """The character's CP949 bytes, when it has them and they differ from its UTF-8 bytes."""
    if c.isascii():
        return None
    try:
        return c.encode("cp949")
    except UnicodeEncodeError:
        return None


@functools.lru_cache(maxsize=64)
def key_forms(key: str) -> KeyForms:
    """The :class:`KeyForms` of ``key``, made once."""
    return KeyForms(key)


class Redactor:
    """Hides a set of keys in text, bytes and JSON-shaped values (dicts, lists, tuples)."""

    __slots__ = ("forms",)

    def __init__(self, keys: Iterable[str]) -> None:
        # longest first: a key that contains another is masked whole
        self.forms = tuple(key_forms(k) for k in sorted({k for k in keys if k}, key=len,
                                                        reverse=True))

    def __bool__(self) -> bool:
        return bool(self.forms)

    def found_in(self, data: bytes | str) -> bool:
        """True when some key stands in ``data`` in some form."""
        if isinstance(data, bytes):
            return any(f.in_bytes(data) for f in self.forms)
        return any(f.in_text(data) for f in self.forms)

    def text(self, text: str) -> str:
        """``text`` with every key hidden."""
        for f in self.forms:
            text = f.sub_text(text)
        return text

    def bytes(self, data: bytes) -> bytes:
        """``data`` with every key hidden (a binary body keeps its other bytes)."""
        for f in self.forms:
            data = f.sub_bytes(data)
        return data

    def value(self, obj: Any) -> Any:
        """A JSON-shaped value with every key hidden in its texts and dict keys; a value holding
        no key is returned as it is (not copied)."""
        if not self.forms:
            return obj
        return _walk(obj, self)


def _walk(obj: Any, r: Redactor) -> Any:
    if isinstance(obj, str):
        return r.text(obj)
    if isinstance(obj, bytes):
        return r.bytes(obj)
    if isinstance(obj, list | tuple):
        out = [_walk(x, r) for x in obj]
        return obj if all(a is b for a, b in zip(out, obj, strict=True)) else out
    if isinstance(obj, dict):
        items = [(_walk(k, r), _walk(v, r)) for k, v in obj.items()]
        same = all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, obj.items(),
                                                                   strict=True))
        return obj if same else dict(items)
    return obj


# ---------------------------------------------------------------- the process's live keys

_LOCK = threading.Lock()
_LIVE: set[str] = set()
_CURRENT = Redactor(())


MIN_REMEMBERED = 8
"""The shortest key remembered process-wide. A backend masks its own key in its answers
whatever its length; but a key of a few characters (a test's ``"k"``) masked in everything the
process writes would mask ordinary words, and no real service issues one."""


def remember(key: str | None) -> None:
    """Add a key a backend sends to the process's live keys (see :func:`scrub`); a key shorter
    than :data:`MIN_REMEMBERED` is not."""
    global _CURRENT
    if not key or len(key) < MIN_REMEMBERED or key in _LIVE:
        return
    with _LOCK:
        _LIVE.add(key)
        _CURRENT = Redactor(_LIVE)


KEY_VARIABLE_PREFIX = "EDGEDSL_KEY_"
"""Environment variables named so hold platform keys (``EDGEDSL_KEY_DART`` …)."""


def remember_environment(environ: Mapping[str, str] | None = None) -> None:
    """Remember the value of every ``EDGEDSL_KEY_*`` variable, and of ``EDGEDSL_LLM_KEY``: the
    command line does so first, so that nothing it prints — a diagnostic quoting a line of the
    program, too — shows a key, whichever backend will send it."""
    env = os.environ if environ is None else environ
    for name, value in env.items():
        if name.startswith(KEY_VARIABLE_PREFIX) or name == "EDGEDSL_LLM_KEY":
            remember(value)


def remembered() -> Redactor:
    """The redactor of every live key of this process."""
    return _CURRENT


def scrub(obj: Any) -> Any:
    """``obj`` (text, bytes or a JSON-shaped value) with every live key hidden."""
    r = _CURRENT
    return r.value(obj) if r else obj


def excerpt(value: Any, limit: int = 60, *, as_text: bool = False) -> str:
    """A short form of ``value`` for a message — its ``repr``, or (``as_text``) its text with
    runs of white space folded — with every live key masked *before* it is cut, so that a key
    cannot survive half cut off at the end."""
    try:
        shown = scrub(value)
        text = " ".join(str(shown).split()) if as_text else repr(shown)
    except Exception:  # a value whose text or repr fails or recurses
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def forget_all() -> None:
    """Forget every live key (tests)."""
    global _CURRENT
    with _LOCK:
        _LIVE.clear()
        _CURRENT = Redactor(())
