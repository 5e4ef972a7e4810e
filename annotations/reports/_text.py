"""The calibration report as text, Markdown or HTML (for the terminal and for sharing); the run comparison as text.

One layout (headings, paragraphs, tables) rendered three ways. HTML escapes every value; Markdown escapes the
characters that would break a table cell or inject markup.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from typing import Any, Sequence

from judgecal.annotations.reports._calibration import Agreement, CalibrationReport, SliceStats
from judgecal.annotations.reports._decision import _pp
from judgecal.annotations.reports._runs import BUCKETS, Comparison, RunStats
from judgecal.annotations.stats import ratio as _rate
from judgecal.annotations.review import named_seeds_note

Block = tuple  # ("h", level, text) | ("p", text) | ("table", headers, rows)


def _num(x: float | None, digits: int = 3) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _pct(x: float | None) -> str:
    return "–" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


def _judge_rate(rate: Any) -> str:
    """A `PassRate`'s judge-alone rate, or why it is none: every judged pair an error row or a tie."""
    return "– (no verdict: every pair errored or tied)" if rate.judge_abstained else _pct(rate.judge_pass_rate)


def _kappa(a: Agreement | None) -> str:
    if a is None:
        return "–"
    if math.isnan(a.kappa):
        return "undefined"
    ci = "" if math.isnan(a.kappa_ci_low) else f" [{a.kappa_ci_low:.2f}, {a.kappa_ci_high:.2f}]"
    return f"{a.kappa:.3f}{ci}" + (" ~" if ci and a.kappa_ci_approximate else "")


SLICE_HEADERS = ["slice", "n", "agree", "kappa [95% CI]", "unweighted kappa", "reading", "TPR", "TNR", "AC1", "PABAK",
                 "ties/none (disagreements)", "judge errors", "labels needed"]


def _slice_row(s: SliceStats) -> list[str]:
    a, u = s.headline, s.majority
    errors = f"{s.verdict_errors} of {s.verdict_rows}"
    if a is None:
        return [s.slice, "0", "–", "–", "–", "–", "–", "–", "–", "–", f"{s.excluded_tie}/{s.excluded_no_valid}",
                errors, "–"]
    robust = a.prevalence_dominant
    return [
        s.slice, str(a.n), f"{a.agree} ({_pct(a.pct_agreement)})", _kappa(a), _kappa(u), a.interpretation,
        _pct(a.tpr) if a.tpr is not None else "n/a", _pct(a.tnr) if a.tnr is not None else "n/a",
        _num(a.gwet_ac1, 2) + (" *" if robust else ""), _num(a.pabak, 2) + (" *" if robust else ""),
        f"{s.excluded_tie}/{s.excluded_no_valid}", errors,
        str(a.labels_needed) if a.labels_needed is not None else "–",
    ]


def _clustering_blocks(g: Any) -> list[Block]:
    """(issue 15.5) Say that the intervals are clustered by item, over how many clusters, and by how much."""
    a = g.overall.headline
    if a is None or not a.ci_clustered_by:
        return []
    return [("p", f"Kappa and pass-rate CIs are clustered by {a.ci_clustered_by}: pairs that share an item (its "
                  f"constraints, its runs by each model) are not independent. Overall kappa: CI clustered by "
                  f"{a.ci_clustered_by}, {a.clusters} clusters over {a.n} pairs, design effect {a.design_effect:.2f} "
                  f"(effective pairs {a.n_effective:.1f}).")]


