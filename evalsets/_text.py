"""Text that came from outside (model answers, imported files) made safe to store and to print.

Two hazards, two rules:
- Storing: a JSON string may hold a lone surrogate escape ("\\ud800"). It is valid JSON and a valid Python str, but
  not encodable as UTF-8, so SQLite (and any UTF-8 file) refuses it. `storable` writes each one as the six
  characters `\\udXXX`: nothing is lost, the text says what was there, and the row can be stored.
- Printing: control characters (ESC, CR, C1 controls such as CSI U+009B, bidi overrides) in an imported id or
  model name would drive the terminal. `printable` writes them as visible escapes; newline and tab are kept.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 controls but newline and tab, DEL and C1 controls, line/paragraph separators, bidi embeddings/overrides/isolates,
# and lone surrogates (which a UTF-8 terminal stream cannot even encode).
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\r": "\\r", "\x1b": "\\x1b"}

UNSTORABLE_NOTE = "held text that is not valid Unicode (lone surrogate escapes); stored with each written as \\uXXXX"


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    # C0 controls get short forms (json.dumps never leaves them raw, so JSON text is not affected); everything else
    # the \uXXXX form, which is also a valid JSON escape of the same character: printed JSON stays valid JSON.
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x20 else f"\\u{ord(c):04x}")


def storable(text: str) -> str:
    """`text` with every lone surrogate written as the escape `\\udXXX` (valid text: stored as is)."""
    if not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def storable_value(value: Any) -> tuple[Any, bool]:
    """A JSON-like value (str, list, dict, nested) with every string made `storable`, and whether anything changed."""
    if isinstance(value, str):
        out = storable(value)
        return out, out is not value
    if isinstance(value, dict):
        changed = False
        result = {}
        for k, v in value.items():
            k2, c1 = storable_value(k)
            v2, c2 = storable_value(v)
            result[k2] = v2
            changed = changed or c1 or c2
        return (result, True) if changed else (value, False)
    if isinstance(value, (list, tuple)):
        items = [storable_value(v) for v in value]
        if any(c for _, c in items):
            return type(value)(v for v, _ in items), True
        return value, False
    return value, False


def printable(text: object) -> str:
    """`str(text)` with control characters written as visible escapes (`\\x1b`, `\\r`, `\\u009b`, `\\u202e`);
    newlines and tabs kept. JSON text from json.dumps stays valid JSON with the same value. Every line the CLI
    prints goes through this (judgecal.cli.say)."""
    text = str(text)
    return _UNPRINTABLE.sub(_escape, text) if _UNPRINTABLE.search(text) else text


def storable_record(record: Any) -> Any:
    """A run record whose text fields are all `storable`. A record that needed escapes is marked failed
    (`bad_response`, naming the fields; a failure already recorded keeps its cause first) and keeps its escaped
    output, so nothing is lost and nothing is passed off as a clean answer."""
    data = record.model_dump()
    changed = []
    for name, value in data.items():
        new, did = storable_value(value)
        if did:
            data[name] = new
            changed.append(name)
    if not changed:
        return record
    note = f"bad_response: the answer {UNSTORABLE_NOTE} in {', '.join(changed)}"
    data["error"] = f"{data['error']}; {note}" if data.get("error") else note
    return type(record).model_validate(data)
