"""Slow, obviously-correct oracles shared by the test modules.

The set-based oracle of the whole protein-centric evaluation (CONVENTIONS §4,
Clark & Radivojac 2013 §3.2-3.4) and of the sweep kernel: everything here is
written with Python sets, dicts and loops, one protein and one threshold at a
time, and shares no code with goeval. Random cases (``random_case``) feed it.
"""


from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from conftest import ancestors_oracle, random_dag_edges
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from goeval.annotations import Annotations
from goeval.errors import InvalidParameterError
from goeval.io.obo import RawOntology
from goeval.ontology import Ontology, build_ontology
from goeval.sweep import STAT_NAMES, SweepStats, exact_thresholds, grid_thresholds, sweep

TOL = {"rtol": 1e-12, "atol": 1e-12}

#: Scores that make many ties, and scores that sit exactly on the 0.01 grid
#: where ``np.arange(0.01, 1, 0.01)`` drifts (0.06, 0.07, 0.29...).
TIE_SCORES = (0.1, 0.25, 0.5, 0.75, 1.0)
GRID_TRAPS = (0.03, 0.06, 0.07, 0.12, 0.14, 0.24, 0.29, 0.3, 0.57, 0.58, 0.99)

#: Curve columns of goeval and the oracle (IA-based ones last).
PLAIN_COLUMNS = (
    "n_proteins", "n_covered", "coverage", "precision", "recall", "f",
    "precision_micro", "recall_micro", "f_micro", "tp", "fp", "fn", "ru_terms", "mi_terms", "s_terms",
)
IA_CURVE_COLUMNS = (
    "n_covered_w", "coverage_w", "wprecision", "wrecall", "wf", "ru", "mi", "s", "wru", "wmi", "ws",
    "wprecision_micro", "wrecall_micro", "wf_micro",
)

#: measure -> (curve column, max|min, coverage, precision, recall, ru, mi) at the optimum
ORACLE_OPTIMA = {
    "fmax": ("f", "max", "coverage", "precision", "recall", "ru", "mi"),
    "wfmax": ("wf", "max", "coverage_w", "wprecision", "wrecall", "ru", "mi"),
    "fmax_micro": ("f_micro", "max", "coverage", "precision_micro", "recall_micro", "ru", "mi"),
    "smin": ("s", "min", "coverage", "precision", "recall", "ru", "mi"),
    "wsmin": ("ws", "min", "coverage_w", "wprecision", "wrecall", "wru", "wmi"),
    "wfmax_micro": ("wf_micro", "max", "coverage_w", "wprecision_micro", "wrecall_micro", "ru", "mi"),
    "smin_terms": ("s_terms", "min", "coverage", "precision", "recall", "ru_terms", "mi_terms"),
    "max_coverage": ("coverage", "max", "coverage", "precision", "recall", "ru", "mi"),
}
#: measures that exist without IA
PLAIN_OPTIMA = ("fmax", "fmax_micro", "smin_terms", "max_coverage")
#: area measure -> (recall column, precision column)
ORACLE_AREAS = {"aupr": ("recall", "precision"), "waupr": ("wrecall", "wprecision")}


# =====================================================================
# Random benchmarks described with plain Python containers
# =====================================================================
@dataclass
class Case:
    """An ontology, truth, predictions and IA as plain Python containers."""

    edges: list[tuple[str, str]]  # (child, parent)
    namespace_of: dict[str, str]  # term -> namespace
    truth: list[tuple[str, str]]  # (protein, term), not propagated
    scores: dict[tuple[str, str], float]  # (protein, term) -> own score
    ia: dict[str, float]  # term -> bits

    def ontology(self) -> Ontology:
        parents: dict[str, list[str]] = {}
        for c, p in self.edges:
            parents.setdefault(c, []).append(p)
        stanzas = []
        for t, ns in self.namespace_of.items():
            stanza = {"id": t, "name": t, "namespace": ns}
            if t in parents:
                stanza["is_a"] = list(parents[t])
            stanzas.append(stanza)
        return build_ontology(RawOntology(header={"ontology": "test"}, terms=stanzas))

    def truth_annotations(self, onto: Ontology) -> Annotations:
        return Annotations.from_pairs(onto, [p for p, _ in self.truth], [t for _, t in self.truth])

    def predictions(self, onto: Ontology, scores: dict[tuple[str, str], float] | None = None) -> Annotations:
        sc = self.scores if scores is None else scores
        keys = list(sc)
        return Annotations.from_pairs(onto, [p for p, _ in keys], [t for _, t in keys], [sc[k] for k in keys])

    def ia_array(self, onto: Ontology) -> np.ndarray:
        out = np.zeros(onto.n_terms)
        for t, v in self.ia.items():
            out[onto.index(t)] = v
        return out