def _judge_error_blocks(g: Any) -> list[Block]:
    """(issue 15.2) TPR/TNR per model under test, and the covariates the judge's errors depend on (only those
    significant after Holm; all of them are in the JSON)."""
    je = g.judge_error
    if je is None:
        return []

    def rate(r: Any) -> str:
        return "–" if r.n == 0 else f"{r.hits}/{r.n} {_pct(r.rate)} [{_pct(r.low)}, {_pct(r.high)}]"

    out: list[Block] = [("table", ["model under test", "counted pairs", "TPR (fail caught) [95% Wilson]",
                                   "TNR (pass cleared) [95% Wilson]", "judge abstained"],
                         [[m.model, str(m.n), rate(m.tpr), rate(m.tnr), str(m.abstain)] for m in je.by_model])]
    for e in je.regression.flagged:
        direction = "more" if e.odds_ratio > 1 else "less"
        out.append(("p", f"WARNING: judge error depends on {e.covariate}: among pairs with the same human label the "
                         f"judge says pass {direction} often as it grows (odds ratio {_num(e.odds_ratio, 2)} per "
                         f"{e.unit} [{_num(e.ci_low, 2)}, {_num(e.ci_high, 2)}], p = {e.p_value:.2g}, Holm-adjusted "
                         f"{e.p_holm:.2g} over {sum(x.reason is None for x in je.regression.effects)} covariates, "
                         f"n = {e.n}). A change in {e.covariate} between runs moves the judge's pass rate without "
                         "the quality moving."))
    return out


def _rogan_gladen_blocks(g: Any) -> list[Block]:
    """(issue 15) The Rogan–Gladen cross-check, a row per model under test beside its PPI corrected rate. On a
    random labelled sample both estimate the same rate; a WARNING when their intervals do not overlap."""
    if not g.rogan_gladen:
        return []
    ppi = {p.model: p for p in g.pass_rates}
    rows, apart = [], []
    for r in g.rogan_gladen:
        p = ppi.get(r.model)
        ppi_txt = "–" if p is None else f"{_pct(p.ppi_estimate)} [{_pct(p.ppi_ci_low)}, {_pct(p.ppi_ci_high)}]"
        rg_txt = (f"undefined ({r.reason})" if r.reason else
                  f"{_pct(r.estimate)} [{_pct(r.ci_low)}, {_pct(r.ci_high)}]")
        rows.append([r.model, ppi_txt, rg_txt, _num(r.youden, 2)])
        if (p is not None and not r.reason and not math.isnan(p.ppi_ci_low)
                and (r.ci_low > p.ppi_ci_high or r.ci_high < p.ppi_ci_low)):
            apart.append(r.model)
    out: list[Block] = [
        ("table", ["model under test", "corrected (PPI) [95% CI]", "Rogan–Gladen cross-check [95% bootstrap CI]",
                   "TPR + TNR − 1"], rows),
        ("p", "Rogan–Gladen (1978) corrects the judge's pass rate with its TPR/TNR on the labelled pairs "
              "(design-weighted); percentile bootstrap resampling the labelled items, "
              f"{g.rogan_gladen[0].iterations} resamples, seed {g.rogan_gladen[0].seed}, the judge's pass rate held "
              "fixed. A cross-check: PPI is the headline, since it does not assume the judge's TPR/TNR on the "
              "labelled pairs carry over to the rest.")]
    if apart:
        out.append(("p", f"WARNING: the Rogan–Gladen and PPI intervals do not overlap for {', '.join(apart)}. On a "
                         "random labelled sample both estimate the same rate: the labelled pairs may not represent "
                         "the judged ones (a stratum without labels, labels not drawn at random), or it is chance."))
    return out


