#!/usr/bin/env python3
"""Accuracy of the sweep's per-protein IA sums against math.fsum, before and after compensation.

For every (protein, score level) group of a case, the kernel keeps the
protein's running ``sum_P ia`` and ``sum_{T∩P} ia``. This script computes
them twice - with the compensated running sums goeval uses
(``goeval.sweep.running_sums``) and with the former arithmetic (a chunk-wide
``cumsum`` minus the value before the protein) - and compares both with
``math.fsum`` of the same IA values on a random sample of groups, reporting
the largest relative error and ulps.

    python scripts/bench_accuracy.py ../bench/synth3k --sample 20000
    python scripts/bench_accuracy.py CASE_DIR --ontology go.obo --truth truth.tsv --predictions p.tsv --ia IA.txt
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from pathlib import Path

import numpy as np


def _plain_running_sums(x: np.ndarray, ends: np.ndarray, seg_start: np.ndarray) -> np.ndarray:
    """The former arithmetic: a cumulative sum over the whole chunk minus its value before the run."""
    cs = np.cumsum(x)
    before = np.where(seg_start > 0, cs[np.maximum(seg_start - 1, 0)], 0.0)
    return cs[ends] - before


def _steps(args: argparse.Namespace, running: object):
    import goeval
    import goeval.sweep as sw
    import goeval.sweep.kernel as kernel  # the kernel looks running_sums up in its own module
    from goeval.diagnostics import Diagnostics
    from goeval.evaluation.engine import Plan
    from goeval.evaluation.run import evaluate_blocks, prepare_benchmark
    from goeval.options import EvaluationOptions

    onto = goeval.load_ontology(args.ontology, cache=False)
    truth = goeval.load_annotations(args.truth, onto)
    pred = goeval.load_predictions(args.predictions, onto)
    ia = goeval.load_ia(args.ia, onto)[0]
    opts = EvaluationOptions()
    bench = prepare_benchmark(onto, truth, None, opts, Diagnostics())
    outcomes = evaluate_blocks(bench, {"m": pred}, Plan(opts, keep_scores=True, sweep=False), Diagnostics())
    saved, kernel.running_sums = kernel.running_sums, running
    try:
        out = []
        for blk in (o.whole for o in outcomes.values()):
            lo, hi = int(onto.bounds[blk.namespace]), int(onto.bounds[blk.namespace + 1])
            taus = np.unique(blk.pred_scores)
            steps = sw.protein_steps(blk.pred_indptr, blk.pred_cols, blk.pred_scores, blk.truth_indptr,
                                     blk.truth_cols, hi - lo, taus, ia[lo:hi])
            out.append((blk, steps, taus, ia[lo:hi]))
        return out
    finally:
        kernel.running_sums = saved


def _errors(blocks_new, blocks_old, sample: int, rng: np.random.Generator) -> dict[str, list[float]]:
    rel = {"compensated": [], "plain": []}
    for (blk, new, taus, ia), (_, old, _, _) in zip(blocks_new, blocks_old):
        pick = rng.choice(new.rows.size, min(sample, new.rows.size), replace=False)
        for g in pick.tolist():
            r, tau = int(new.rows[g]), taus[new.bins[g]]
            sl = slice(blk.pred_indptr[r], blk.pred_indptr[r + 1])
            exact = math.fsum(ia[blk.pred_cols[sl][blk.pred_scores[sl] >= tau]].tolist())
            if exact == 0.0:
                continue
            rel["compensated"].append(abs(new.ia_pred[g] - exact) / exact)
            rel["plain"].append(abs(old.ia_pred[g] - exact) / exact)
    return rel


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("case", type=Path, nargs="?", help="a gen_synthetic.py case directory")
    p.add_argument("--ontology"), p.add_argument("--truth"), p.add_argument("--predictions"), p.add_argument("--ia")
    p.add_argument("--sample", type=int, default=20000, help="groups checked per namespace (default 20000)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.case is not None:
        args.ontology = args.ontology or str(next(args.case.glob("*.obo")))
        args.truth = args.truth or str(args.case / "ground_truth.tsv")
        args.predictions = args.predictions or str(next((args.case / "predictions").iterdir()))
        args.ia = args.ia or str(args.case / "IA.txt")
    warnings.simplefilter("ignore")
    import goeval.sweep as sw

    new = _steps(args, sw.running_sums)
    old = _steps(args, _plain_running_sums)
    rel = _errors(new, old, args.sample, np.random.default_rng(args.seed))
    eps = np.finfo(float).eps
    print(f"groups checked: {len(rel['plain']):,} (sum_P ia against math.fsum)")
    for k, v in rel.items():
        a = np.asarray(v)
        print(f"{k:>12}: max relative error {a.max():.3g} ({a.max() / eps:.1f} eps), "
              f"median {np.median(a):.3g}, share above 4 eps {np.mean(a > 4 * eps):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
