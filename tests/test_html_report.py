"""The HTML page of `harness matrix --html` in a real browser: the system chromium, headless,
driven by selenium through the system chromedriver (no network, no driver download).

Skipped with the reason when selenium, chromium or chromedriver is missing, except under CI
(the environment variable CI set), where that is a failure: CI installs them.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import zlib
from pathlib import Path

import pytest
from conftest import unavailable

from harness.reports import compare, html_report, report

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
SPEC = "f8f6f4-runtime-formats.yaml"
SHOT = Path("/tmp/matrix-report.png")  # a copy of the screenshot, for a person to look at
EVIL = '<img src=x onerror="window.__pwned=1">'


@pytest.fixture(scope="module")
def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        unavailable("selenium is not installed (pip install -e '.[test]')")
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            unavailable(f"{path} is missing (apt-get install chromium chromium-driver)")
    os.environ["SE_OFFLINE"] = "true"  # selenium-manager, if it ever ran, must not go online
    options = Options()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1500,1000",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def page(cli, llvm_22_1_8, tmp_path_factory) -> tuple[Path, dict]:
    """A real comparison: 22.1.8 against itself plus instcombine, on two intrinsics with A in FP4."""
    out = tmp_path_factory.mktemp("html")
    l22 = str(llvm_22_1_8.bin_dir)
    proc = cli(
        "matrix",
        "--spec",
        SPEC,
        "--intrinsic",
        "wmma.f32.16x16x128.f8f6f4",
        "--intrinsic",
        "mfma.scale.f32.16x16x128.f8f6f4",
        "--fmt-a",
        "fp4",
        "--llvm-bin",
        l22,
        "--llvm-bin",
        f"{l22}::instcombine",
        "--json",
        "--html",
        out / "matrix.html",
        "--cache-dir",
        out / "cache",
    )
    assert proc.returncode == 0, proc.stderr
    return out / "matrix.html", json.loads(proc.stdout)


def _open(driver, path: Path, rows: bool = False) -> None:
    """Open the page; with `rows`, open every row of its tables (one square per cell)."""
    driver.get_log("browser")  # forget what earlier pages said
    driver.get(path.resolve().as_uri())
    assert driver.find_element("css selector", "body").get_attribute("data-ready") == "1"
    if rows:
        _click(driver, "#expand-all")


def _click(driver, selector: str) -> None:
    driver.execute_script("document.querySelector(arguments[0]).click()", selector)


def _type(driver, text: str) -> None:
    """Put `text` in the row filter, as typing it would."""
    driver.execute_script(
        "var f = document.getElementById('name-filter'); f.value = arguments[0];"
        " f.dispatchEvent(new Event('input', {bubbles: true}));",
        text,
    )


def _choose(driver, select: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("css selector", select)).select_by_value(value)


def _errors(driver) -> list:
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def _squares(driver) -> list[dict]:
    """Every square the page shows: its cell's function and selector, verdict class, judgment
    class and diff class."""
    return driver.execute_script("""
        return Array.from(document.querySelectorAll("button.sc")).filter(function (b) {
          return b.offsetParent !== null;
        }).map(function (b) {
          var cls = Array.from(b.classList);
          function one(prefix) { var c = cls.find(function (c) { return c.indexOf(prefix) === 0; }); return c ? c.slice(prefix.length) : null; }
          return {fn: b.getAttribute("data-function"), sel: b.getAttribute("data-selector"), verdict: one("v-"),
                  judgment: one("j-"), diff: ["chg", "udiff", "same"].find(function (c) { return cls.indexOf(c) >= 0; }) || null};
        });""")


def _count(items, key) -> dict:
    out: dict = {}
    for item in items:
        out[item[key]] = out.get(item[key], 0) + 1
    return out


def test_page_is_self_contained(page):
    path, _ = page
    text = path.read_text()
    assert "<script src" not in text and '<link rel="stylesheet"' not in text
    assert "http://" not in text and "https://" not in text
    assert "default-src 'none'" in text  # the page may load nothing at all


def test_page_loads_without_console_errors(browser, page):
    path, doc = page
    _open(browser, path)
    assert _errors(browser) == []
    assert browser.find_elements("css selector", "button.sc") == []  # rows open on demand
    rows = browser.find_elements("css selector", "#target-amdgpu tr[data-row]")
    assert [r.get_attribute("data-row") for r in rows] == sorted({c["intrinsic"] for c in doc["cells"]})
    assert browser.find_elements("css selector", "#target-nvptx") == []  # no NVPTX cell, no NVPTX table
    _click(browser, "#expand-all")
    assert len(_squares(browser)) == len(doc["cells"]) == 180
    assert _errors(browser) == []


def test_each_view_shows_the_cells_per_verdict_and_judgment_of_the_json(browser, page):
    path, doc = page
    _open(browser, path, rows=True)
    for i, build in enumerate(doc["builds"]):
        _click(browser, f'#views button[data-view="{i}"]')
        squares = _squares(browser)
        assert _count(squares, "verdict") == {v: n for v, n in doc["counts"][i].items() if n}, build["id"]
        assert _count(squares, "judgment") == _count([{"j": c["judgments"][i]} for c in doc["cells"]], "j")
        for verdict, n in doc["counts"][i].items():
            if n:
                td = browser.find_element("css selector", f'#counts td[data-build="{i}"][data-verdict="{verdict}"]')
                assert td.text == str(n)
    assert doc["counts"][1]["mc-reject"] == 0 and doc["counts"][0]["mc-reject"] > 0
    _click(browser, '#views button[data-view="-1"]')
    diff = _count(_squares(browser), "diff")
    changed = sum(report.changed(c) for c in doc["cells"])
    assert changed > 0
    assert diff.get("chg", 0) == changed
    assert diff.get("udiff", 0) == sum(c["differs"] and not report.changed(c) for c in doc["cells"])
    assert diff.get("same", 0) == sum(not c["differs"] for c in doc["cells"])
    assert _errors(browser) == []


def test_a_click_shows_the_cells_details(browser, page, tmp_path):
    path, doc = page
    _open(browser, path, rows=True)
    cell = next(c for c in doc["cells"] if c["differs"] and c["selector"] == "gisel")
    panel = browser.find_element("id", "details")
    assert not panel.is_displayed()
    square = browser.find_element("css selector", f'button.sc[data-function="{cell["function"]}"][data-selector="gisel"]')
    hover = square.get_attribute("title")  # the hover summary: each build's verdict and judgment
    for build, verdict, judgment in zip(doc["builds"], cell["verdicts"], cell["judgments"]):
        assert f"{build['id']}: {verdict} ({judgment})" in hover
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", square)
    square.click()
    assert panel.is_displayed()
    text = panel.text
    assert cell["function"] in text
    for verdict, detail, judgment in zip(cell["verdicts"], cell["details"], cell["judgments"]):
        assert verdict in text and f"({judgment})" in text
        assert detail.splitlines()[0] in text if detail else True
    rendered = [e.text for e in panel.find_elements("css selector", "code.command")]
    assert rendered == cell["commands"]  # rebuilt by the page's script, word for word
    shot = tmp_path / "matrix.png"
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    try:
        shutil.copyfile(shot, SHOT)
    except OSError:
        pass  # the copy is a convenience; the screenshot under tmp_path is the test's
    browser.find_element("id", "close").click()
    assert not panel.is_displayed()
    assert _errors(browser) == []


def test_every_command_on_the_page_is_the_documents(browser, page, cli, tmp_path):
    """The page rebuilds `harness try` lines from the cell; a line it could not rebuild (here one
    edited by hand, one of a build with a pipeline) is embedded as it is."""
    _, doc = page
    doc = json.loads(json.dumps(doc))
    doc["cells"][0]["commands"][1] = "harness try --edited 'by hand'"
    (tmp_path / "doc.json").write_text(json.dumps(doc))
    assert cli("report", tmp_path / "doc.json", "--html", tmp_path / "page.html").returncode == 0
    _open(browser, tmp_path / "page.html", rows=True)
    shown = browser.execute_script("""
        var out = [];
        document.querySelectorAll("button.sc").forEach(function (b) {
          b.click();
          out.push(Array.from(document.querySelectorAll("#details code.command")).map(function (c) { return c.textContent; }));
        });
        return out;""")
    by_cell = {(c["function"], c["selector"]): c["commands"] for c in doc["cells"]}
    squares = [(s["fn"], s["sel"]) for s in _squares(browser)]
    assert len(shown) == len(squares) == len(doc["cells"])
    assert [by_cell[k] for k in squares] == shown
    assert _errors(browser) == []


def test_text_from_the_tools_cannot_inject_html(browser, page, cli, tmp_path):
    _, doc = page
    doc = json.loads(json.dumps(doc))
    cell = doc["cells"][0]
    cell["function"] = EVIL
    cell["details"][0] = f"</script><script>window.__pwned=2</script>{EVIL}"
    cell["commands"][0] = "harness try '<b>bold</b>'"
    doc["builds"][0]["id"] = "<i>22</i>"
    crafted = tmp_path / "crafted.json"
    crafted.write_text(json.dumps(doc))
    out = tmp_path / "crafted.html"
    proc = cli("report", crafted, "--html", out)
    assert proc.returncode == 0, proc.stderr
    _open(browser, out, rows=True)
    assert browser.execute_script("return window.__pwned === undefined")
    assert browser.find_elements("css selector", "img, i") == []
    assert not browser.execute_script(
        'return Array.from(document.querySelectorAll("b")).some(function (b) { return b.textContent === "bold"; })'
    )
    square = browser.find_element("css selector", "button.sc[data-cell='0']")
    assert square.get_attribute("data-function") == EVIL
    browser.execute_script("arguments[0].click()", square)
    text = browser.find_element("id", "details").text
    assert EVIL in text and "</script><script>window.__pwned=2</script>" in text and "<b>bold</b>" in text
    assert "<i>22</i>" in browser.find_element("id", "counts").text
    assert _errors(browser) == []


def _cell(**fields) -> dict:
    cell = {"function": "f", "intrinsic": "mfma.f32.32x32x8f16", "cpu": "gfx942", "fmt_a": "half", "fmt_b": "half",
            "width_a": 4, "width_b": 4, "required_a": 4, "required_b": 4, "opt": 0, "pipeline": "none",
            "class": "exact", "selector": "sdag", "verdicts": ["pass"], "details": [""], "metrics": [None],
            "commands": [None], "differs": False}  # fmt: skip
    return cell | fields


def test_embedded_data_cannot_close_its_script_element():
    doc = {
        "kind": "harness-matrix",
        "builds": [{"id": "</script>", "version": "1", "bin": "<b>", "pipeline": "none"}],
        "counts": [{"pass": 1}],
        "cells": [_cell(function="</script><!--", details=["<!-- & </script>"])],
        "shard": None,
    }
    text = html_report.render(doc)
    body = text.split('id="matrix-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in body and ">" not in body and "&" not in body
    assert "</script><!--" in json.loads(body)["s"] and "<!-- & </script>" in json.loads(body)["s"]
    assert "from &lt;b&gt;" in text and "from <b>" not in text  # the build's bin, in the counts table
    assert "<h1>harness matrix: &lt;/script&gt;</h1>" in text


def _sm(cpu: str) -> tuple[int, str]:
    number = cpu.removeprefix("sm_").rstrip("abcdef")
    return int(number), cpu


def test_nvptx_cells_are_variant_by_sm_tables(browser, cli, llvm_22_1_8, ptxas_path, tmp_path):
    """NVPTX rows: under each family and shape a row per variant as the ISA spells it, a column per
    SM in SM order (sm_75 before sm_100a); a row opens into one square per cell of the document,
    in its SM's column; the legend speaks of ptxas, never of llvm-mc."""
    out = tmp_path / "nvptx.html"
    proc = cli("matrix", "--spec", "nvptx-mma.yaml", "--intrinsic", "mma.m16n8k8.*", "-O", "0", "--llvm-bin",
               llvm_22_1_8.bin_dir, "--json", "--html", out, "--cache-dir", tmp_path / "cache")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    cells = json.loads(proc.stdout)["cells"]
    for c in cells:  # the variant is the instruction's own spelling after its shape
        assert c["grid"]["title"] == "NVPTX mma m16n8k8" and c["grid"]["row"].startswith("row.col."), c["grid"]
    _open(browser, out)
    assert _errors(browser) == []
    assert browser.find_elements("css selector", "#target-amdgpu") == []
    section = browser.find_element("id", "target-nvptx")
    legend = section.find_element("css selector", ".legend").text
    assert "ptxas" in legend and "llvm-mc" not in legend
    assert [g.text for g in section.find_elements("css selector", "tr.group th")] == ["NVPTX mma m16n8k8"]
    heads = [th.get_attribute("textContent") for th in section.find_elements("css selector", "table.head th.cpu")]
    assert heads == sorted({c["cpu"] for c in cells}, key=_sm)
    rows = [tr.get_attribute("data-row") for tr in section.find_elements("css selector", "tr[data-row]")]
    assert rows == list(dict.fromkeys(c["grid"]["row"] for c in cells))
    _click(browser, "#expand-all")
    placed = []
    for opened in section.find_elements("css selector", "tr.open"):
        sms = [th.get_attribute("textContent") for th in opened.find_elements("css selector", "thead th.cpu")]
        assert sms == sorted(sms, key=_sm)
        for column, sm in enumerate(sms):
            for b in opened.find_elements("css selector", f"tbody td:nth-child({column + 2}) button.sc"):
                assert b.get_attribute("data-cpu") == sm
                placed.append((b.get_attribute("data-function"), sm, b.get_attribute("data-selector")))
    assert sorted(placed) == sorted((c["function"], c["cpu"], c["selector"]) for c in cells)
    assert _errors(browser) == []


