"""What every command module shares: the user-facing error and the argparse value types.

Command modules import these from here, never from `judgecal.cli` (which imports the command modules), so the
import graph has no cycle.
"""

from __future__ import annotations

import argparse
import math
import sys


# Exit codes (README, CLI reference): 0 ok, 1 a gate/threshold failed, 2 bad input or configuration,
# EXIT_NOTHING_ANSWERED a judge/run batch sent requests and got not one answer, 130 interrupted.
EXIT_NOTHING_ANSWERED = 3


class CommandError(Exception):
    """A user-facing failure: printed without a traceback, exit code 2."""


def _number(kind: type, text: str, *, low: float, low_ok: bool, high: float | None = None) -> float:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a{'n integer' if kind is int else ' number'}, got {text!r}") from None
    if kind is float and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text}")
    if not (value >= low if low_ok else value > low) or (high is not None and not value <= high):
        shown = (lambda x: f"{x:g}") if kind is float else str  # an integer bound exactly (a seed's is 2**63 - 1)
        bound = f"at least {shown(low)}" if low_ok else f"greater than {shown(low)}"
        raise argparse.ArgumentTypeError(f"expected a value {bound}{f' and at most {shown(high)}' if high else ''}, "
                                         f"got {text}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (bad values exit 2 with the flag named)."""
    return int(_number(int, text, low=1, low_ok=True))


def non_negative_int(text: str) -> int:
    return int(_number(int, text, low=0, low_ok=True))


def sqlite_int(text: str) -> int:
    """An integer SQLite can store (a seed written on the sample's rows): a larger one stopped the draw with an
    OverflowError."""
    return int(_number(int, text, low=-(2 ** 63), low_ok=True, high=2 ** 63 - 1))


def non_negative_sqlite_int(text: str) -> int:
    """An integer >= 0 that SQLite can store (an anchor's seed): a larger one stopped `anchor freeze` with an
    OverflowError."""
    return int(_number(int, text, low=0, low_ok=True, high=2 ** 63 - 1))


def name_text(text: str) -> str:
    """A name a user types again to pick what it names (an anchor): not blank, no leading or trailing whitespace
    (`--name "  "` froze an anchor only an exact copy of the spaces could select)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a name, got a blank one")
    if text != text.strip():
        raise argparse.ArgumentTypeError(f"expected a name without leading or trailing whitespace, got {text!r}")
    return text


def positive_float(text: str) -> float:
    """A finite number > 0 (NaN and inf are refused)."""
    return _number(float, text, low=0, low_ok=False)


def non_negative_float(text: str) -> float:
    return _number(float, text, low=0, low_ok=True)


def fraction(text: str) -> float:
    """A share in [0, 1]."""
    return _number(float, text, low=0, low_ok=True, high=1)


def positive_fraction(text: str) -> float:
    """A share in (0, 1]: a rate of 0 would review nothing."""
    return _number(float, text, low=0, low_ok=False, high=1)


def review_quota(text: str) -> float:
    """A review quota in [0.10, 1]: at least 10% of every judged stratum is spot-checked (the product's floor; a
    gate at a lower quota passed a judge nothing enforced it for: a review, wave 14)."""
    return _number(float, text, low=0.10, low_ok=True, high=1)


def kappa_threshold(text: str) -> float:
    """A kappa in [-1, 1]."""
    return _number(float, text, low=-1, low_ok=True, high=1)


def port(text: str) -> int:
    return int(_number(int, text, low=1, low_ok=True, high=65535))


def say(text: object = "", *, err: bool = False) -> None:
    """Print a line for the user (stdout, or stderr with err=True) with control characters escaped: ids, model
    and rubric names, labels and reasons come from imported files and model answers, and an ESC or CR in them must
    not drive the terminal. Every CLI print goes through here (a test keeps other print calls out of judgecal/)."""
    from judgecal.evalsets import printable  # here, not at the top: the package loads pydantic (issue 16.2)

    print(printable(text), file=sys.stderr if err else sys.stdout)