def random_score(rng: np.random.Generator) -> float:
    """A score in (0, 1]: mostly ties, some on the grid, some arbitrary."""
    u = rng.random()
    if u < 0.45:
        return float(rng.choice(TIE_SCORES))
    if u < 0.65:
        return float(rng.choice(GRID_TRAPS))
    if u < 0.8:
        return int(rng.integers(1, 101)) / 100
    return float(1.0 - rng.random())  # (0, 1]


def random_case(
    seed: int,
    *,
    namespaces: tuple[str, ...] = ("alpha", "beta"),
    n_terms: tuple[int, int] = (8, 25),
    n_proteins: int = 10,
    max_truth: int = 3,
    max_pred: int = 8,
    p_zero_ia: float = 0.2,
    extra_pred_proteins: int = 2,
) -> Case:
    """Random DAG per namespace (two roots each), truth, tied scores, IA.

    IA is zero on roots and on a fraction ``p_zero_ia`` of the other terms,
    so that some proteins predict only zero-information terms.
    """
    rng = np.random.default_rng(seed)
    edges: list[tuple[str, str]] = []
    ns_of: dict[str, str] = {}
    roots: set[str] = set()
    for j, ns in enumerate(namespaces):
        prefix = "abcdefgh"[j]
        n = int(rng.integers(*n_terms))
        for c, p in random_dag_edges(rng, n):
            edges.append((prefix + c[1:], prefix + p[1:]))
        for i in range(n):
            ns_of[f"{prefix}{i}"] = ns
        # a second root with a child that also hangs below the first DAG
        r2, c2 = f"{prefix}{n}", f"{prefix}{n + 1}"
        ns_of[r2] = ns
        ns_of[c2] = ns
        edges += [(c2, r2), (c2, f"{prefix}{int(rng.integers(0, n))}")]
        roots |= {f"{prefix}0", r2}
    terms = list(ns_of)
    ia = {}
    for t in terms:
        if t in roots or rng.random() < p_zero_ia:
            ia[t] = 0.0
        elif rng.random() < 0.5:
            ia[t] = float(rng.choice([0.5, 1.0, 1.5, 2.0, 3.0]))
        else:
            ia[t] = float(rng.random() * 4)
    truth = []
    for i in range(n_proteins):
        for t in rng.choice(terms, size=int(rng.integers(0, max_truth + 1)), replace=False):
            truth.append((f"P{i}", str(t)))
    scores = {}
    for i in range(n_proteins + extra_pred_proteins):
        name = f"P{i}" if i < n_proteins else f"X{i}"
        for t in rng.choice(terms, size=int(rng.integers(0, max_pred + 1)), replace=False):
            scores[(name, str(t))] = random_score(rng)
    return Case(edges, ns_of, truth, scores, ia)


# =====================================================================
# The oracle
# =====================================================================
def fmean(values: list[float], den: float) -> float:
    return math.fsum(values) / den if den > 0 else 0.0


def harmonic(pr: float, rc: float) -> float:
    return 2 * pr * rc / (pr + rc) if pr + rc > 0 else 0.0


def s_k(ru: float, mi: float, k: float) -> float:
    return (ru**k + mi**k) ** (1.0 / k)


def oracle_propagate(own: dict[str, float], terms: set[str], parents: dict[str, set[str]], mode: str) -> dict[str, float]:
    """max: s(v) = max own score over v and its descendants.
    fill: an ancestor without own score takes the max of its children's final values."""
    children: dict[str, set[str]] = {t: set() for t in terms}
    for c in terms:
        for p in parents.get(c, ()):
            children[p].add(c)
    anc = {t: ancestors_within(t, parents) for t in own}
    if mode == "max":
        out: dict[str, float] = {}
        for t, s in own.items():
            for a in anc[t]:
                out[a] = max(out.get(a, -1.0), s)
        return out
    memo: dict[str, float | None] = {}

    def final(v: str) -> float | None:
        if v not in memo:
            if v in own:
                memo[v] = own[v]
            else:
                vals = [x for c in children[v] if (x := final(c)) is not None]
                memo[v] = max(vals) if vals else None
        return memo[v]

    return {v: x for v in terms if (x := final(v)) is not None}


