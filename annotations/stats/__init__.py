"""Pure statistics: agreement (two-rater, multi-rater, bootstrap, planning), majority, PPI, run rates. No sqlite, no project.

The public names of this room; other rooms and callers import from here, never from its
private modules (rules: the map at the top of docs/decisions.md)."""

from judgecal import lazy_exports

# Each public name and the module it comes from; a module is imported when one of its names is first used
# (judgecal.lazy_exports says why).
_OWNERS = {
    "._common": (
        "Z_95", "AgreementResult", "interpret_kappa",
    ),
    "._two_rater": (
        "MIN_N_INTERVAL", "KappaInterval", "KappaResult", "ac1_batch", "cohen_kappa", "cohen_kappa_table",
        "gwet_ac1", "kappa_from_table", "kappa_interval", "mcnemar_exact", "pabak",
    ),
    "._multi_rater": (
        "fleiss_kappa", "krippendorff_alpha", "randolph_kappa",
    ),
    "._bootstrap": (
        "BootstrapCI", "bootstrap_ci",
    ),
    "._majority": (
        "majority_label",
    ),
    "._ppi": (
        "PPI_TUNE_MIN_N", "PassRate", "PPIMean", "design_weights", "ppi_mean", "ppi_pass_rate", "AllSummary",
        "summarise_all",
        "ppi_prediction", "variance_of",
    ),
    "._rates": (
        "CorrectedRate", "corrected_rate", "newcombe_difference", "percentile", "ratio",
    ),
    "._drift": (
        "KappaChange", "KappaPoint", "paired_kappa_change", "pooled_kappa_change",
    ),
    "._judge_error": (
        "ALPHA", "MIN_REGRESSION_N", "Covariate", "CovariateEffect", "cluster_robust_se", "ErrorRate",
        "JudgeErrorRegression", "ModelErrorRates", "error_rates_by_model", "holm", "judge_error_regression",
        "log2_length", "logistic_fit", "standardised", "wilson_rate",
    ),
    "._clusters": (
        "NO_CLUSTERING", "DesignEffect", "PassRateClustering", "clustered_difference", "JudgedUnits",
        "clustered_pass_rate", "judged_units", "design_effect", "ppi_design_effect", "ClusterCodes",
        "cluster_codes",
    ),
    "._planning": (
        "PLAN_HALF_WIDTH", "Z_POWER_80", "LabelPlan", "RatePlan", "VarianceParts", "labels_needed",
        "labels_needed_for_interval", "min_detectable_difference", "plan_labels", "rate_plan",
    ),
    "._corrected": (
        "LabelShare", "PairedDifference", "label_prediction", "label_predictions", "label_shares",
        "ppi_difference",
    ),
    "._rogan_gladen": (
        "MIN_BOOTSTRAP_UNITS", "MIN_YOUDEN", "RG_ITERATIONS", "RG_SEED", "RoganGladen", "rogan_gladen",
    ),
    "._lazy": (
        "beta_ppf", "binom_cdf", "ndtr", "ndtri",
    ),
}

__all__ = [name for names in _OWNERS.values() for name in names]  # the table is the one list

__getattr__, __dir__ = lazy_exports(__name__, _OWNERS)
del lazy_exports