def _with_judgments(doc: dict, *pairs: tuple[int, str]) -> dict:
    """The document with the first unchanged cells' judgment on build 0 set (one cell per pair:
    its index among them and the judgment)."""
    edited = json.loads(json.dumps(doc))
    same = [c for c in edited["cells"] if not c["differs"] and c["judgments"][0] == "expected"]
    for k, judgment in pairs:
        same[k]["judgments"][0] = judgment
    return edited


def test_known_bug_and_unexpected_squares_look_different(browser, page, cli, tmp_path):
    path, doc = page
    (tmp_path / "doc.json").write_text(json.dumps(_with_judgments(doc, (0, "unexpected"))))
    proc = cli("report", tmp_path / "doc.json", "--html", tmp_path / "page.html")
    assert proc.returncode == 1 and "UNEXPECTED on 22.1.8: " in proc.stdout, proc.stdout[-2000:]
    _open(browser, tmp_path / "page.html", rows=True)
    _click(browser, '#views button[data-view="0"]')
    look = browser.execute_script("""
        var out = {};
        ["known-bug", "unexpected", "expected", "not-judged"].forEach(function (j) {
          var b = document.querySelector("button.sc.j-" + j);
          if (!b) return;
          var s = getComputedStyle(b);
          out[j] = [s.borderRadius, s.boxShadow, s.borderStyle, s.backgroundImage].join(" | ");
        });
        return out;""")
    assert "known-bug" in look and "unexpected" in look and "expected" in look, look
    assert len(set(look.values())) == len(look), look  # each judgment its own look
    assert _errors(browser) == []