def ancestors_within(term: str, parents: dict[str, set[str]]) -> set[str]:
    return ancestors_oracle([(c, p) for c, ps in parents.items() for p in ps], term)


def oracle_protein(T: set[str], P: set[str], ia: dict[str, float]) -> dict[str, float]:
    """Every per-protein quantity of CONVENTIONS §4 for one threshold."""
    tp = len(T & P)
    i_t = math.fsum(ia[v] for v in T)
    ia_p = math.fsum(ia[v] for v in P)
    ia_tp = math.fsum(ia[v] for v in T & P)
    return {
        "T": len(T), "P": len(P), "tp": tp, "covered": len(P) > 0, "covered_w": ia_p > 0,
        "pr": tp / len(P) if P else 0.0, "rc": tp / len(T),
        "i_t": i_t, "ia_p": ia_p, "ia_tp": ia_tp,
        "wpr": ia_tp / ia_p if ia_p > 0 else 0.0, "wrc": ia_tp / i_t if i_t > 0 else 0.0,
        "ru": math.fsum(ia[v] for v in T - P), "mi": math.fsum(ia[v] for v in P - T),
    }


def oracle_average(rows: list[dict[str, float]], normalization: str, protein_weighting: str, k: float) -> dict[str, float]:
    """Averages over proteins at one threshold (CONVENTIONS §4)."""
    n = len(rows)
    cov = [r for r in rows if r["covered"]]
    covw = [r for r in rows if r["covered_w"]]
    m, mw = len(cov), len(covw)
    out: dict[str, float] = {"n_proteins": n, "n_covered": m, "coverage": m / n}
    out["precision"] = fmean([r["pr"] for r in rows], n if normalization == "gt" else m)
    out["recall"] = fmean([r["rc"] for r in rows], m if normalization == "pred" else n)
    out["f"] = harmonic(out["precision"], out["recall"])
    tp = sum(r["tp"] for r in rows)
    npred = sum(r["P"] for r in rows)
    ntrue = sum(r["T"] for r in (cov if normalization == "pred" else rows))
    out["precision_micro"] = tp / npred if npred else 0.0
    out["recall_micro"] = tp / ntrue if ntrue else 0.0
    out["f_micro"] = harmonic(out["precision_micro"], out["recall_micro"])
    # term counts summed over proteins; ru/mi in terms averaged like ru/mi ('pred': covered proteins)
    out["tp"] = tp
    out["fp"] = sum(r["P"] - r["tp"] for r in rows)
    out["fn"] = sum(r["T"] - r["tp"] for r in rows)
    sel_c = cov if normalization == "pred" else rows
    out["ru_terms"] = fmean([r["T"] - r["tp"] for r in sel_c], len(sel_c))
    out["mi_terms"] = fmean([r["P"] - r["tp"] for r in sel_c], len(sel_c))
    out["s_terms"] = s_k(out["ru_terms"], out["mi_terms"], k)
    out["n_covered_w"] = mw
    out["coverage_w"] = mw / n
    it_all = math.fsum(r["i_t"] for r in rows)
    it_cov = math.fsum(r["i_t"] for r in covw)
    if protein_weighting == "none":
        out["wprecision"] = fmean([r["wpr"] for r in rows], n if normalization == "gt" else mw)
        out["wrecall"] = fmean([r["wrc"] for r in rows], mw if normalization == "pred" else n)
    else:  # weighted by i(T_i), CR13 §3.4.1
        out["wprecision"] = fmean([r["i_t"] * r["wpr"] for r in rows], it_all if normalization == "gt" else it_cov)
        out["wrecall"] = fmean([r["i_t"] * r["wrc"] for r in rows], it_cov if normalization == "pred" else it_all)
    out["wf"] = harmonic(out["wprecision"], out["wrecall"])
    # ru/mi: plain means (eqs. 2-3), wru/wmi: i(T)-weighted (eqs. 4-5); 'pred': over
    # the proteins whose predicted set carries information
    sel = covw if normalization == "pred" else rows
    out["ru"] = fmean([r["ru"] for r in sel], len(sel))
    out["mi"] = fmean([r["mi"] for r in sel], len(sel))
    w = math.fsum(r["i_t"] for r in sel)
    out["wru"] = fmean([r["i_t"] * r["ru"] for r in sel], w)
    out["wmi"] = fmean([r["i_t"] * r["mi"] for r in sel], w)
    out["s"] = s_k(out["ru"], out["mi"], k)
    out["ws"] = s_k(out["wru"], out["wmi"], k)
    # pooled information: sum over T∩P / sum over P, and / sum of i(T) ('pred': proteins with sum_P ia > 0)
    ia_tp = math.fsum(r["ia_tp"] for r in rows)
    ia_p = math.fsum(r["ia_p"] for r in rows)
    it_micro = it_cov if normalization == "pred" else it_all
    out["wprecision_micro"] = ia_tp / ia_p if ia_p > 0 else 0.0
    out["wrecall_micro"] = ia_tp / it_micro if it_micro > 0 else 0.0
    out["wf_micro"] = harmonic(out["wprecision_micro"], out["wrecall_micro"])
    if it_all == 0:  # no information in any truth set: the IA-based measures are undefined (nan), never 0
        for key in ("wprecision", "wrecall", "wf", "ru", "mi", "s", "wru", "wmi", "ws", "wprecision_micro",
                    "wrecall_micro", "wf_micro"):
            out[key] = math.nan
    return out


