"""Published-value tests for annotations.stats.

Every numeric expectation cites the printout it comes from. Tolerances match
the number of decimals printed in the source (half a unit in the last place).
"""

import math

import numpy as np
import pytest

from judgecal.annotations.stats import (
    AgreementResult,
    BootstrapCI,
    KappaResult,
    Z_95,
    bootstrap_ci,
    cohen_kappa,
    cohen_kappa_table,
    fleiss_kappa,
    gwet_ac1,
    interpret_kappa,
    krippendorff_alpha,
    labels_needed,
    mcnemar_exact,
    pabak,
    randolph_kappa,
)


def close(x, expected, decimals):
    """True when x rounds to the printed value (half-ulp of the printout)."""
    return abs(x - expected) <= 0.5 * 10.0 ** (-decimals) + 1e-12


def expand(table):
    """Item-level label arrays (rater A, rater B) from a contingency table."""
    t = np.asarray(table)
    i, j = np.indices(t.shape)
    return np.repeat(i.ravel(), t.ravel()), np.repeat(j.ravel(), t.ravel())


def counts_from_ratings(ratings, categories):
    """Subjects x categories count matrix from a subjects x raters matrix."""
    r = np.asarray(ratings)
    return np.stack([(r == c).sum(1) for c in categories], axis=1)


# ---------------------------------------------------------------------------
# Data sets
# ---------------------------------------------------------------------------

# 3x3 table with a SAS PROC FREQ printout, reproduced in statsmodels'
# statsmodels/stats/tests/test_inter_rater.py ("table10", "comparison to
# printout of a SAS example").
SAS_TABLE10 = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]

# R package irr, data(anxiety): 20 subjects x 3 raters (columns in order).
# Values from statsmodels' test_inter_rater.py, which lists irr::kappa2 output.
ANXIETY = np.array([
    3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3,
    3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4,
    2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2,
]).reshape(20, 3, order="F")

# Gwet (2014), Handbook of Inter-Rater Reliability 4th ed.; R package irrCAC
# data sets cont3x3abstractors (100 pregnancies, 2 abstractors) and
# cont4x4diagnosis (223 psychiatric patients, 2 diagnosis methods).
ABSTRACTORS = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]
DIAGNOSIS = [[40, 4, 4, 17], [6, 25, 2, 13], [4, 1, 21, 12], [15, 5, 9, 45]]

