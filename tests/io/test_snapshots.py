"""goeval.io.snapshots: the date of an annotation snapshot (GAF header, else file name)."""

from __future__ import annotations

import datetime as dt

from goeval.io.snapshots import snapshot_date


def test_dates_from_names_and_gaf_headers(tmp_path):
    assert snapshot_date("goa/exp_human_2014-10-12.tsv.gz")[0] == dt.date(2014, 10, 12)
    assert snapshot_date("GO.goa_fly_2019.01.29.gz")[0] == dt.date(2019, 1, 29)
    assert snapshot_date("goa_human_20190129.gaf")[0] == dt.date(2019, 1, 29)
    assert snapshot_date("truth.tsv") is None and snapshot_date("run_2019_13_45.tsv") is None
    gaf = tmp_path / "goa_2014-01-01.gaf"
    gaf.write_text("!gaf-version: 2.1\n!date-generated: 2019-01-14 18:20\nUniProtKB\tP1\n")
    date, where = snapshot_date(gaf)
    assert date == dt.date(2019, 1, 14) and "header line" in where  # the header wins over the name