def report_blocks(report: CalibrationReport, comparison: Any = None) -> list[Block]:
    b: list[Block] = [("h", 1, "judgecal calibration report")]
    f = {k: v for k, v in report.filters.items() if v}
    b.append(("p", "Filters: " + (", ".join(f"{k}={v}" for k, v in f.items()) if f else "none")
              + f". Review quota: {report.rate:.0%} of every stratum. Agreement uses the counted pairs only (each draw "
              "order's labelled prefix, each reviewer's blind first label); "
              + report.majority_rule + "."))
    if report.below_quota:
        b.append(("p", f"WARNING: {len(report.below_quota)} stratum(s) below the review quota: these numbers are "
                       "not yet verified."))
    if report.named_seeds:
        b.append(("p", f"NOTE: {named_seeds_note(report.named_seeds)}."))
    if not report.groups:
        b.append(("p", "No judge verdicts match: run `judgecal judge` (or import verdicts) first."))
    for g in report.groups:
        b.append(("h", 2, f"Judge {g.judge_model} · rubric {g.rubric_name} v{g.rubric_version} ({g.rubric_sha256[:12]})"))
        b.append(("table", SLICE_HEADERS,
                  [_slice_row(s) for s in (g.overall, *g.by_label_set, *g.by_constraint, *g.by_type)]))
        b.append(("p", "Agreement, kappa, TPR/TNR, AC1 and PABAK are design-weighted: each pair counts N_s / n_s "
                       "(judged / labelled pairs of its stratum), since the quota samples small strata at a higher "
                       "rate; the unweighted kappa is beside it. A judge tie or a pair without a valid repeat counts "
                       "as a disagreement (ties/none). 95% CI: Wilson score bound on the observed agreement mapped to "
                       "kappa, joined with the Wald interval, within [-1, 1]; ~ approximate (under 30 pairs). "
                       "TPR/TNR: fail is the positive class. * one label exceeds 80% of all labels: read AC1/PABAK. "
                       "Labels needed: more random labels for a kappa CI half-width of 0.10."))
        o = g.overall
        if o.verdict_errors:
            b.append(("p", f"{o.verdict_errors} of the {o.verdict_rows} verdict rows were judge errors (no label); "
                           "per slice in the table above."))
        if o.changed_after_reveal and o.majority is not None:
            b.append(("p", f"{o.changed_after_reveal} of the {o.majority.n} compared labels were changed after the "
                           "judge's verdict was shown (blind=0) or withdrawn: the changes are kept but not used, the "
                           "blind first label is."))
        nr = g.non_random
        if nr is not None and nr.n:
            b.append(("p", f"{nr.n} labels on pairs that do not count ({nr.beyond_prefix} beyond the labelled prefix "
                           f"of the draw order, {nr.targeted} targeted, {nr.unsampled} never sampled"
                           + (f", {nr.paired} only in a paired sample of two runs" if nr.paired else "")
                           + "); judge agrees on "
                           + (f"{nr.majority.agree} of {nr.majority.n}" if nr.majority else "none")
                           + (". Not used in any number here." if nr.paired else ". Not used in any number.")))
        b.append(("p", f"Verified on: {g.verified_on}."))
        if g.ignored_repeat_rows:
            b.append(("p", f"{g.ignored_repeat_rows} verdict rows of repeats that not every judged pair has were "
                           f"left out (repeats used: {', '.join(map(str, g.repeats_used)) or 'none'}): the judge "
                           "gated is the one run on the whole population."))
        for gap in g.population_gaps:
            b.append(("p", f"Judged {gap.judged} of the {gap.population} semantic pairs of {gap.constraint_id} × "
                           f"{gap.model}: the gate fails this judge model × version until it judged them all."))
        if o.majority is not None:
            labels = o.majority.labels
            b.append(("table", ["judge \\ human", *labels],
                      [[lab, *map(str, row)] for lab, row in zip(labels, o.majority.confusion)]))
        b.append(("table", ["repeat", "n", "agree with human", "kappa [95% CI]"],
                  [[str(r.repeat), str(r.vs_human.n if r.vs_human else 0),
                    f"{r.vs_human.agree} ({_pct(r.vs_human.pct_agreement)})" if r.vs_human else "–", _kappa(r.vs_human)]
                   for r in o.per_repeat]
                  + [["all repeats right", str(o.random_labelled), str(o.all_repeats_correct), ""]]))
        # per label set when the group mixes label sets (a pooled repeat-vs-repeat kappa misleads like the headline)
        rvr = [(h, r) for h in g.headline for r in h.repeat_vs_repeat]
        if rvr:
            b.append(("table", ["repeats", "both labelled", "agree", "both error", "one error", "kappa [95% CI]"],
                      [[f"{r.repeat_a} vs {r.repeat_b}" + ("" if h.slice == "overall" else f" ({h.slice})"),
                        str(r.both_labelled), str(r.agree), str(r.both_error),
                        str(r.one_error), _kappa(r.agreement)] for h, r in rvr]))
        b.append(("table", ["slice", "pairs (≥2 repeats)", "flipped", "flip rate", "targeted labelled",
                            "targeted agree (biased)"],
                  [[s.slice, str(s.consistency.pairs), str(s.consistency.flipped), _pct(s.consistency.flip_rate),
                    str(s.targeted_labelled), f"{s.targeted.agree}/{s.targeted.n}" if s.targeted else "–"]
                   for s in (g.overall, *g.by_constraint)]))
        if g.pass_rates:
            b.append(("table", ["model under test", "judged", "judge pass rate", "labelled", "human pass rate",
                                "corrected (PPI) [95% CI]"],
                      [[p.model, str(p.n_judged), _judge_rate(p), str(p.n_labelled), _pct(p.human_pass_rate),
                        f"{_pct(p.ppi_estimate)} [{_pct(p.ppi_ci_low)}, {_pct(p.ppi_ci_high)}] {p.method}"
                        + (f" ({p.reason})" if p.reason else "")] for p in g.pass_rates]))
        b += _rogan_gladen_blocks(g)
        if g.label_rates:
            b.append(("table", ["model under test", "label set", "label", "judge share", "labelled", "human share",
                                "corrected (PPI) [95% CI]"],
                      [[x.model, x.label_set, x.label, _judge_rate(x.rate), str(x.rate.n_labelled),
                        _pct(x.rate.human_pass_rate),
                        f"{_pct(x.rate.ppi_estimate)} [{_pct(x.rate.ppi_ci_low)}, {_pct(x.rate.ppi_ci_high)}] "
                        f"{x.rate.method}" + (f" ({x.rate.reason})" if x.rate.reason else "")]
                       for x in g.label_rates]))
        if g.plans:
            b.append(("table", ["label planning", "labelled", "95% half-width now",
                                f"more labels for ±{100 * g.plans[0].target_half_width:g} points",
                                "more labels per run, difference of two runs", "smallest detectable difference"],
                      [[p.model + (f" · {p.label.rsplit(': ', 1)[-1]}" if p.label else ""), str(p.n_labelled),
                        _points(p.half_width),
                        _more(p.more_labels, p.reason), _more(p.more_labels_difference, p.difference_reason),
                        _points(p.mdd, "")] for p in g.plans]))
        b += _clustering_blocks(g) + _judge_error_blocks(g)
    b.append(("h", 2, "Human vs human (overlap pairs: the ceiling)"))
    if report.human_human:
        b.append(("table", ["slice", "pairs", "agree", "kappa [95% CI]", "reading"],
                  [[h.slice, str(h.overlap_pairs), f"{h.agreement.agree} ({_pct(h.agreement.pct_agreement)})",
                    _kappa(h.agreement), h.agreement.interpretation] for h in report.human_human if h.agreement]))
    else:
        b.append(("p", "No overlap pair has labels from two reviewers yet: nothing says how far humans agree with each "
                       "other, the ceiling the judge's kappa should be read against."))
    b.append(("h", 2, "Review coverage (random sample)"))
    b.append(("table", ["stratum", "semantic pairs", "judged", "labelled", "needed", "status"],
              [[c.stratum, str(c.population), str(c.judged), str(c.labelled), str(c.needed),
                "ok" if c.ok else "BELOW QUOTA" + (f": {c.reason}" if c.reason else "")]
               for c in report.coverage]))
    if comparison is not None:
        from judgecal.annotations.reports._rubrics import comparison_blocks

        b += comparison_blocks(comparison)
    return b


