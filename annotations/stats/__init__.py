"""Pure statistics: agreement (two-rater, multi-rater, bootstrap, planning). No sqlite, no project.

The public names of this room; other rooms and callers import from here, never from its
private modules (rules: the map at the top of docs/decisions.md)."""

from judgecal.annotations.stats._agreement import (
    MIN_N_INTERVAL,
    Z_95,
    AgreementResult,
    BootstrapCI,
    KappaInterval,
    KappaResult,
    bootstrap_ci,
    cohen_kappa,
    cohen_kappa_table,
    fleiss_kappa,
    gwet_ac1,
    interpret_kappa,
    kappa_interval,
    krippendorff_alpha,
    labels_needed,
    labels_needed_for_interval,
    mcnemar_exact,
    pabak,
    randolph_kappa,
)

__all__ = [
    "MIN_N_INTERVAL", "Z_95", "AgreementResult", "BootstrapCI", "KappaInterval", "KappaResult", "bootstrap_ci",
    "cohen_kappa", "cohen_kappa_table", "fleiss_kappa", "gwet_ac1", "interpret_kappa", "kappa_interval",
    "krippendorff_alpha", "labels_needed", "labels_needed_for_interval", "mcnemar_exact", "pabak", "randolph_kappa",
]
