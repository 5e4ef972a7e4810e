"""The human label as imported and exported: the one pydantic model of the labels, kept apart from their readings
(`_labels`) so the report and `judgecal gate` load no pydantic (issue 16.2, start-up)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from judgecal.evalsets._plain import FailureMode  # house: private
from judgecal.annotations.store._labels import LabelEvent


class HumanLabelRow(BaseModel):
    """A human label as imported and exported (`judgecal import labels` / `export labels`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_record_id: str = Field(min_length=1)
    constraint_id: str = Field(min_length=1)
    reviewer: str = Field(min_length=1)
    label: str | None = None
    event: LabelEvent = "label"
    note: str | None = None
    failure_mode: FailureMode | None = None
    seconds_spent: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    rubric_version_seen: str | None = None
    blind: bool = True
    created_at: datetime | None = None
    # the guideline versions on screen when the label was given ("project v2 + grounded v1"); None before issue 12
    guideline_version: str | None = Field(default=None, min_length=1, max_length=200)
    # The content hash of the run record's eval item in the exporting project (`export labels` writes it): a label
    # imported into a project whose item differs (an edited constraint text, label set or check) is refused.
    item_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    # The content hash of the run record's answer there (`output_sha256`): one imported onto another output under the
    # same run record id is refused.
    output_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