def kappa_rows(report: CalibrationReport) -> list[dict[str, Any]]:
    """One row per judge model × rubric version × slice with a defined majority kappa (for plots)."""
    out = []
    for g in report.groups:
        for s in (g.overall, *g.by_label_set, *g.by_constraint, *g.by_type):
            a = s.headline
            if a is None or math.isnan(a.kappa):
                continue
            out.append({"judge": g.judge_model, "rubric": f"{g.rubric_name} v{g.rubric_version}",
                        "rubric_name": g.rubric_name, "version": g.rubric_version, "created_at": g.rubric_created_at,
                        "slice": s.slice, "kappa": a.kappa, "ci_low": a.kappa_ci_low, "ci_high": a.kappa_ci_high,
                        "n": a.n, "agreement": a.pct_agreement,
                        "kappa_unweighted": s.majority.kappa if s.majority is not None else math.nan})
    return out


def confusion_rows(agreement: Agreement) -> list[dict[str, Any]]:
    """Cells of a confusion matrix (rows = judge, columns = human) as records, for a heatmap."""
    return [{"judge": j, "human": h, "pairs": agreement.confusion[i][k]}
            for i, j in enumerate(agreement.labels) for k, h in enumerate(agreement.labels)]


def slice_table(report: CalibrationReport) -> list[dict[str, Any]]:
    """The judge-vs-human table of `report_blocks` as records (one per judge model × rubric version × slice)."""
    return [{"judge": g.judge_model, "rubric": f"{g.rubric_name} v{g.rubric_version}",
             **dict(zip(SLICE_HEADERS, _slice_row(s)))}
            for g in report.groups for s in (g.overall, *g.by_label_set, *g.by_constraint, *g.by_type)]


