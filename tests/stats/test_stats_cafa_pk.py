"""Bootstrap and stored statistics under CAFA-evaluator-PK's counting (normalization 'cafa-pk'): a row of ones
gives the summary's optima bit for bit, and protein_stats.npz keeps what the counting needs (which proteins'
truth carries information, and how many have some left)."""

from __future__ import annotations

import numpy as np
import pytest
from oracles import random_case

import goeval
from goeval.stats import read_protein_stats, write_protein_stats
from goeval.stats.bootstrap import interval_measures
from goeval.stats.replicates import curve_settings, replicate_optima


def _pk_case(seed: int):
    """A random case with known terms: half of the truth of half of the proteins, and a protein whose truth
    is only of zero-IA terms."""
    case = random_case(seed, n_proteins=14, max_truth=4)
    onto = case.ontology()
    truth = case.truth_annotations(onto)
    rng = np.random.default_rng(seed)
    known_pairs = [(p, t) for p, t in case.truth if rng.random() < 0.5 and int(p[1:]) % 2 == 0]
    known = goeval.Annotations.from_pairs(onto, [p for p, _ in known_pairs] or ["none"],
                                          [t for _, t in known_pairs] or [onto.ids[0]])
    return onto, truth, known, case.predictions(onto), case.ia_array(onto)


@pytest.mark.parametrize("seed", range(6))
def test_a_row_of_ones_gives_the_summary_and_the_store_keeps_it(seed, tmp_path):
    onto, truth, known, pred, ia = _pk_case(seed)
    res = goeval.evaluate(onto, truth, {"m": pred}, ia=ia, known=known, preset="cafa6", thresholds="arange:0.01",
                          bootstrap=20)
    settings = curve_settings(res)
    assert settings.normalization == "cafa-pk"
    write_protein_stats(tmp_path / "ps.npz", res)
    back, _options = read_protein_stats(tmp_path / "ps.npz")
    names = [x for x in interval_measures() if not x.startswith("nr_")]  # PAN-GO's: only when asked for
    for key, st in res.stats.items():
        summary = {r["measure"]: r["value"] for r in res.summary_records if (r["method"], r["namespace"]) == key}
        assert st.n_w is not None and back[key].n_w == st.n_w
        assert np.array_equal(back[key].protein_steps.weighted_rows, st.protein_steps.weighted_rows)
        for stats in (st, back[key]):
            ones = np.ones((1, stats.protein_steps.n_proteins))
            got = replicate_optima(stats.protein_steps, ones, names, settings)
            for name in names:
                if name in summary:
                    assert got[name][0] == pytest.approx(summary[name], rel=1e-12, abs=1e-15), (key, name)
