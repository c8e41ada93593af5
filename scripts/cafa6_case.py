#!/usr/bin/env python
"""Build a CAFA 6-shaped case from the shared 2014 -> 2019 GO data.

Writes into OUT:

* ``go.obo.gz`` (a copy of the 2019 release), ``IA.tsv`` (information
  accretion of the 2014 annotations, bits);
* ``truth_NK.tsv``, ``truth_LK.tsv``, ``truth_PK.tsv``: the 2019 annotations
  of the no-, limited- and partial-knowledge targets (``goeval.benchmarks``'
  time split, targets with a 2014 Swiss-Prot sequence);
* ``known.tsv``: the 2014 annotations of the PK targets (the known terms);
* ``submission.tsv``: the BLAST baseline trained on 2014 for every target,
  capped at 1500 terms per protein over MF, BP and CC (the best scores),
  scores rounded to three significant figures, and one or two free-text
  ``Text`` lines for every seventh protein - a file a CAFA 6 participant
  could submit; ``submission_b.tsv`` the same from GOtcha (a second method).

Every identifier is written as the release's primary id (annotations to
alt_ids or replaced terms are mapped by goeval first), so any scorer reads
the same pairs. ``--species`` and ``--max-targets`` make a small case (the
tests use one species).

``--full-size N`` also writes ``submission_full.tsv`` (and ``submission_b_full.tsv``): the
submission spread among N proteins without truth (``A0A`` and seven digits, ids no release uses)
at ``--padding-terms`` terms each (default 1,000: random GO terms, scores 0.100-0.999, a ``Text``
line for every seventh protein), grouped by protein, the targets at random places among them - the
shape of a real CAFA 6 submission, which covers the whole test superset (about 142,000 proteins)
while about 1 % of them have truth. ``--max-targets 500 --full-size 137865`` gives the 140 M-line,
3.9 GB case of ``docs/benchmarks.md``.

    python scripts/cafa6_case.py /path/to/shared/data OUT [--species rat] [--max-targets 400] [--full-size N]
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

import numpy as np

SPECIES = ("arabidopsis", "fly", "human", "mouse", "rat", "worm", "zebrafish")
KINDS = ("NK", "LK", "PK")
CAP = 1500


def _pairs(path: Path, proteins: np.ndarray, ids: np.ndarray, matrix) -> int:  # noqa: ANN001
    m = matrix.tocsr()
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
    with open(path, "w") as fh:
        fh.writelines(f"{p}\t{t}\n" for p, t in zip(proteins[rows].tolist(), ids[m.indices].tolist()))
    return int(m.nnz)


def _submission(path: Path, pred, ids: np.ndarray, text_every: int = 7) -> dict[str, int]:  # noqa: ANN001
    """Scores at 3 significant figures, grouped by protein, with Text lines for every ``text_every``-th protein."""
    m = pred.matrix.tocsr()
    lines = texts = 0
    with open(path, "w") as fh:
        for i, p in enumerate(pred.proteins.tolist()):
            a, b = m.indptr[i], m.indptr[i + 1]
            if a == b:
                continue
            fh.writelines(f"{p}\t{t}\t{s:.3g}\n" for t, s in zip(ids[m.indices[a:b]].tolist(), m.data[a:b].tolist()))
            lines += b - a
            if i % text_every == 0:
                fh.write(f"{p}\tText\t0.9\tpredicted from sequence similarity to annotated proteins\n")
                texts += 1
                if i % (2 * text_every) == 0:
                    fh.write(f"{p}\tText\t0.5\tno structure available; see the {b - a} GO terms above\n")
                    texts += 1
    return {"go_lines": int(lines), "text_lines": texts}


def _protein_blocks(path: Path) -> list[bytes]:
    """The lines of each protein of a grouped submission, as one bytes object per protein."""
    data = path.read_bytes()
    lines = data.split(b"\n")[:-1]
    keys = [line.split(b"\t", 1)[0] for line in lines]
    blocks, start = [], 0
    for i in range(1, len(lines) + 1):
        if i == len(lines) or keys[i] != keys[start]:
            blocks.append(b"\n".join(lines[start:i]) + b"\n")
            start = i
    return blocks


def _padding(rng: np.random.Generator, first: int, n: int, terms: np.ndarray, per: int) -> list[bytes]:
    """``n`` proteins without truth (ids from ``first``), ``per`` lines each: their bytes, one a protein."""
    ids = np.array([f"A0A{k:07d}" for k in range(first, first + n)], dtype="S10").view(np.uint8).reshape(n, 10)
    width = 10 + 1 + 10 + 1 + 5 + 1
    out = np.empty((n, per, width), np.uint8)
    out[:, :, :10] = ids[:, None, :]
    out[:, :, 10] = ord("\t")
    picks = (rng.integers(0, len(terms), n)[:, None] + np.arange(per)) % len(terms)  # distinct terms a protein
    out[:, :, 11:21] = terms.view(np.uint8).reshape(len(terms), 10)[picks]
    out[:, :, 21] = ord("\t")
    digits = rng.integers(100, 1000, (n, per))
    out[:, :, 22], out[:, :, 23] = ord("0"), ord(".")
    out[:, :, 24] = ord("0") + digits // 100
    out[:, :, 25] = ord("0") + digits // 10 % 10
    out[:, :, 26] = ord("0") + digits % 10
    out[:, :, 27] = ord("\n")
    rows = [out[i].tobytes() for i in range(n)]
    for i in range(0, n, 7):
        rows[i] += b"%s\tText\t0.9\tpredicted by a model with no homologue\n" % ids[i].tobytes()
    return rows


def full_size(src: Path, dst: Path, n_padding: int, per: int, terms: np.ndarray, seed: int) -> dict[str, int]:
    """``src`` (a grouped submission) spread among ``n_padding`` proteins without truth; see the module text."""
    rng = np.random.default_rng(seed)
    blocks = _protein_blocks(src)
    # target k goes before padding protein slots[k]: the targets keep their order (so the sums of the
    # evaluation, added in file order, are those of the small submission, bit for bit)
    slots = np.sort(rng.integers(0, n_padding + 1, len(blocks)))
    terms = rng.permutation(np.asarray(terms, dtype="S10"))
    k, step = 0, 2000
    with open(dst, "wb") as fh:
        for first in range(0, n_padding + 1, step):
            n = min(step, n_padding - first)
            for i, row in enumerate(_padding(rng, first, n, terms, per) if n > 0 else []):
                while k < len(blocks) and slots[k] <= first + i:
                    fh.write(blocks[k])
                    k += 1
                fh.write(row)
        for j in range(k, len(blocks)):
            fh.write(blocks[j])
    return {"padding_proteins": n_padding, "target_proteins": len(blocks), "bytes": dst.stat().st_size}


def build(data: Path, out: Path, species: list[str], max_targets: int | None, seed: int,
          full: int | None = None, per: int = 1000) -> dict:
    import goeval
    from goeval.annotations.top_terms import keep_top_terms
    from goeval.baselines import blast, gotcha
    from goeval.benchmarks.timesplit import time_split_targets
    from goeval.information.accretion import information_accretion
    from goeval.io.fasta import read_fasta
    from goeval.io.hits import read_hits
    from goeval.io.results import write_ia

    out.mkdir(parents=True, exist_ok=True)
    obo = data / "go" / "go_2019-01-29.obo.gz"
    shutil.copyfile(obo, out / "go.obo.gz")
    onto = goeval.load_ontology(obo)
    t0 = goeval.load_annotations([data / "goa" / f"exp_{s}_2014-10-12.tsv.gz" for s in species], onto)
    t1 = goeval.load_annotations([data / "goa" / f"exp_{s}_2019-01-29.tsv.gz" for s in species], onto)
    split = time_split_targets(onto, t0, t1, sequences=read_fasta(data / "seq" / "swissprot_2014-01_exp.fasta.gz").ids)
    if max_targets is not None:  # a random subset of each (kind, namespace)
        rng = np.random.default_rng(seed)
        for kind in KINDS:
            for label, prots in split.targets[kind].items():
                if prots.size > max_targets:
                    split.targets[kind][label] = np.sort(rng.choice(prots, max_targets, replace=False))
    counts: dict = {"targets": {k: {ns: int(v.size) for ns, v in split.targets[k].items()} for k in KINDS}}
    for kind in KINDS:
        t = split.truth_of(kind)
        counts[f"truth_{kind}"] = _pairs(out / f"truth_{kind}.tsv", t.proteins, onto.ids, t.matrix)
    pk = np.unique(np.concatenate(list(split.targets["PK"].values())))
    keep = np.isin(t0.proteins.astype(str), pk.astype(str))
    counts["known"] = _pairs(out / "known.tsv", t0.proteins[keep], onto.ids, t0.matrix.tocsr()[np.flatnonzero(keep)])
    ia = information_accretion(onto, t0, 1.0).values
    write_ia(out / "IA.tsv", onto.ids, ia)
    targets = np.unique(np.concatenate([v for k in KINDS for v in split.targets[k].values()]))
    hits = read_hits(data / "hits" / "diamond_allvsall_2014.tsv.gz", ("qseqid", "sseqid", "pident", "length",
                                                                      "evalue", "bitscore"))
    for name, method in (("submission.tsv", blast), ("submission_b.tsv", gotcha)):
        pred = keep_top_terms(method(onto, t0, hits, targets), CAP, per_namespace=False)
        counts[name] = _submission(out / name, pred, onto.ids)
        if full is not None:
            go = np.asarray([t for t in onto.ids.tolist() if t.startswith("GO:") and len(t) == 10])
            counts[name.replace(".tsv", "_full.tsv")] = full_size(out / name, out / name.replace(".tsv", "_full.tsv"),
                                                                 full, per, go, seed + len(name))
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", type=Path, help="the shared data directory (go/, goa/, seq/, hits/)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--species", default=",".join(SPECIES), help="comma-separated (default: all seven)")
    ap.add_argument("--max-targets", type=int, default=None, help="at most N targets per kind and namespace")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--full-size", type=int, default=None, metavar="N",
                    help="also write submission_full.tsv: the submission among N proteins without truth")
    ap.add_argument("--padding-terms", type=int, default=1000, help="lines of each protein without truth")
    args = ap.parse_args()
    t = time.perf_counter()
    counts = build(args.data, args.out, args.species.split(","), args.max_targets, args.seed,
                   args.full_size, args.padding_terms)
    for k, v in counts.items():
        print(f"{k}: {v}")
    print(f"written to {args.out}/ in {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
