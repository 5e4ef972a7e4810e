"""Pure statistics: agreement (two-rater, multi-rater, bootstrap, planning), majority, PPI, run rates. No sqlite, no project.

The public names of this room; other rooms and callers import from here, never from its
private modules (rules: the map at the top of docs/decisions.md)."""

from judgecal.annotations.stats._common import (
    Z_95,
    AgreementResult,
    interpret_kappa,
)
from judgecal.annotations.stats._two_rater import (
    MIN_N_INTERVAL,
    KappaInterval,
    KappaResult,
    ac1_batch,
    cohen_kappa,
    cohen_kappa_table,
    gwet_ac1,
    kappa_from_table,
    kappa_interval,
    mcnemar_exact,
    pabak,
)
from judgecal.annotations.stats._multi_rater import (
    fleiss_kappa,
    krippendorff_alpha,
    randolph_kappa,
)
from judgecal.annotations.stats._bootstrap import (
    BootstrapCI,
    bootstrap_ci,
)
from judgecal.annotations.stats._majority import (
    majority_label,
)
from judgecal.annotations.stats._ppi import (
    PPI_TUNE_MIN_N,
    PassRate,
    PPIMean,
    design_weights,
    ppi_mean,
    ppi_pass_rate,
    ppi_prediction,
    variance_of,
)
from judgecal.annotations.stats._rates import (
    CorrectedRate,
    corrected_rate,
    percentile,
    ratio,
)
from judgecal.annotations.stats._drift import (
    KappaChange,
    KappaPoint,
    paired_kappa_change,
)
from judgecal.annotations.stats._judge_error import (
    ALPHA,
    MIN_REGRESSION_N,
    Covariate,
    CovariateEffect,
    cluster_robust_se,
    ErrorRate,
    JudgeErrorRegression,
    ModelErrorRates,
    error_rates_by_model,
    holm,
    judge_error_regression,
    log2_length,
    logistic_fit,
    standardised,
    wilson_rate,
)
from judgecal.annotations.stats._clusters import (
    NO_CLUSTERING,
    DesignEffect,
    PassRateClustering,
    clustered_difference,
    JudgedUnits,
    clustered_pass_rate,
    judged_units,
    design_effect,
    ppi_design_effect,
)
from judgecal.annotations.stats._planning import (
    PLAN_HALF_WIDTH,
    Z_POWER_80,
    LabelPlan,
    RatePlan,
    VarianceParts,
    labels_needed,
    labels_needed_for_interval,
    min_detectable_difference,
    plan_labels,
    rate_plan,
)
from judgecal.annotations.stats._corrected import (
    LabelShare,
    PairedDifference,
    label_prediction,
    label_predictions,
    label_shares,
    ppi_difference,
)
from judgecal.annotations.stats._rogan_gladen import (
    MIN_YOUDEN,
    RG_ITERATIONS,
    RG_SEED,
    RoganGladen,
    rogan_gladen,
)
from judgecal.annotations.stats._lazy import beta_ppf, binom_cdf, ndtr, ndtri

__all__ = [
    "Z_95", "AgreementResult", "interpret_kappa", "MIN_N_INTERVAL", "KappaInterval", "KappaResult", "cohen_kappa",
    "cohen_kappa_table", "gwet_ac1", "kappa_interval", "mcnemar_exact", "pabak", "fleiss_kappa",
    "krippendorff_alpha", "randolph_kappa", "BootstrapCI", "bootstrap_ci", "labels_needed",
    "labels_needed_for_interval", "ac1_batch", "kappa_from_table", "majority_label", "PPI_TUNE_MIN_N", "PassRate",
    "design_weights", "ppi_pass_rate", "ppi_prediction", "CorrectedRate", "corrected_rate", "percentile", "ratio",
    "beta_ppf", "binom_cdf", "ndtr", "ndtri",
    "PPIMean", "ppi_mean", "Z_POWER_80", "LabelPlan", "VarianceParts", "min_detectable_difference", "plan_labels",
    "PLAN_HALF_WIDTH", "RatePlan", "rate_plan",
    "LabelShare", "PairedDifference", "label_prediction", "label_predictions", "label_shares", "ppi_difference",
    "ALPHA", "MIN_REGRESSION_N", "Covariate", "CovariateEffect", "cluster_robust_se", "ErrorRate", "JudgeErrorRegression",
    "ModelErrorRates", "error_rates_by_model", "holm", "judge_error_regression", "log2_length", "logistic_fit",
    "standardised", "wilson_rate", "NO_CLUSTERING", "DesignEffect", "PassRateClustering", "clustered_pass_rate",
    "design_effect", "clustered_difference", "ppi_design_effect",
    "JudgedUnits", "judged_units", "variance_of",
]
__all__ += ["KappaChange", "KappaPoint", "paired_kappa_change"]  # drift (issue 15.6)
__all__ += ["MIN_YOUDEN", "RG_ITERATIONS", "RG_SEED", "RoganGladen", "rogan_gladen"]  # cross-check of PPI (issue 15)