# --------------------------------------------------------------------------- renderers


def _text(blocks: Sequence[Block]) -> str:
    out: list[str] = []
    for block in blocks:
        if block[0] == "h":
            out += ["", block[2], ("=" if block[1] == 1 else "-") * len(block[2])]
        elif block[0] == "p":
            out += [block[1]]
        else:
            headers, rows = block[1], block[2]
            widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
            out.append("")
            out.append("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip())
            out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
            out.append("")
    return "\n".join(out).strip() + "\n"


def _md_cell(x: Any) -> str:
    s = str(x)
    for ch in "\\`*_[]<>|":
        s = s.replace(ch, "\\" + ch)
    return s.replace("\n", " ")


def _markdown(blocks: Sequence[Block]) -> str:
    out: list[str] = []
    for block in blocks:
        if block[0] == "h":
            out += ["#" * block[1] + " " + _md_cell(block[2]), ""]
        elif block[0] == "p":
            out += [_md_cell(block[1]), ""]
        else:
            headers, rows = block[1], block[2]
            out.append("| " + " | ".join(map(_md_cell, headers)) + " |")
            out.append("|" + "---|" * len(headers))
            out += ["| " + " | ".join(map(_md_cell, r)) + " |" for r in rows]
            out.append("")
    return "\n".join(out)


def _html(blocks: Sequence[Block]) -> str:
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8"><title>judgecal calibration report</title>',
           "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
           "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}</style></head><body>"]
    for block in blocks:
        if block[0] == "h":
            out.append(f"<h{block[1]}>{e(block[2])}</h{block[1]}>")
        elif block[0] == "p":
            out.append(f"<p>{e(block[1])}</p>")
        else:
            out.append("<table><thead><tr>" + "".join(f"<th>{e(str(h))}</th>" for h in block[1]) + "</tr></thead><tbody>")
            out += ["<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in r) + "</tr>" for r in block[2]]
            out.append("</tbody></table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def format_report(report: CalibrationReport, fmt: str = "text", comparison: Any = None) -> str:
    """The report as "text", "md" or "html"."""
    blocks = report_blocks(report, comparison)
    if fmt == "text":
        return _text(blocks)
    if fmt == "md":
        return _markdown(blocks)
    if fmt == "html":
        return _html(blocks)
    raise ValueError(f"unknown format {fmt!r}: text, md or html")

# --------------------------------------------------------------------------- run comparison


def _ci(s: RunStats) -> str:
    if s.judge_corrected_pass_rate is None:
        return "-"
    if s.judge_corrected_ci_low is None:
        # (one labelled pair: no variance of the correction; said, not left as a bare number: a review, wave 14)
        return f"{_pp(s.judge_corrected_pass_rate)} [CI undefined: too few labelled pairs to estimate it]"
    return f"{_pp(s.judge_corrected_pass_rate)} [{_pp(s.judge_corrected_ci_low)}, {_pp(s.judge_corrected_ci_high)}]"


def _clustered(s: RunStats) -> str:
    if s.judge_corrected_design_effect is None or not s.judge_corrected_ci_clustered_by:
        return "-"
    return f"{s.judge_corrected_clusters} {s.judge_corrected_ci_clustered_by}s, deff {s.judge_corrected_design_effect:.2f}"


def _share(t: tuple[int, int] | None) -> str:
    return "-" if t is None else f"{_pp(_rate(t[0], t[1]))} of {t[1]}"


def _spread(s: RunStats, key: str) -> str:
    if key not in s.repeat_spread:
        return "-"
    mean, sd = s.repeat_spread[key]
    return f"{100 * mean:.1f}% ± {100 * sd:.1f} (SD, {s.repeats} repeats)"


def _fmt(x: float | None, spec: str = ".1f", suffix: str = "") -> str:
    return "-" if x is None else f"{x:{spec}}{suffix}"


def _points(x: float | None, sign: str = "±") -> str:
    return "–" if x is None or math.isnan(x) else f"{sign}{100 * x:.1f} points"


def _more(n: int | None, reason: str | None) -> str:
    if n is None:
        return "– (label 2 pairs first)" if reason and reason.startswith("at least two") else (
            f"– ({reason})" if reason else "–")
    return str(n) + (" (all the unlabelled pairs)" if reason else "")


def format_comparison(c: Comparison) -> str:
    a, b = c.a, c.b
    rows = [
        ("run", a.run_id, b.run_id),
        ("model", ", ".join(a.models), ", ".join(b.models)),
        ("tasks", str(a.tasks), str(b.tasks)),
        ("task completion (no error)", _pp(a.completion_rate), _pp(b.completion_rate)),
        ("tool-call parse rate", f"{_pp(a.tool_parse_rate)} of {a.tool_calls}", f"{_pp(b.tool_parse_rate)} of {b.tool_calls}"),
        ("structured-output pass rate", f"{_pp(a.structured_pass_rate)} of {a.structured_checked}",
         f"{_pp(b.structured_pass_rate)} of {b.structured_checked}"),
        ("constraint pass rate", f"{_pp(a.constraint_pass_rate)} of {a.constraints_settled}",
         f"{_pp(b.constraint_pass_rate)} of {b.constraints_settled}"),
        ("  per-task mean", _pp(a.per_task_pass_rate), _pp(b.per_task_pass_rate)),
        ("  unjudged semantic constraints", str(a.constraints_unjudged), str(b.constraints_unjudged)),
        ("  settled by human labels", str(a.human_settled), str(b.human_settled)),
        ("judge-corrected pass rate", _ci(a), _ci(b)),
    ]
    if a.judge_corrected_ci_low is not None or b.judge_corrected_ci_low is not None:
        rows.append(("  CI clustered by item", _clustered(a), _clustered(b)))
    rows += [
        ("mean rounds", _fmt(a.mean_rounds, ".2f"), _fmt(b.mean_rounds, ".2f")),
        ("input tokens (total)", str(a.input_tokens), str(b.input_tokens)),
        ("output tokens (total)", str(a.output_tokens), str(b.output_tokens)),
        ("tokens per task (mean)", _fmt(a.mean_tokens_per_task, ".0f"), _fmt(b.mean_tokens_per_task, ".0f")),
        ("  token outliers (Tukey)", str(len(a.token_outliers)), str(len(b.token_outliers))),
        ("truncated (finish_reason length)", str(a.truncated), str(b.truncated)),
        ("mean latency", _fmt(a.mean_latency_ms, ".0f", " ms"), _fmt(b.mean_latency_ms, ".0f", " ms")),
        ("P50 latency", _fmt(a.p50_latency_ms, ".0f", " ms"), _fmt(b.p50_latency_ms, ".0f", " ms")),
        ("P95 latency", _fmt(a.p95_latency_ms, ".0f", " ms"), _fmt(b.p95_latency_ms, ".0f", " ms")),
        ("cost", _fmt(a.cost, ".4f") if a.cost is not None else "no price set",
         _fmt(b.cost, ".4f") if b.cost is not None else "no price set"),
        ("cost per task", _fmt(a.cost_per_task, ".5f"), _fmt(b.cost_per_task, ".5f")),
    ]
    for title, attr in (("pass rate by type", "by_type"), ("pass rate settled by", "by_source")):
        for key in sorted(set(getattr(a, attr)) | set(getattr(b, attr))):
            rows.append((f"{title}: {key}", _share(getattr(a, attr).get(key)), _share(getattr(b, attr).get(key))))
    spread_keys = sorted(set(a.repeat_spread) | set(b.repeat_spread))
    for key in spread_keys:
        rows.append((f"over repeats: {key.replace('_', ' ')}", _spread(a, key), _spread(b, key)))
    diff = c.difference
    if diff is not None:
        rows.append((f"pass-rate drop A - B ({diff.kind})", f"{diff.drop_points:.2f} points",
                     f"[{diff.low:.2f}, {diff.high:.2f}] 95% CI" + (
                         f", p = {diff.p_value:.2g}" if diff.p_value is not None else "") + (
                         f", clustered by {diff.ci_clustered_by} (deff {diff.design_effect:.2f})"
                         if diff.ci_clustered_by and diff.design_effect is not None else "")))
        if diff.mdd_points is not None and not math.isnan(diff.mdd_points):
            rows.append(("  smallest drop these labels detect", f"{diff.mdd_points:.2f} points",
                         "80% power, two-sided 5%"))
    p = c.paired
    if p is not None:
        rows.append(("paired corrected difference A - B", f"{100 * p.estimate:+.2f} points" if p.defined else "n/a",
                     (f"[{100 * p.low:+.2f}, {100 * p.high:+.2f}] 95% CI, p = {p.p_value:.2g}; {p.n_labelled} of "
                      f"{p.n_units} items labelled in both runs; {p.method}; judge alone {100 * p.judge_difference:+.2f}"
                      if p.defined else (p.reason or ""))))
    for cause in sorted(set(a.errors) | set(b.errors)):
        rows.append((f"error rate: {cause}", _pp(a.error_rates.get(cause, 0.0)), _pp(b.error_rates.get(cause, 0.0))))
    w0, w1 = max(len(r[0]) for r in rows), max(len(r[1]) for r in rows)
    lines = [f"{r[0]:<{w0}}  {r[1]:<{w1}}  {r[2]}" for r in rows]
    lines.append("")
    counts = Counter(o.bucket for o in c.items)
    lines.append("items: " + ", ".join(f"{name.replace('_', ' ')} {counts.get(name, 0)}" for name in BUCKETS))
    for name, title in (("both_fail", "both fail (check the item first: it may be broken)"),
                        ("only_a", "only A passes"), ("only_b", "only B passes")):
        group = c.bucket(name)
        if group:
            lines.append(f"{title}:")
            for o in group:
                lines.append(f"  {o.item_id}  A failed: {', '.join(o.a_failed) or '-'}  B failed: {', '.join(o.b_failed) or '-'}")
    scenarios = sorted(set(a.by_scenario) | set(b.by_scenario))
    if len(scenarios) > 1:
        lines.append("by scenario (constraint pass rate, A -> B):")
        w = max(len(k) for k in scenarios)
        lines += [f"  {k:<{w}}  {_share(a.by_scenario.get(k))} -> {_share(b.by_scenario.get(k))}" for k in scenarios]
    modes = sorted(set(a.failure_modes) | set(b.failure_modes))
    if modes:
        lines.append("failure modes (reviewers' tags on failing pairs): " + "; ".join(
            f"{k} {a.failure_modes.get(k, 0)} -> {b.failure_modes.get(k, 0)}" for k in modes))
    for s in (a, b):
        if s.flipping_items:
            lines.append(f"{s.run_id}: items whose outcome flips between repeats: {', '.join(s.flipping_items)}")
        if s.token_outliers:
            lines.append(f"{s.run_id}: token outliers: {', '.join(s.token_outliers)}")
    lines += [f"warning: {w.text}" for w in c.warnings]
    if c.paired_note:
        lines.append(f"note: {c.paired_note}")
    if c.decision is not None:
        lines.append("")
        lines.append("verdict: " + {"switch": "SWITCH to B", "undecided": "UNDECIDED (DON'T SWITCH yet)"}.get(
            c.decision.status, "DON'T SWITCH"))
        for r in c.decision.reasons:
            lines.append(f"  [{'ok' if r.ok else ('UNDECIDED' if r.status == 'undecided' else 'FAIL')}] {r.detail}")
    src = a.judge_corrected_source or b.judge_corrected_source
    if src:
        lines.append(f"judge-corrected rates rest on one judge × rubric version for both runs: {src}")
    return "\n".join(lines)


__all__ = ["confusion_rows", "format_comparison", "format_report", "kappa_rows", "report_blocks", "slice_table"]
