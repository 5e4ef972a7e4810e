"""The review sample's row as exported and imported: its one pydantic model, kept apart from the draw (`_sampling`)
so the report and `judgecal gate` load no pydantic (issue 16.2, start-up)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from judgecal.annotations.store import instant


class SampleRow(BaseModel):
    """One row of the review sample as exported and imported (`judgecal export samples` / `import samples`):
    the rule, the stratum it was drawn in, and the seed that fixes its population's draw order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_record_id: str = Field(min_length=1)
    constraint_id: str = Field(min_length=1)
    rule: Literal["random", "targeted", "overlap", "paired"]
    stratum: str = Field(min_length=1)
    reason: str | None = None
    seed: int | None = Field(default=None, ge=-(2 ** 63), le=2 ** 63 - 1)  # what SQLite stores
    drawn_at: str = Field(min_length=1)

    @field_validator("drawn_at")
    @classmethod
    def _a_time(cls, value: str) -> str:
        """An ISO 8601 time (as `export samples` writes it): an import compares it with the verdicts' times."""
        try:
            instant(value)
        except ValueError:
            raise ValueError(f"not an ISO 8601 time: {value!r}") from None
        return value
