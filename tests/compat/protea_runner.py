"""Run the reference scorer (cafaeval-protea 0.1.0, CAFA-evaluator-PK's scoring) and print its optima as JSON.

Executed by the parity tests in the reference's own environment (``GOEVAL_PROTEA_PYTHON``), never imported by
goeval: ``python protea_runner.py OBO PRED_DIR GT [--ia IA] [--known KNOWN] [--toi TOI] [--th-step 0.001]
[--prop max] [--norm cafa]``. Prints ``{metric: [row, ...]}`` for every ``evaluation_best_<metric>`` frame,
and ``all`` for ``evaluation_all``, each row with ``filename``, ``ns``, ``tau`` and every column, floats at full
precision.
"""

import argparse
import json
import logging

from cafaeval.evaluation import cafa_eval


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("obo")
    ap.add_argument("pred_dir")
    ap.add_argument("gt")
    ap.add_argument("--ia")
    ap.add_argument("--known")
    ap.add_argument("--toi")
    ap.add_argument("--th-step", type=float, default=0.01)
    ap.add_argument("--prop", default="max")
    ap.add_argument("--norm", default="cafa")
    a = ap.parse_args()
    logging.disable(logging.CRITICAL)
    df, best = cafa_eval(a.obo, a.pred_dir, a.gt, ia=a.ia, norm=a.norm, prop=a.prop, exclude=a.known,
                          toi_file=a.toi, th_step=a.th_step, n_cpu=1)
    out = {metric: frame.reset_index().to_dict("records") for metric, frame in best.items()}
    out["all"] = df.reset_index().to_dict("records")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