def oracle_evaluate(
    case: Case,
    *,
    thresholds: str | float = "exact",
    normalization: str = "cafa",
    protein_weighting: str = "none",
    k: float = 2.0,
    propagation: str = "max",
    exclude_roots: bool = False,
    root_as_prediction: bool = False,
    targets: list[str] | None = None,
    terms_of_interest: set[str] | None = None,
    excluded_terms: set[str] | None = None,
    namespaces: list[str] | None = None,
    scores: dict[tuple[str, str], float] | None = None,
) -> dict[str, dict[str, np.ndarray]]:
    """Curves per namespace: column -> values over the thresholds with coverage > 0.

    A namespace is absent when it has no benchmark protein or when the method
    has no (propagated, kept) prediction for its benchmark proteins.
    """
    scores = case.scores if scores is None else scores
    parents: dict[str, set[str]] = {}
    for c, p in case.edges:
        parents.setdefault(c, set()).add(p)
    out = {}
    for ns in sorted(set(case.namespace_of.values())):
        if namespaces is not None and ns not in namespaces:
            continue
        terms = {t for t, x in case.namespace_of.items() if x == ns}
        roots = {t for t in terms if not parents.get(t)}
        allowed = set(terms)
        if terms_of_interest is not None:
            allowed &= terms_of_interest
        if excluded_terms is not None:
            allowed -= excluded_terms
        if exclude_roots:
            allowed -= roots
        truth: dict[str, set[str]] = {}
        for p, t in case.truth:
            if t in terms:
                truth.setdefault(p, set()).update(ancestors_within(t, parents))
        bench = {p: T & allowed for p, T in truth.items() if T & allowed}
        if targets is not None:
            bench = {p: T for p, T in bench.items() if p in targets}
        if not bench:
            continue
        final: dict[str, dict[str, float]] = {}
        for p in bench:
            own = {t: s for (q, t), s in scores.items() if q == p and t in terms}
            prop = oracle_propagate(own, terms, parents, propagation) if own else {}
            kept = {v: s for v, s in prop.items() if v in allowed}
            if root_as_prediction:
                for r in roots & allowed:
                    kept[r] = math.inf
            final[p] = kept
        if not any(final.values()):
            continue
        if thresholds == "exact":
            taus = sorted({s for f in final.values() for s in f.values() if 0 < s < math.inf})
        else:
            steps = int(round(1 / float(thresholds)))
            taus = [j / steps for j in range(1, steps + 1)]
        rows = []
        for tau in taus:
            per = [oracle_protein(T, {v for v, s in final[p].items() if s >= tau}, case.ia) for p, T in bench.items()]
            avg = oracle_average(per, normalization, protein_weighting, k)
            if avg["n_covered"] > 0:
                rows.append({"threshold": tau, **avg})
        if rows:
            out[ns] = {col: np.array([r[col] for r in rows]) for col in rows[0]}
    return out


def oracle_optimum(curve: dict[str, np.ndarray], measure: str) -> dict[str, float]:
    """Optimum of one measure; among (numerically) tied values the lowest threshold."""
    col, kind, cov, pr, rc, ru, mi = ORACLE_OPTIMA[measure]
    v = curve[col]
    if np.isnan(v).all():  # undefined at every threshold (no information in the truth): a row of nan
        return {key: math.nan for key in ("value", "threshold", "coverage", "precision", "recall", "ru", "mi")}
    best = v.max() if kind == "max" else v.min()
    i = int(np.flatnonzero(np.abs(v - best) <= 1e-12 * max(1.0, abs(best)))[0])
    return {"value": v[i], "threshold": curve["threshold"][i], "coverage": curve[cov][i],
            "precision": curve[pr][i], "recall": curve[rc][i], "ru": curve[ru][i], "mi": curve[mi][i]}


