"""`heedful bench scale --sizes`: one user grown to two small sizes, timed side by side (real SQLite files)."""

from __future__ import annotations

from heedful.bench import scale_growth


def test_growth_reports_routes_cpu_and_garbage_collection_per_size() -> None:
    report = scale_growth.run([60, 150], runs=1, embedder="hashing")
    assert report["user_items"] == [60, 150]
    for size in ("60", "150"):
        row = report["sizes"][size]
        timings = row["recall_ms"]
        assert {"total", "cpu", "gc", "keyword", "vector"} <= set(timings)
        assert timings["total"]["p95"] >= timings["total"]["p50"] > 0
        assert timings["gc"]["p95"] >= 0 and row["gc_collections"] >= row["gc_full_collections"] >= 0
        assert row["ingest"]["items_per_s"] > 0 and row["meets_p95_target"] is None  # no target below 10,000
    lines: list[str] = []
    scale_growth.print_report(report, lines.append)
    assert any("gc p50/p95" in line for line in lines)


def test_past_the_exact_scan_threshold_the_report_says_how_much_of_the_exact_top_k_is_kept(monkeypatch) -> None:
    from heedful.store.sqlite import recall_index, search

    # each size also holds the 500 notes of its ingest measurement: 560 rows, then 1,150
    monkeypatch.setattr(recall_index, "COARSE_FROM_ROWS", 800)
    monkeypatch.setattr(recall_index, "COARSE_SAMPLE", 400)
    monkeypatch.setattr(search, "COARSE_CANDIDATES", 40)  # re-score few rows, so that some are lost
    report = scale_growth.run([60, 150], runs=1, embedder="hashing")
    assert report["sizes"]["60"]["projected_scan_keeps"] is None  # below the threshold the scan is exact
    kept = report["sizes"]["150"]["projected_scan_keeps"]
    # 100 of 1,150 rows re-scored: most of the top 10 is kept (all of it with some BLAS builds' projections)
    assert set(kept) == {"top_10", "top_200"} and 0.5 <= kept["top_10"] <= 1.0
    assert kept["top_200"] == 1.0  # 10 x 200 re-scored: every row, so nothing is lost
    lines: list[str] = []
    scale_growth.print_report(report, lines.append)
    assert any("keeps of the exact scan's: top 10" in line for line in lines)
