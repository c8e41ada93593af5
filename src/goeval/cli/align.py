"""``goeval align``: run DIAMOND or BLAST+ and write a hit table for the baselines."""

from __future__ import annotations

import argparse

from goeval.cli.common import comma_list, positive_float, positive_int, say
from goeval.cli.parsing import ExtendValues

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).

DESCRIPTION = (
    "Run DIAMOND (diamond makedb + blastp) or NCBI BLAST+ (makeblastdb + blastp) in a temporary "
    "directory and write the hits as tab-separated -outfmt 6 (the 12 standard columns by default), "
    "the input of 'goeval baseline'. UniProt identifiers sp|ACC|NAME are reduced to ACC."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--query", required=True, metavar="FASTA", help="query sequences (.gz accepted)")
    p.add_argument("--db", required=True, metavar="FASTA", help="database sequences (.gz accepted)")
    p.add_argument("--out", required=True, metavar="HITS.tsv", help="hit table to write (.gz compresses)")
    p.add_argument("--tool", choices=("diamond", "blastp"), default="diamond", help="aligner (default diamond)")
    p.add_argument("--threads", type=positive_int, default=1, metavar="N", help="threads (default 1)")
    p.add_argument("--evalue", type=positive_float, default=1e-3, metavar="E", help="maximum E-value (default 1e-3)")
    p.add_argument("--sensitive", action="store_true", help="DIAMOND --more-sensitive (no effect with blastp)")
    p.add_argument("--max-target-seqs", type=positive_int, default=500, metavar="N",
                   help="hits kept per query (default 500)")
    p.add_argument("--columns", type=comma_list, action=ExtendValues, default=None, metavar="C1,C2,...",
                   help="output columns (default: the 12 standard ones; pass the same list as "
                        "--hit-columns to 'goeval baseline')")


def run(args: argparse.Namespace) -> int:
    from goeval.io.files import check_input, check_output_file

    check_input(args.query, "query FASTA")
    check_input(args.db, "database FASTA")
    check_output_file(args.out)
    from goeval.io.aligners import align
    from goeval.io.hits import STANDARD_COLUMNS
    from goeval.report.text import plural

    columns = STANDARD_COLUMNS if args.columns is None else tuple(args.columns)
    res = align(args.query, args.db, args.out, tool=args.tool, threads=args.threads, evalue=args.evalue,
                sensitive=args.sensitive, max_target_seqs=args.max_target_seqs, columns=columns)
    for what in ("query", "db"):
        c = res.counts[what]
        stops = c["non_amino_acid_total"]
        say(args, f"{c['source']}: {plural(c['records'], 'sequence')}, {plural(c['residues'], 'residue')}"
              + (f", {c['uniprot_ids_reduced']} UniProt ids reduced to accessions" if c["uniprot_ids_reduced"] else "")
              + (f", {plural(stops, 'stop or gap character', 'stop and gap characters')} removed "
                 f"{c['non_amino_acid']}" if stops else ""))
    say(args, f"{res.version}: {res.seconds:.1f} s")
    say(args, f"wrote {plural(res.hits, 'hit')} to {res.out} (columns: {' '.join(res.columns)})")
    return 0