def oracle_area(curve: dict[str, np.ndarray], measure: str) -> float:
    """Area under the precision-recall curve, one rectangle at a time, as CAFA-evaluator's
    notebook: precision replaced by its running maximum over ascending thresholds, the points
    (recall 1, precision 0) and (recall 0, precision 1) added, each step from the higher-recall
    point to the next one taken at the envelope of the next (lower-recall) point."""
    rc_col, pr_col = ORACLE_AREAS[measure]
    points = [(1.0, 0.0)]
    best = -math.inf
    for r, p in zip(curve[rc_col], curve[pr_col]):
        best = max(best, float(p))
        points.append((float(r), best))
    points.append((0.0, 1.0))
    return math.fsum((points[i - 1][0] - points[i][0]) * points[i][1] for i in range(1, len(points)))


def assert_curves_equal(got, want: dict[str, dict[str, np.ndarray]], method: str, with_ia: bool = True) -> None:
    """Compare a goeval curves DataFrame (one method) with the oracle."""
    sub = got[got["method"] == method]
    assert sorted(sub["namespace"].unique()) == sorted(want), (sorted(sub["namespace"].unique()), sorted(want))
    cols = ("threshold",) + PLAIN_COLUMNS + (IA_CURVE_COLUMNS if with_ia else ())
    for ns, w in want.items():
        g = sub[sub["namespace"] == ns]
        assert len(g) == len(w["threshold"]), (ns, len(g), len(w["threshold"]))
        for col in cols:
            assert_allclose(g[col].to_numpy(dtype=float), w[col], err_msg=f"{ns} {col}", **TOL)
    if not with_ia:
        assert not set(IA_CURVE_COLUMNS) & set(got.columns)


def assert_summary_equal(summary, want: dict[str, dict[str, np.ndarray]], method: str, with_ia: bool = True) -> None:
    """Compare the optima of goeval's summary with the oracle's.

    Value, threshold (the lowest among values equal up to rounding), and
    coverage, precision, recall, ru and mi at that threshold.
    """
    measures = list(ORACLE_OPTIMA) if with_ia else list(PLAIN_OPTIMA)
    areas = list(ORACLE_AREAS) if with_ia else ["aupr"]
    # the calibration measures: checked against pairs in tests/metrics/test_calibration.py
    calibration = ["ece", "brier", "wece", "wbrier"] if with_ia else ["ece", "brier"]
    # BeProf's areas: checked against its code in tests/metrics/test_protein.py
    calibration += ["ic_aupr"] if with_ia else []
    sub = summary[summary["method"] == method]
    assert sorted(sub["namespace"].unique()) == sorted(want)
    for ns, curve in want.items():
        rows = sub[sub["namespace"] == ns].set_index("measure")
        assert sorted(rows.index) == sorted(measures + areas + calibration)
        for area in areas:
            assert_allclose(float(rows.loc[area, "value"]), oracle_area(curve, area), err_msg=f"{ns} {area}", **TOL)
            assert rows.loc[area, ["threshold", "coverage", "precision", "recall", "ru", "mi"]].isna().all()
        for measure in measures:
            exp = oracle_optimum(curve, measure)
            row = rows.loc[measure]
            assert float(row["threshold"]) == exp["threshold"] or np.isnan([row["threshold"], exp["threshold"]]).all(), \
                (ns, measure, float(row["threshold"]), exp)
            for key, val in exp.items():
                if not with_ia and key in ("ru", "mi") and ORACLE_OPTIMA[measure][5] in IA_CURVE_COLUMNS:
                    assert np.isnan(row[key])
                    continue
                assert_allclose(float(row[key]), val, err_msg=f"{ns} {measure} {key}", **TOL)


