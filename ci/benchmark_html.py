#!/usr/bin/env python3
"""Measure the HTML page of a matrix document: its size and how long headless chromium takes to
open it (the document loaded, its script run and the summary tables drawn).

    ci/benchmark_html.py MATRIX.json [--html OUT.html] [--repeat N] [--screenshots DIR]

MATRIX.json is a `harness matrix --json` or `harness run --json` document (as `harness report`
reads it; bad input: one line, exit 2). Prints the page's
size, the time to render it in Python, and per opening the wall time of the browser's load and the
page's own time to ready (`performance.now()` when the tables are drawn), then the medians. With
--screenshots, also three PNGs of the page: the headline and first table, one row opened, and a
filter nothing matches.

Times are measurements, not assertions: a loaded machine moves them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.core.errors import InputError  # noqa: E402
from harness.reports import html_report, merge  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")


def browser(width: int = 1500, height: int = 1000):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def open_page(driver, path: Path) -> tuple[float, float]:
    """(wall seconds of the load, the page's own milliseconds to ready)."""
    driver.get("about:blank")
    start = time.perf_counter()
    driver.get(path.resolve().as_uri())
    ready = driver.find_element("css selector", "body").get_attribute("data-ready-ms")
    driver.execute_script("return document.querySelectorAll('table.sum').length")  # after layout
    return time.perf_counter() - start, float(ready or "nan")


def screenshots(driver, path: Path, out: Path) -> list[Path]:
    """The headline and first table; a row opened (the first with a changed cell, else the first);
    the filters "verdict changes" and "unexpected" (and, where that still keeps cells, a row name
    nothing has), which keep nothing."""
    from selenium.webdriver.support.ui import Select

    out.mkdir(parents=True, exist_ok=True)
    driver.get(path.resolve().as_uri())
    shots = [out / "html-summary.png"]
    driver.save_screenshot(str(shots[-1]))
    rows = driver.find_elements("css selector", "table.sum tbody tr[data-row]")
    changed = [r for r in rows if r.find_element("css selector", "td.n b").text != "0"]
    (changed or rows)[0].find_element("css selector", "button.row").click()
    opened = driver.find_element("css selector", "tr.open")
    driver.execute_script("arguments[0].previousElementSibling.scrollIntoView(); window.scrollBy(0, -110)", opened)
    shots.append(out / "html-expanded.png")
    driver.save_screenshot(str(shots[-1]))
    driver.get(path.resolve().as_uri())
    Select(driver.find_element("id", "change-filter")).select_by_value("changed")
    Select(driver.find_element("id", "judgment-filter")).select_by_value("unexpected")
    if not driver.find_element("id", "nothing").is_displayed():
        driver.find_element("id", "name-filter").send_keys("no-such-intrinsic")
    shots.append(out / "html-nothing.png")
    driver.save_screenshot(str(shots[-1]))
    return shots


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("matrix", type=Path)
    p.add_argument("--html", type=Path, help="keep the page here (default: a temporary file)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--screenshots", type=Path, metavar="DIR")
    args = p.parse_args()
    try:
        kind, doc = merge.load_document(args.matrix)
    except InputError as e:
        print(f"benchmark_html: {e}", file=sys.stderr)
        return 2
    doc = doc if kind == "matrix" else merge.run_as_matrix(doc)
    start = time.perf_counter()
    page = html_report.render(doc)
    rendered = time.perf_counter() - start
    target = args.html or Path(tempfile.mkdtemp()) / "matrix.html"
    target.write_text(page)
    size = target.stat().st_size
    print(f"{args.matrix}: {len(doc['cells'])} cells x {len(doc['builds'])} builds")
    print(f"page {target}: {size / 1e6:.2f} MB, rendered in {rendered:.1f} s")
    driver = browser()
    try:
        times = [open_page(driver, target) for _ in range(args.repeat)]
        for wall, ready in times:
            print(f"open: load {wall:.2f} s, ready after {ready / 1000:.2f} s")
        print(
            f"median: load {statistics.median(w for w, _ in times):.2f} s, ready {statistics.median(r for _, r in times) / 1000:.2f} s"
        )
        if args.screenshots:
            for shot in screenshots(driver, target, args.screenshots):
                print(f"screenshot {shot}: {shot.stat().st_size // 1024} KB")
    finally:
        driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