def _summed(driver, attribute: str) -> int:
    return driver.execute_script(
        "var n = 0, a = arguments[0]; document.querySelectorAll('td[' + a + ']').forEach(function (td) {"
        " if (td.offsetParent !== null) n += Number(td.getAttribute(a)); }); return n;",
        attribute,
    )


def test_the_headline_the_tables_and_the_changed_filter_agree(browser, page):
    path, doc = page
    _open(browser, path)
    headline = browser.find_element("id", "headline")
    changed = int(headline.get_attribute("data-changed"))
    assert changed == sum(report.changed(c) for c in doc["cells"]) > 0
    assert headline.text.startswith(f"{changed} of {len(doc['cells'])} cells change verdict")
    assert _summed(browser, "data-changed") == changed  # the tables' sums, no filter
    assert browser.find_element("id", "shown").get_attribute("data-changed") == str(changed)
    _choose(browser, "#change-filter", "changed")
    assert _summed(browser, "data-n") == _summed(browser, "data-changed") == changed
    assert browser.find_element("id", "shown").get_attribute("data-kept") == str(changed)
    _click(browser, "#expand-all")
    squares = _squares(browser)
    assert len(squares) == changed and {s["diff"] for s in squares} == {"chg"}
    assert not browser.find_element("id", "nothing").is_displayed()
    assert _errors(browser) == []


