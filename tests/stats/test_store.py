"""Stored per-protein statistics (goeval.stats.store): a file written before some sums existed."""

from __future__ import annotations

import io
import json
import shutil

import numpy as np
import pytest

import goeval
from goeval.cli import main
from goeval.io.manifest import file_digest
from goeval.stats import compare
from goeval.stats.store import PROTEIN_STATS_FILE, protein_stats_arrays, protein_stats_from_arrays, stored_measures

#: The running totals and sums the calibration measures added (absent from files written before them).
_NEW_TOTALS = ("score", "score2", "score_tp", "ia_score", "ia_score2", "ia_score_tp")


def _without_new_sums(arrays):
    """The arrays as a goeval without the calibration sums wrote them: no such totals, no such point sums."""
    return {k: v for k, v in arrays.items() if k.split("/")[-1] not in _NEW_TOTALS}


def _evaluate(tmp_path):
    preds = tmp_path / "preds"
    preds.mkdir()
    for name in ("a", "b"):
        shutil.copy(goeval.example_path("predictions"), preds / f"{name}.tsv.gz")
    out = tmp_path / "r"
    assert main(["evaluate", "--ontology", str(goeval.example_path("ontology")), "--truth",
                 str(goeval.example_path("truth")), "--predictions", str(preds), "--ia", str(goeval.example_path("ia")),
                 "--bootstrap", "20", "-q", "--out", str(out)]) == 0
    return out


def test_a_file_without_the_calibration_sums_compares_the_other_measures(tmp_path):
    out = _evaluate(tmp_path)
    with np.load(out / PROTEIN_STATS_FILE) as z:
        arrays = {k: z[k] for k in z.files}
    old = _without_new_sums(arrays)
    assert len(old) < len(arrays)
    stats, options = protein_stats_from_arrays(old, "old.npz")
    full, full_options = protein_stats_from_arrays(arrays, "new.npz")
    assert options["missing_sums"] == list(_NEW_TOTALS) and full_options["missing_sums"] == []
    can, cannot = stored_measures(options)
    assert cannot == ["ece", "brier", "wece", "wbrier"] and {"fmax", "smin", "aupr"} <= set(can)
    assert stored_measures(full_options)[1] == []
    for measure in ("fmax", "wsmin"):  # the same comparison as from the complete file
        got = compare(stats, None, measure, n_resamples=30, permutations=20, options=options, with_ia=True)
        want = compare(full, None, measure, n_resamples=30, permutations=20, options=full_options, with_ia=True)
        assert got.pairs == want.pairs
    # a damaged file still is one: a core total missing is refused
    broken = {k: v for k, v in old.items() if k != "0/tp"}
    with pytest.raises(goeval.errors.InputFormatError, match="lacks the arrays tp"):
        protein_stats_from_arrays(broken, "broken.npz")


def test_goeval_compare_on_a_folder_of_an_earlier_goeval(tmp_path, capsys):
    """The folder's protein_stats.npz rewritten as before the calibration sums (its manifest entry too): compare
    fmax works and says which measures it cannot compare; compare ece is refused with the reason."""
    out = _evaluate(tmp_path)
    path = out / PROTEIN_STATS_FILE
    with np.load(path) as z:
        old = _without_new_sums({k: z[k] for k in z.files})
    buf = io.BytesIO()
    np.savez_compressed(buf, **old)
    path.write_bytes(buf.getvalue())
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["files"][PROTEIN_STATS_FILE] = file_digest(path)
    (out / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert main(["compare", str(out), "--measure", "fmax", "--permutations", "10", "--out",
                 str(tmp_path / "c.tsv")]) == 0
    said = capsys.readouterr()
    assert "without the sums of ece, brier, wece, wbrier: those cannot be compared" in said.out + said.err
    assert main(["compare", str(out), "--measure", "ece", "--permutations", "10"]) == 2
    err = capsys.readouterr().err
    assert f"{path}: written by an earlier goeval, without the sums ece reads (score)" in err
    assert "it can compare fmax, wfmax" in err and "Traceback" not in err


def test_arrays_of_today_hold_every_total(tmp_path):
    res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
                          [goeval.example_path("predictions")], ia=goeval.example_path("ia"), bootstrap=5)
    arrays = protein_stats_arrays(res.stats, res.diagnostics["options"])
    assert all(f"0/{t}" in arrays and f"0/sums/{t}" in arrays for t in _NEW_TOTALS)


def test_term_replicates_round_trip_and_a_damaged_file_is_refused(tmp_path):
    """term_replicates.npz: read back as written; a block's values of another shape, an infinity or a block listed
    twice is an InputFormatError naming the file."""
    import warnings

    from goeval.errors import GoevalWarning, InputFormatError
    from goeval.evaluation.terms import evaluate_terms
    from goeval.io.results import write_arrays
    from goeval.stats.store import read_term_replicates, term_replicates_arrays

    d = goeval.example_path
    onto = goeval.load_ontology(d("ontology"))
    truth = goeval.load_annotations(d("truth"), onto)
    preds = goeval.load_predictions(d("predictions"), onto)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GoevalWarning)
        reps = evaluate_terms(onto, truth, {"a": preds, "b": preds}, bootstrap=5, seed=1).replicates
    arrays = term_replicates_arrays(reps)
    write_arrays(tmp_path / "ok.npz", arrays)
    back = read_term_replicates(tmp_path / "ok.npz")
    assert (back.blocks, back.columns, back.keys, back.n_resamples, back.seed) == \
        (reps.blocks, reps.columns, reps.keys, 5, 1)
    assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(back.values, reps.values))
    meta = json.loads(str(arrays["meta"]))
    for name, damage in (("shape", {"1/values": arrays["1/values"][:, :3]}),
                         ("inf", {"0/point": np.full_like(arrays["0/point"], np.inf)}),
                         ("twice", {"meta": np.array(json.dumps({**meta, "blocks": [meta["blocks"][0]] * 2}))})):
        write_arrays(tmp_path / f"{name}.npz", {**arrays, **damage})
        with pytest.raises(InputFormatError, match=f"{name}.npz"):
            read_term_replicates(tmp_path / f"{name}.npz")
