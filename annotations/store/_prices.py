"""Model prices (USD per million tokens), stored as settings rows `price:<model>`."""

from __future__ import annotations

import json
import math
from typing import NamedTuple

import sqlite_utils

from judgecal.annotations.store._schema import write


class Price(NamedTuple):
    input_per_million: float
    output_per_million: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """USD for these token counts."""
        return (input_tokens * self.input_per_million + output_tokens * self.output_per_million) / 1_000_000

    def batch_api(self) -> Price:
        """The price of the same tokens sent through the Batch API (`judge --batch`): BATCH_DISCOUNT of both."""
        return Price(self.input_per_million * BATCH_DISCOUNT, self.output_per_million * BATCH_DISCOUNT)


# The Batch API bills input and output tokens at half the synchronous price (https://platform.openai.com/docs/guides/batch);
# verdicts landed from a batch are costed at this share of the model's stored price.
BATCH_DISCOUNT = 0.5


def set_price(db: sqlite_utils.Database, model: str, input_per_million: float, output_per_million: float) -> None:
    """Store the price of a judge model (settings key `price:<model>`)."""
    if not (0 <= input_per_million < math.inf and 0 <= output_per_million < math.inf):  # NaN fails too
        raise ValueError("prices must be finite and not negative")
    value = json.dumps({"input_per_million": input_per_million, "output_per_million": output_per_million})
    with write(db):
        db.execute("INSERT INTO settings VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                   [f"price:{model}", value])


def _price(value: str) -> Price:
    data = json.loads(value)
    return Price(float(data["input_per_million"]), float(data["output_per_million"]))


def get_price(db: sqlite_utils.Database, model: str) -> Price | None:
    row = db.execute("SELECT value FROM settings WHERE key = ?", [f"price:{model}"]).fetchone()
    if row is None:
        return None
    return _price(row[0])


def list_prices(db: sqlite_utils.Database) -> dict[str, Price]:
    out = {}
    for key, value in db.execute("SELECT key, value FROM settings WHERE key LIKE 'price:%' ORDER BY key"):
        out[key[len("price:"):]] = _price(value)
    return out