def test_filters_drop_empty_rows_and_say_when_nothing_matches(browser, page, cli, tmp_path):
    path, doc = page
    (tmp_path / "doc.json").write_text(json.dumps(_with_judgments(doc, (0, "unexpected"))))
    assert cli("report", tmp_path / "doc.json", "--html", tmp_path / "page.html").returncode == 1
    _open(browser, tmp_path / "page.html")
    said = [p.text for p in browser.find_elements("css selector", "p.judgments")]
    assert said[0].startswith("22.1.8: ") and ", 1 unexpected, " in said[0] and ", 0 unexpected, " in said[1], said
    rows = lambda: [tr.get_attribute("data-row") for tr in browser.find_elements("css selector", "tr[data-row]")]
    assert len(rows()) == 2
    _choose(browser, "#judgment-filter", "unexpected")
    assert _summed(browser, "data-n") == 1 and len(rows()) == 1  # the other intrinsic's row is gone
    _click(browser, "#expand-all")
    assert [s["judgment"] for s in _squares(browser)] == ["unexpected"]
    _click(browser, '#views button[data-view="1"]')  # the unexpected cell is build 0's
    assert rows() == [] and browser.find_element("id", "nothing").is_displayed()
    assert not browser.find_element("id", "target-amdgpu").is_displayed()
    _click(browser, '#views button[data-view="-1"]')
    _choose(browser, "#judgment-filter", "any")
    _type(browser, "no such intrinsic")
    assert rows() == [] and browser.find_element("id", "nothing").is_displayed()
    _type(browser, "")
    _choose(browser, "#judgment-filter", "known-bug")
    known = sum("known-bug" in c["judgments"] for c in doc["cells"])
    assert _summed(browser, "data-n") == known and not browser.find_element("id", "nothing").is_displayed()
    assert _errors(browser) == []