# Fleiss (1971), Psychological Bulletin 76:378-382: 30 patients, 6
# psychiatrists, 5 diagnoses (R irr data(diagnoses), coded 1..5).
FLEISS_1971 = np.array([
    [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
    [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
    [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
    [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
    [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
    [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
])

# Wikipedia "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5
# categories (also statsmodels' test_fleiss_kappa, kappa = 0.210).
WIKI_FLEISS = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]

# irrCAC data(cac.raw.gender): 15 subjects rated a/b/c by 4 raters (complete).
GENDER = np.array([
    "a a a a a b b b c a a a a a b".split(),
    "a a a a b a b c c a a a a b a".split(),
    "a b b c a a b b c a b b c a a".split(),
    "c c c c a a b b c c c c c a a".split(),
]).T

N = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg
# School for Communication, section C: 4 observers x 12 units, missing data.
KRIPP_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]

# Wikipedia "Krippendorff's alpha", computational example: 3 coders x 15
# units with missing values.
nan = float("nan")
WIKI_KRIPP = [
    [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
    [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
    [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
]


# ---------------------------------------------------------------------------
# Cohen's kappa: SAS PROC FREQ printouts (kappa, ASE, CI, ASE under H0, Z, p)
# ---------------------------------------------------------------------------


def test_sas_simple_kappa_full_printout():
    # SAS PROC FREQ "Simple Kappa Coefficient" printout quoted in statsmodels
    # test_inter_rater.py (UnweightedCohens): Kappa 0.4842, ASE 0.1380,
    # 95% limits 0.2137/0.7547, ASE under H0 0.1484, Z 3.2626, two-sided 0.0011.
    r = cohen_kappa_table(SAS_TABLE10)
    assert close(r.kappa, 0.4842, 4)
    assert close(r.se, 0.1380, 4)
    assert close(r.ci_low, 0.2137, 4)
    assert close(r.ci_high, 0.7547, 4)
    assert close(r.se_h0, 0.1484, 4)
    assert close(r.z, 3.2626, 4)
    assert close(r.p_value, 0.0011, 4)


def test_sas_weighted_kappa_full_printout():
    # Same source (TestWeightedCohens), weights 1 - |i-j|/(k-1) (SAS default
    # Cicchetti-Allison = linear): Kappa 0.4701, ASE 0.1457, limits
    # 0.1845/0.7558, ASE under H0 0.1426, Z 3.2971, two-sided 0.0010.
    r = cohen_kappa_table(SAS_TABLE10, weights="linear")
    assert close(r.kappa, 0.4701, 4)
    assert close(r.se, 0.1457, 4)
    assert close(r.ci_low, 0.1845, 4)
    assert close(r.ci_high, 0.7558, 4)
    assert close(r.se_h0, 0.1426, 4)
    assert close(r.z, 3.2971, 4)
    assert close(r.p_value, 0.0010, 4)


def test_sas_printout_from_label_arrays_matches_table():
    a, b = expand(SAS_TABLE10)
    r = cohen_kappa(a, b)
    assert close(r.kappa, 0.4842, 4) and close(r.se, 0.1380, 4)
    np.testing.assert_array_equal(r.confusion, SAS_TABLE10)


# ---------------------------------------------------------------------------
# Cohen's kappa: R irr::kappa2 on data(anxiety), raters 2 and 3
# (values listed in statsmodels test_inter_rater.py::test_cohens_kappa_irr).
# Category 5 is never used by raters 2/3, so irr's levels are 1,2,3,4,6 and
# the weights are spaced by rank, exactly our default.
# ---------------------------------------------------------------------------


def test_irr_kappa2_anxiety_unweighted():
    # kappa2(anxiety[,2:3]): Kappa = -0.006289308, z = -0.0604067, p = 0.9518317
    r = cohen_kappa(ANXIETY[:, 1], ANXIETY[:, 2])
    assert r.labels == (1, 2, 3, 4, 6)
    assert close(r.kappa, -0.006289308, 9)
    assert close(r.z, -0.0604067, 7)
    assert close(r.p_value, 0.9518317, 7)


def test_irr_kappa2_anxiety_equal_weights():
    # kappa2(anxiety[,2:3], "equal"): Kappa = 0.1459075, z = 1.282472, p = 0.1996772
    r = cohen_kappa(ANXIETY[:, 1], ANXIETY[:, 2], weights="linear")
    assert close(r.kappa, 0.1459075, 7)
    assert close(r.z, 1.282472, 6)
    assert close(r.p_value, 0.1996772, 7)


def test_irr_kappa2_anxiety_squared_weights():
    # kappa2(anxiety[,2:3], "squared"): Kappa = 0.2520325, z = 1.437451, p = 0.1505898
    r = cohen_kappa(ANXIETY[:, 1], ANXIETY[:, 2], weights="quadratic")
    assert close(r.kappa, 0.2520325, 7)
    assert close(r.z, 1.437451, 6)
    assert close(r.p_value, 0.1505898, 7)


# ---------------------------------------------------------------------------
# Cohen's kappa: Gwet (2014) / R irrCAC kappa2.table (coefficient values)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "table, weights, expected, decimals",
    [
        # irrCAC ?kappa2.table example output: kappa2.table(cont3x3abstractors)
        # coeff.val 0.7964094; with quadratic.weights(1:3) 0.8921569.
        (ABSTRACTORS, None, 0.7964094, 7),
        (ABSTRACTORS, "quadratic", 0.8921569, 7),
        # irrCAC cohen on cont3x3abstractors, linear weights: 0.843 (values
        # from the irrCAC Python port's test suite, test/unit/irrCAC/table/test_cohen.py).
        (ABSTRACTORS, "linear", 0.843, 3),
        # Same source, cont4x4diagnosis: 0.432, linear 0.407, quadratic 0.383.
        (DIAGNOSIS, None, 0.432, 3),
        (DIAGNOSIS, "linear", 0.407, 3),
        (DIAGNOSIS, "quadratic", 0.383, 3),
    ],
)
def test_irrcac_cohen_kappa(table, weights, expected, decimals):
    assert close(cohen_kappa_table(table, weights=weights).kappa, expected, decimals)
    a, b = expand(table)
    assert close(cohen_kappa(a, b, weights=weights).kappa, expected, decimals)


# ---------------------------------------------------------------------------
# Fleiss' kappa and Randolph's free-marginal kappa
# ---------------------------------------------------------------------------


def test_fleiss_1971_psychiatric_diagnoses():
    # Fleiss (1971): kappa = .430. R irr::kappam.fleiss(diagnoses) prints
    # Kappa = 0.4302445, z = 17.65183 (Fleiss, Nee & Landis 1979 null SE),
    # as listed in statsmodels test_inter_rater.py::test_fleiss_kappa_irr.
    r = fleiss_kappa(counts_from_ratings(FLEISS_1971, [1, 2, 3, 4, 5]))
    assert isinstance(r, AgreementResult)
    assert r.n == 30
    assert close(r.value, 0.4302445, 7)
    assert close(r.z, 17.65183, 5)
    assert r.p_value < 1e-60


def test_fleiss_wikipedia_worked_example():
    # Wikipedia "Fleiss' kappa" worked example: P-bar = 0.378, P_e = 0.213, kappa = 0.210.
    r = fleiss_kappa(WIKI_FLEISS)
    assert close(r.value, 0.210, 3)
    assert close(r.p_observed, 0.378, 3)
    assert close(r.p_expected, 0.213, 3)


def test_fleiss_gwet_gender_with_gwet_variance():
    # irrCAC fleiss.kappa.raw(cac.raw.gender): pa 0.456, pe 0.375, kappa 0.129,
    # se 0.141 (Gwet 2008 variance); from the irrCAC Python port's
    # test/unit/irrCAC/raw/test_fleiss.py (test_fleiss_kappa_raw_gender).
    r = fleiss_kappa(counts_from_ratings(GENDER, "abc"))
    assert close(r.p_observed, 0.456, 3)
    assert close(r.p_expected, 0.375, 3)
    assert close(r.value, 0.129, 3)
    assert close(r.se, 0.141, 3)
    assert r.ci_low == pytest.approx(r.value - Z_95 * r.se)


def test_randolph_free_marginal_equals_brennan_prediger_gender():
    # Randolph's kappa_free = (P_o - 1/q)/(1 - 1/q) is the multi-rater
    # Brennan-Prediger coefficient. irrCAC bp.coeff.raw(cac.raw.gender):
    # pa 0.456, pe 0.333, coefficient 0.183, se 0.102 (irrCAC Python port
    # test/unit/irrCAC/raw/test_bp.py::test_bp_kappa_raw_gender).
    r = randolph_kappa(counts_from_ratings(GENDER, "abc"))
    assert close(r.p_observed, 0.456, 3)
    assert close(r.p_expected, 0.333, 3)
    assert close(r.value, 0.183, 3)
    assert close(r.se, 0.102, 3)


# ---------------------------------------------------------------------------
# Krippendorff's alpha
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "level, expected",
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability":
    # nominal .743, ordinal .815, interval .849, ratio .797.
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_reliability_data(level, expected):
    r = krippendorff_alpha(KRIPP_2011, level=level)
    assert close(r.value, expected, 3)
    assert r.n == 11  # unit 12 has a single value and is not pairable


def test_krippendorff_2011_with_nan_and_string_labels():
    # Same data as floats with NaN for missing.
    data = np.array(KRIPP_2011, dtype=float)
    assert close(krippendorff_alpha(data).value, 0.743, 3)
    # Nominal alpha only depends on identity of values, so strings work too.
    as_str = [[None if v is None else f"v{v}" for v in row] for row in KRIPP_2011]
    assert close(krippendorff_alpha(as_str).value, 0.743, 3)


def test_krippendorff_wikipedia_example_nominal():
    # Wikipedia "Krippendorff's alpha" computational example: alpha = 0.691
    # (nominal); the exact fraction printed by the `krippendorff` package
    # test suite (tests/test_krippendorff.py) is 0.691358.
    assert close(krippendorff_alpha(WIKI_KRIPP).value, 0.691358, 6)


def test_krippendorff_wikipedia_example_interval():
    # `krippendorff` package (pln-fing-udelar/fast-krippendorff)
    # tests/test_krippendorff.py::test_interval_metric: 0.810845.
    assert close(krippendorff_alpha(WIKI_KRIPP, level="interval").value, 0.810845, 6)


def test_krippendorff_2004_binary_two_observers():
    # Krippendorff (2004), Content Analysis 2nd ed., sec. 11.3.1 (p. 224):
    # two observers, ten articles, binary data, alpha = 0.095.
    data = [[1, 1, 0, 0, 0, 0, 0, 0, 0, 0], [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]]
    assert close(krippendorff_alpha(data).value, 0.095, 3)


# ---------------------------------------------------------------------------
# Gwet's AC1 and PABAK
# ---------------------------------------------------------------------------


def test_gwet_ac1_abstractors():
    # irrCAC gwet.ac1.table(cont3x3abstractors): AC1 = 0.849 (irrCAC Python
    # port test/unit/irrCAC/table/test_gwet.py::test_gwet_cont3x3abstractors).
    a, b = expand(ABSTRACTORS)
    r = gwet_ac1(a, b)
    assert close(r.value, 0.849, 3)


def test_gwet_ac1_diagnosis_with_se():
    # irrCAC gwet.ac1.table(cont4x4diagnosis): AC1 = 0.456, se = 0.043
    # (same test file, test_gwet_cont4x4diagnosis).
    a, b = expand(DIAGNOSIS)
    r = gwet_ac1(a, b)
    assert close(r.value, 0.456, 3)
    assert close(r.se, 0.043, 3)
    assert r.ci_low == pytest.approx(r.value - Z_95 * r.se)
    assert r.ci_high == pytest.approx(r.value + Z_95 * r.se)


def test_pabak_multicategory_abstractors():
    # Multi-category PABAK = Brennan-Prediger (q p_o - 1)/(q - 1).
    # irrCAC bp.coeff.table(cont3x3abstractors) = 0.835 (irrCAC Python port
    # test/unit/irrCAC/table/test_brennan_prediger.py).
    a, b = expand(ABSTRACTORS)
    assert close(pabak(a, b).value, 0.835, 3)


def test_pabak_multicategory_diagnosis_with_se():
    # irrCAC bp.coeff.table(cont4x4diagnosis): 0.450, se 0.044 (same file).
    a, b = expand(DIAGNOSIS)
    r = pabak(a, b)
    assert close(r.value, 0.450, 3)
    assert close(r.se, 0.044, 3)


def test_pabak_binary_is_two_po_minus_one():
    # Byrt, Bishop & Carlin (1993): for a 2x2 table PABAK = 2 p_o - 1.
    # Krippendorff (2004) binary data above: p_o = 6/10 -> PABAK = 0.2.
    a = [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    b = [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
    assert pabak(a, b).value == pytest.approx(0.2)


def test_ac1_and_pabak_stay_high_when_one_label_dominates():
    # The "kappa paradox" (Feinstein & Cicchetti 1990): 95% raw agreement
    # but kappa near zero because nearly everything is "pass".
    a = ["pass"] * 95 + ["fail"] * 3 + ["pass"] * 2
    b = ["pass"] * 95 + ["pass"] * 3 + ["fail"] * 2
    k = cohen_kappa(a, b).kappa
    assert k < 0.0
    assert gwet_ac1(a, b).value > 0.9
    assert pabak(a, b).value == pytest.approx(0.9)


# ---------------------------------------------------------------------------
# Undefined values and input errors
# ---------------------------------------------------------------------------


def test_both_raters_always_pass_is_nan_with_reason():
    r = cohen_kappa(["pass"] * 10, ["pass"] * 10)
    assert math.isnan(r.kappa)
    for v in (r.se, r.se_h0, r.z, r.p_value, r.ci_low, r.ci_high):
        assert math.isnan(v)
    assert r.p_observed == 1.0 and r.p_expected == 1.0
    assert "expected agreement is 1" in r.reason and "pass" in r.reason
    assert r.interpretation == "undefined"


def test_both_raters_always_pass_even_with_declared_labels():
    r = cohen_kappa(["pass"] * 10, ["pass"] * 10, labels=["pass", "fail"])
    assert math.isnan(r.kappa) and r.reason
    assert r.confusion.shape == (2, 2)


def test_constant_raters_weighted_and_table_are_nan():
    assert math.isnan(cohen_kappa_table([[7, 0], [0, 0]], weights="quadratic").kappa)


def test_single_category_ac1_pabak_randolph_fleiss_alpha_are_nan():
    assert math.isnan(gwet_ac1(["x"] * 4, ["x"] * 4).value)
    assert "single category" in gwet_ac1(["x"] * 4, ["x"] * 4).reason
    assert math.isnan(pabak(["x"] * 4, ["x"] * 4).value)
    assert math.isnan(randolph_kappa([[3], [3]]).value)
    f = fleiss_kappa([[3, 0], [3, 0]])
    assert math.isnan(f.value) and "same category" in f.reason
    k = krippendorff_alpha([[1, 1, 1], [1, 1, 1]])
    assert math.isnan(k.value) and "no variation" in k.reason
    k = krippendorff_alpha([[1, None], [None, 2]])
    assert math.isnan(k.value) and "two or more" in k.reason


def test_declared_labels_make_ac1_and_pabak_defined():
    r = gwet_ac1(["pass"] * 4, ["pass"] * 4, labels=["pass", "fail"])
    assert r.value == pytest.approx(1.0)
    assert pabak(["pass"] * 4, ["pass"] * 4, labels=["pass", "fail"]).value == 1.0


@pytest.mark.parametrize(
    "call",
    [
        lambda: cohen_kappa([], []),
        lambda: cohen_kappa_table(np.zeros((0, 0))),
        lambda: cohen_kappa_table([[0, 0], [0, 0]]),
        lambda: gwet_ac1([], []),
        lambda: pabak([], []),
        lambda: fleiss_kappa(np.zeros((0, 3))),
        lambda: randolph_kappa([]),
        lambda: krippendorff_alpha(np.zeros((0, 0))),
        lambda: krippendorff_alpha([[None, None], [None, None]]),
        lambda: bootstrap_ci([], [], seed=0),
        lambda: labels_needed([], [], 0.1),
        lambda: cohen_kappa([None, None], ["a", "b"]),
        lambda: cohen_kappa(["a", "b"], ["a", "b"], labels=["c"]),
    ],
)
def test_empty_input_raises_clear_error(call):
    with pytest.raises(ValueError, match="empty"):
        call()


def test_mismatched_lengths_raise():
    with pytest.raises(ValueError, match="same length"):
        cohen_kappa([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="same length"):
        gwet_ac1([1, 2, 3], [1, 2])


def test_fleiss_unequal_raters_raises():
    with pytest.raises(ValueError, match="same number of raters"):
        fleiss_kappa([[2, 1], [1, 1]])
    with pytest.raises(ValueError, match="same number of raters"):
        randolph_kappa([[2, 1], [1, 1]])


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="square"):
        cohen_kappa_table([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError, match="negative"):
        cohen_kappa_table([[1, -2], [3, 4]])
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(ValueError, match="duplicates"):
        cohen_kappa([1, 2], [1, 2], labels=[1, 1, 2])
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha([[1, 2], [1, 2]], level="circular")
    with pytest.raises(ValueError, match="comparable"):
        cohen_kappa([1, "a"], ["a", 1])
    # With an explicit order, mixed types are fine.
    assert cohen_kappa([1, "a"], ["a", 1], labels=["a", 1]).n == 2


# ---------------------------------------------------------------------------
# Label handling
# ---------------------------------------------------------------------------


def test_labels_fix_order_and_drop_outside_pairs():
    a = ["pass", "fail", "pass", "skip", "fail"]
    b = ["pass", "fail", "fail", "pass", "fail"]
    r = cohen_kappa(a, b, labels=["pass", "fail"])
    assert r.labels == ("pass", "fail")
    assert r.n == 4  # the pair containing "skip" is dropped
    np.testing.assert_array_equal(r.confusion, [[1, 1], [0, 2]])
    assert not r.confusion.flags.writeable


def test_missing_labels_drop_pairs():
    r = cohen_kappa(["a", None, "b", "a"], ["a", "b", float("nan"), "b"])
    assert r.n == 2
    assert r.labels == ("a", "b")


def test_default_label_order_is_sorted_union():
    r = cohen_kappa(["b", "c"], ["a", "b"])
    assert r.labels == ("a", "b", "c")


def test_ints_and_strings_equivalent():
    a, b = expand(DIAGNOSIS)
    names = np.array(["schizo", "bipolar", "depress", "other"])
    ks = cohen_kappa(names[a], names[b], labels=list(names)).kappa
    assert ks == pytest.approx(cohen_kappa(a, b).kappa, abs=1e-12)
    # Python lists of str (object path) give the same answer.
    assert cohen_kappa(list(names[a]), list(names[b]), labels=list(names)).kappa == pytest.approx(ks)


def test_one_and_string_one_are_distinct_labels():
    r = cohen_kappa(np.array([1, "1"], dtype=object), np.array([1, "1"], dtype=object),
                    labels=[1, "1"])
    assert r.n == 2 and r.kappa == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# Bootstrap CI
# ---------------------------------------------------------------------------


def test_bootstrap_reproducible_and_covers_estimate():
    a, b = expand(DIAGNOSIS)
    r1 = bootstrap_ci(a, b, seed=42)
    r2 = bootstrap_ci(a, b, seed=42)
    assert isinstance(r1, BootstrapCI)
    assert (r1.low, r1.high) == (r2.low, r2.high)
    assert r1.method == "percentile" and r1.n_resamples == 1000
    assert r1.low < r1.estimate < r1.high
    # Bootstrap and analytic (Fleiss-Cohen-Everitt) intervals should agree
    # closely at n = 223.
    k = cohen_kappa(a, b)
    assert r1.low == pytest.approx(k.ci_low, abs=0.02)
    assert r1.high == pytest.approx(k.ci_high, abs=0.02)


@pytest.mark.parametrize("statistic", ["kappa", "gwet_ac1", "pabak"])
def test_bootstrap_bca_close_to_analytic(statistic):
    a, b = expand(DIAGNOSIS)
    r = bootstrap_ci(a, b, statistic=statistic, seed=7, method="bca", n_resamples=2000)
    analytic = {"kappa": cohen_kappa, "gwet_ac1": gwet_ac1, "pabak": pabak}[statistic](a, b)
    lo = analytic.ci_low
    hi = analytic.ci_high
    assert r.method == "bca"
    assert r.low == pytest.approx(lo, abs=0.02) and r.high == pytest.approx(hi, abs=0.02)


def test_bootstrap_weighted_and_callable():
    a, b = expand(DIAGNOSIS)
    rq = bootstrap_ci(a, b, weights="quadratic", seed=1, n_resamples=300)
    assert rq.low < cohen_kappa(a, b, weights="quadratic").kappa < rq.high
    rc = bootstrap_ci(a, b, statistic=lambda t: np.trace(t) / t.sum(), seed=1, n_resamples=300)
    assert rc.low < 131 / 223 < rc.high


def test_bootstrap_undefined_estimate_is_nan():
    r = bootstrap_ci(["pass"] * 20, ["pass"] * 20, seed=0)
    assert math.isnan(r.low) and math.isnan(r.high) and math.isnan(r.estimate)


def test_bootstrap_counts_invalid_resamples():
    # One disagreement in 200: many resamples have no "fail" at all for
    # either rater, so p_e = 1 there and kappa is undefined.
    a = ["pass"] * 199 + ["fail"]
    b = ["pass"] * 200
    r = bootstrap_ci(a, b, seed=3, n_resamples=500)
    assert r.n_invalid > 0


# ---------------------------------------------------------------------------
# Sample-size advice, interpretation, McNemar
# ---------------------------------------------------------------------------


def test_labels_needed_formula():
    a, b = expand(DIAGNOSIS)
    k = cohen_kappa(a, b)
    hw = Z_95 * k.se
    assert labels_needed(a, b, hw * 2) == 0
    target = hw / 2
    more = labels_needed(a, b, target)
    assert more == math.ceil(k.n * 4) - k.n  # quadrupling n halves the half-width
    # Projecting: with n + more items the half-width is under the target.
    assert hw * math.sqrt(k.n / (k.n + more)) <= target + 1e-12


def test_labels_needed_edge_cases():
    with pytest.raises(ValueError, match="undefined"):
        labels_needed(["pass"] * 5, ["pass"] * 5, 0.1)
    with pytest.raises(ValueError, match="positive"):
        labels_needed([0, 1], [0, 1], 0.0)
    assert labels_needed([0, 1, 0, 1], [0, 1, 0, 1], 0.01) == 0  # perfect: SE 0


@pytest.mark.parametrize(
    "k, words",
    # Landis & Koch (1977), Biometrics 33:159-174, Table on p.165.
    [(-0.1, "poor"), (0.0, "slight"), (0.2, "slight"), (0.21, "fair"), (0.4, "fair"),
     (0.41, "moderate"), (0.6, "moderate"), (0.7, "substantial"), (0.8, "substantial"),
     (0.81, "almost perfect"), (1.0, "almost perfect"), (float("nan"), "undefined")],
)
def test_interpret_kappa(k, words):
    assert interpret_kappa(k) == words


def test_mcnemar_exact():
    # Exact binomial: b=0, c=5 -> 2 * 0.5**5 = 0.0625.
    assert mcnemar_exact(0, 5) == pytest.approx(0.0625)
    assert mcnemar_exact(5, 0) == pytest.approx(0.0625)
    # b=1, c=7: 2 * (1 + 8) / 256 = 0.0703125.
    assert mcnemar_exact(1, 7) == pytest.approx(0.0703125)
    assert mcnemar_exact(4, 4) == 1.0
    assert mcnemar_exact(0, 0) == 1.0
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def test_result_types_are_frozen():
    r = cohen_kappa([0, 1, 1], [0, 1, 0])
    assert isinstance(r, KappaResult)
    with pytest.raises(Exception):
        r.kappa = 0.5  # type: ignore[misc]
    with pytest.raises(Exception):
        fleiss_kappa(WIKI_FLEISS).value = 1.0  # type: ignore[misc]


# ---------------------------------------------------------------------------
# Factorisation fast paths (internal, but they decide every label mapping)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arr",
    [
        np.array(["pass", "fail"] * 50_000),  # periodic: a strided sample sees one label
        np.array(["pass"] * 99_999 + ["fail"]),  # rare label missed by the sample
        np.array([f"label-{i % 3000}" for i in range(20_000)]),  # many categories
        np.array(["x" * 70, "y" * 70, ""] * 10),  # longer than the hash width, empty string
        np.array([b"yes", b"no", b"no"]),  # bytes
        np.array(["é", "e", "É", "ß"]),  # non-ASCII code points
    ],
)
def test_string_factorisation_matches_np_unique(arr):
    from judgecal.annotations.stats._common import _factorize  # house: private

    uniq, codes, is_sorted = _factorize(arr)
    ref_u, ref_c = np.unique(arr, return_inverse=True)
    assert is_sorted
    np.testing.assert_array_equal(uniq, ref_u)
    np.testing.assert_array_equal(codes, ref_c.reshape(-1))


def test_list_with_numbers_and_strings_is_not_stringified():
    # numpy would turn ["a", 1] into the strings "a", "1"; 1 and "1" must
    # stay different labels, so there is no sorted order without `labels`.
    with pytest.raises(ValueError, match="comparable"):
        cohen_kappa(["a", 1, "1"], ["a", "1", 1])
    r = cohen_kappa(["a", 1, "1"], ["a", "1", 1], labels=["a", 1, "1"])
    np.testing.assert_array_equal(r.confusion, [[1, 0, 0], [0, 0, 1], [0, 1, 0]])
    # Plain string lists that merely look numeric are fine.
    assert cohen_kappa(["1", "2", "2"], ["1", "2", "1"]).labels == ("1", "2")


# ---------------------------------------------------------------------------
# One rater constant: kappa is exactly 0, but its CI is not [0, 0]
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("constant_is_a", [False, True])
def test_one_constant_rater_kappa_zero_ci_undefined(weights, constant_is_a):
    # Human (varies): pass, pass, fail, fail; judge (constant): pass x4.
    # Rows = human: pass -> (2, 0), fail -> (2, 0). p_o = 2/4 = 1/2, p_e = 1/2 * 1 + 1/2 * 0 = 1/2,
    # kappa = 0 exactly -- and it is 0 whatever the varying rater says, for any weights (p_o = p_e
    # identically when one margin is a point mass). FCE (1969): wbar_i. = (1, 0), wbar_.j = (1/2, 1/2),
    # sum p_ij (w_ij - (wbar_i. + wbar_.j))^2 = 1/2 * 1/4 + 1/2 * 1/4 = 1/4 = (kappa - p_e)^2 -> SE = 0.
    # That SE is 0 because kappa cannot move, not because it is known: CI [0, 0] and "0 more labels
    # needed" would be false certainty, so the CI, SE and sample-size advice are undefined with a reason.
    human = ["pass", "pass", "fail", "fail"]
    judge = ["pass"] * 4
    a, b = (judge, human) if constant_is_a else (human, judge)
    r = cohen_kappa(a, b, weights=weights)
    assert r.kappa == 0.0 and r.p_observed == pytest.approx(0.5) and r.p_expected == pytest.approx(0.5)
    assert math.isnan(r.se) and math.isnan(r.ci_low) and math.isnan(r.ci_high)
    assert "single category 'pass'" in r.reason and ("rater A" if constant_is_a else "rater B") in r.reason
    with pytest.raises(ValueError, match="single category 'pass'"):
        labels_needed(a, b, 0.1, weights=weights)


def test_one_constant_rater_with_declared_labels_and_from_a_table():
    # Same as above, with an unused third category declared and from the table directly.
    r = cohen_kappa(["x", "y", "y"], ["x", "x", "x"], labels=["x", "y", "z"])
    assert r.kappa == 0.0 and math.isnan(r.ci_low) and "single category 'x'" in r.reason
    t = cohen_kappa_table([[3, 0], [5, 0]])
    assert t.kappa == 0.0 and math.isnan(t.se) and "rater B" in t.reason
