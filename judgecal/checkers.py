"""The checker plugin API: what a package providing checkers imports (docs/example-checker-plugin/).

A plugin module marks its functions with `@checker("group:name")` and is named in its distribution's entry-point
group `judgecal.checkers`; judgecal lists its checkers as `<distribution>/group:name`.
"""

from judgecal.evalsets import ENTRY_POINT_GROUP, CheckResult, Step, ToolCall, checker

__all__ = ["ENTRY_POINT_GROUP", "CheckResult", "Step", "ToolCall", "checker"]
