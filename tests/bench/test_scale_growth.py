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