# =====================================================================
# Kernel-level oracle: sums of per-protein quantities (no propagation)
# =====================================================================
def kernel_oracle(truth: list[set[int]], preds: list[dict[int, float]], ia: np.ndarray | None, taus) -> dict[str, np.ndarray]:
    iav = defaultdict(float) if ia is None else dict(enumerate(ia.tolist()))
    sums = {k: np.zeros(len(taus)) for k in STAT_NAMES}
    for j, tau in enumerate(taus):
        acc: dict[str, list[float]] = {k: [] for k in STAT_NAMES}
        for T, sc in zip(truth, preds):
            P = {v for v, s in sc.items() if s >= tau}
            q = oracle_protein(T, P, iav)
            it = q["i_t"]
            vals = {
                "covered": float(q["covered"]), "pr": q["pr"], "rc": q["rc"], "tp": q["tp"], "npred": q["P"],
                "ntrue_cov": q["T"] * q["covered"], "covered_w": float(q["covered_w"]), "wpr": q["wpr"],
                "wrc": q["wrc"], "ru": q["ru"], "mi": q["mi"], "it_ru": it * q["ru"], "it_mi": it * q["mi"],
                "it_wpr": it * q["wpr"], "it_wrc": it * q["wrc"], "it_cov_w": it * q["covered_w"],
                "it2_cov_w": it * it * q["covered_w"], "ia_tp": q["ia_tp"], "ia_pred": q["ia_p"],
                "it_cov": it * q["covered"],
            }
            # calibration: scores as probabilities (+inf, predicted at every threshold, counts as 1)
            pv = {v: min(sc[v], 1.0) for v in P}
            for name, weight in (("", lambda v: 1.0), ("ia_", lambda v: iav[v])):
                vals[name + "score"] = math.fsum(weight(v) * pv[v] for v in P)
                vals[name + "score2"] = math.fsum(weight(v) * pv[v] ** 2 for v in P)
                vals[name + "score_tp"] = math.fsum(weight(v) * pv[v] for v in P & T)
            for key, x in vals.items():
                acc[key].append(float(x))
        for key in STAT_NAMES:
            sums[key][j] = math.fsum(acc[key])
    return sums


def to_csr(rows: list, n_cols: int, with_scores: bool):
    indptr = np.r_[0, np.cumsum([len(r) for r in rows])].astype(np.int64)
    if with_scores:
        cols = np.array([c for r in rows for c in r], dtype=np.int64)
        data = np.array([r[c] for r in rows for c in r], dtype=np.float64)
        return indptr, cols, data
    return indptr, np.array([c for r in rows for c in sorted(r)], dtype=np.int64)


def random_kernel_input(seed: int, n_rows: int = 12, n_cols: int = 15, with_inf: bool = True):
    rng = np.random.default_rng(seed)
    ia = np.where(rng.random(n_cols) < 0.25, 0.0, rng.random(n_cols) * 3)
    truth = [set(rng.choice(n_cols, size=int(rng.integers(1, 6)), replace=False).tolist()) for _ in range(n_rows)]
    preds = []
    for _ in range(n_rows):
        cols = rng.choice(n_cols, size=int(rng.integers(0, 9)), replace=False).tolist()
        sc = {int(c): random_score(rng) for c in cols}
        if with_inf and sc and rng.random() < 0.2:
            sc[next(iter(sc))] = math.inf  # always predicted (root-as-prediction)
        preds.append(sc)
    return truth, preds, ia


def run_kernel(truth, preds, ia, taus, n_cols, **kw) -> SweepStats:
    p_ptr, p_cols, p_data = to_csr(preds, n_cols, True)
    t_ptr, t_cols = to_csr(truth, n_cols, False)
    return sweep(p_ptr, p_cols, p_data, t_ptr, t_cols, n_cols, np.asarray(taus, dtype=float), ia, **kw)


def assert_stats_equal(got: SweepStats, want: dict[str, np.ndarray], truth, ia) -> None:
    for key in STAT_NAMES:
        assert_allclose(got.sums[key], want[key], err_msg=key, **TOL)
    i_t = [math.fsum(0.0 if ia is None else ia[v] for v in T) for T in truth]
    assert got.n == len(truth)
    assert got.n_true == sum(len(T) for T in truth)
    assert_allclose(got.it_sum, math.fsum(i_t), **TOL)
    assert_allclose(got.it2_sum, math.fsum(x * x for x in i_t), **TOL)


def run_case(case: Case, scores=None, **options):
    """evaluate_annotations on a Case; term options given as ids."""
    from goeval.evaluation import evaluate_annotations

    onto = case.ontology()
    for key in ("terms_of_interest", "excluded_terms"):
        if options.get(key) is not None:
            options[key] = np.array([onto.index(t) for t in sorted(options[key])], dtype=np.int64)
    return evaluate_annotations(onto, case.truth_annotations(onto), {"m": case.predictions(onto, scores)},
                                ia=case.ia_array(onto), **options)
