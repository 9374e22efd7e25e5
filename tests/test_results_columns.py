"""results.parquet's later columns (tiebreak, end): written by every new run, optional for readers."""

import json

import polars as pl
import pyarrow.parquet as pq

from meeplab.analysis.load import load_run
from meeplab.cli import main
from meeplab.reports import build_report


def test_new_run_has_tiebreak_and_end_and_old_runs_still_load(tmp_path, capsys):
    new = tmp_path / "new"
    assert (
        main(
            [
                "run",
                "schweinebande",
                "--quiet",
                "--games",
                "200",
                "--players",
                "3",
                "--bots",
                "greedy,random",
                "--out",
                str(new),
            ]
        )
        == 0
    )
    table = pq.read_table(new / "results.parquet")
    assert table.schema.field("tiebreak").type == "double"
    assert str(table.schema.field("end").type) == "dictionary<values=string, indices=int32, ordered=0>"
    df = pl.read_parquet(new / "results.parquet")
    assert set(df["end"].cast(pl.String).to_list()) == {"rules"}
    run = load_run(new)
    assert run.collect(run.lf.select(pl.col("end").eq("rules").all())).item()
    assert run.collect(run.lf.select(pl.col("tiebreak").is_null().sum())).item() == 0

    # the same rows without the two columns, as older versions wrote them
    old = tmp_path / "old"
    old.mkdir()
    pq.write_table(table.drop_columns(["tiebreak", "end"]), old / "results.parquet")
    meta = json.loads((new / "run.json").read_text())
    meta.pop("results", None)  # older versions recorded no rows or checksum of results.parquet
    (old / "run.json").write_text(json.dumps(meta))
    run_old = load_run(old)
    got = run_old.collect(run_old.lf.select(pl.col("end").unique(), pl.col("tiebreak").null_count()))
    assert got["end"].to_list() == ["rules"] and got["tiebreak"].item() == 200 * 3
    base = run_old.collect(run_old.lf.drop("tiebreak", "end")).sort("game_index", "seat")
    assert base.equals(run.collect(run.lf.drop("tiebreak", "end")).sort("game_index", "seat"))

    # a run whose chunks disagree (an old part next to a new one) loads too, with the fill values
    mixed = tmp_path / "mixed"
    (mixed / "chunks").mkdir(parents=True)
    pq.write_table(table.slice(0, 300), mixed / "chunks" / "part-p3-000000000000.parquet")
    pq.write_table(
        table.slice(300).drop_columns(["tiebreak", "end"]), mixed / "chunks" / "part-p3-000000000100.parquet"
    )
    meta = json.loads((new / "run.json").read_text())
    (mixed / "run.json").write_text(json.dumps(dict(meta, status="interrupted")))
    run_mixed = load_run(mixed)
    assert run_mixed.n_rows == 600
    assert run_mixed.collect(run_mixed.lf.select(pl.col("end").unique())).item() == "rules"

    # and reports read both, old and new, together
    html = build_report([new, old, mixed], tmp_path / "r.html").read_text()
    assert "Schweinebande" in html