PAGE_LIMIT = 10_000_000  # bytes: the full space of two builds in one page
BUILDS = [
    {"id": "19.1.7", "version": "19.1.7", "bin": "/usr/lib/llvm-19/bin", "pipeline": "none"},
    {"id": "22.1.8", "version": "22.1.8", "bin": "/usr/lib/llvm-22/bin", "pipeline": "none"},
]
MADE_UP = ("pass", "cannot-select", "verifier-reject", "crash", "miscompile", "pass", "unsupported", "mc-reject")


def _made_up(case, selector: str) -> tuple[list, list[str]]:
    """Two builds' verdicts and judgments for one cell, made up from its place: most cells the
    same on both, one in about 60 changed, messages from a few hundred, register costs varied."""
    from harness.core.verdicts import Verdict

    h = zlib.crc32(f"{case.function} {case.cpu} {case.opt} {selector}".encode())
    new = MADE_UP[h % 6]
    old = MADE_UP[(h >> 8) % 8] if h % 59 == 0 else new
    judge = lambda v: "expected" if v == "pass" else "not-judged" if v == "unsupported" else "known-bug"
    judgments = [judge(old), judge(new)]
    if old != new and h % 3 == 0 and old != "unsupported":
        judgments[0] = "unexpected"
    made = []
    for v in (old, new):
        metrics = {"vgpr": 8 + h % 120, "sgpr": 32, "instructions": 40 + (h >> 4) % 90} if v == "pass" else {}
        made.append(
            Verdict(v, f"{v}: {case.intrinsic.name.split('.')[0]} message {(h >> 12) % 200}", details={"metrics": metrics})
        )
    return made, judgments


def _full_space_doc() -> dict:
    """A matrix document of two builds over every cell of the full space (the real plan: every
    matrix intrinsic on every processor and SM of the tables), verdicts made up (`_made_up`)."""
    from harness.specs import selection

    cells = []
    for p in selection.planned(selection.space_args("full")):
        for sel in p.selectors:
            verdicts, judgments = _made_up(p.case, sel)
            cells.append(compare.cell(p.case, sel, verdicts, BUILDS) | {"judgments": judgments})
    cells.sort(key=report.cell_order)
    return compare.document(BUILDS, cells, {"space": "full"}, None)


@pytest.fixture(scope="module")
def full_space(tmp_path_factory) -> tuple[Path, dict]:
    doc = _full_space_doc()
    path = tmp_path_factory.mktemp("full") / "full.html"
    path.write_text(html_report.render(doc))
    return path, doc


def test_a_full_space_page_stays_small_and_draws_its_tables(browser, full_space):
    """About 90,000 cells of two builds: a page under 10 MB whose tables hold every row. The time
    to open it is printed (ci/benchmark_html.py measures it properly), not asserted."""
    path, doc = full_space
    assert len(doc["cells"]) > 80_000
    size = path.stat().st_size
    assert size < PAGE_LIMIT, f"{size / 1e6:.1f} MB"
    start = time.perf_counter()
    _open(browser, path)
    wall = time.perf_counter() - start
    ready = browser.find_element("css selector", "body").get_attribute("data-ready-ms")
    print(f"\n{len(doc['cells'])} cells x 2 builds: {size / 1e6:.2f} MB, opened in {wall:.2f} s (ready after {ready} ms)")
    rows = {c["intrinsic"] if "grid" not in c else (c["grid"]["title"], c["grid"]["row"]) for c in doc["cells"]}
    assert len(browser.find_elements("css selector", "tr[data-row]")) == len(rows)
    changed = sum(report.changed(c) for c in doc["cells"])
    assert 0 < changed == int(browser.find_element("id", "headline").get_attribute("data-changed"))
    assert browser.find_element("id", "shown").get_attribute("data-changed") == str(changed)
    assert _summed(browser, "data-changed") == changed
    _choose(browser, "#judgment-filter", "unexpected")
    unexpected = sum("unexpected" in c["judgments"] for c in doc["cells"])
    assert _summed(browser, "data-n") == unexpected > 0
    _click(browser, "#expand-all")  # few enough to open every row
    assert len(_squares(browser)) == unexpected
    assert _errors(browser) == []
