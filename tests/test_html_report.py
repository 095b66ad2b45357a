"""The HTML page of `harness matrix --html` in a real browser: the system chromium, headless,
driven by selenium through the system chromedriver (no network, no driver download).

Skipped with the reason when selenium, chromium or chromedriver is missing, except under CI
(the environment variable CI set), where that is a failure: CI installs them.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import unavailable

from harness.reports import html_report

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


def _open(driver, path: Path) -> None:
    driver.get_log("browser")  # forget what earlier pages said
    driver.get(path.resolve().as_uri())
    assert driver.find_element("css selector", "body").get_attribute("data-ready") == "1"


def _errors(driver) -> list:
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def _verdict_counts(driver) -> dict[str, int]:
    return driver.execute_script("""
        var out = {};
        document.querySelectorAll("button.sc").forEach(function (b) {
          var v = Array.from(b.classList).find(function (c) { return c.indexOf("v-") === 0; });
          out[v.slice(2)] = (out[v.slice(2)] || 0) + 1;
        });
        return out;""")


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
    assert len(browser.find_elements("css selector", "button.sc")) == len(doc["cells"]) == 180
    assert len(browser.find_elements("css selector", "table.grid")) == 2


def test_each_view_shows_the_cells_per_verdict_of_the_json(browser, page):
    path, doc = page
    _open(browser, path)
    for i, build in enumerate(doc["builds"]):
        browser.find_element("css selector", f'#views button[data-view="{i}"]').click()
        expected = {v: n for v, n in doc["counts"][i].items() if n}
        assert _verdict_counts(browser) == expected, build["id"]
        for verdict, n in expected.items():
            td = browser.find_element("css selector", f'#counts td[data-build="{i}"][data-verdict="{verdict}"]')
            assert td.text == str(n)
    assert doc["counts"][1]["mc-reject"] == 0 and doc["counts"][0]["mc-reject"] > 0
    browser.find_element("css selector", '#views button[data-view="-1"]').click()
    differing = sum(c["differs"] for c in doc["cells"])
    assert differing > 0
    assert len(browser.find_elements("css selector", "button.sc.changed")) == differing
    assert len(browser.find_elements("css selector", "button.sc.same")) == len(doc["cells"]) - differing
    assert _errors(browser) == []


def test_a_click_shows_the_cells_details(browser, page, tmp_path):
    path, doc = page
    _open(browser, path)
    cell = next(c for c in doc["cells"] if c["differs"] and c["selector"] == "gisel")
    panel = browser.find_element("id", "details")
    assert not panel.is_displayed()
    square = browser.find_element("css selector", f'button.sc[data-function="{cell["function"]}"][data-selector="gisel"]')
    assert cell["verdicts"][0] in square.get_attribute("title")  # the hover summary
    square.click()
    assert panel.is_displayed()
    text = panel.text
    assert cell["function"] in text
    for verdict, detail, _command in zip(cell["verdicts"], cell["details"], cell["commands"]):
        assert verdict in text
        assert detail.splitlines()[0] in text if detail else True
    rendered = [e.text for e in panel.find_elements("css selector", "code.command")]
    assert rendered == cell["commands"]
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
    _open(browser, out)
    assert browser.execute_script("return window.__pwned === undefined")
    assert browser.find_elements("css selector", "img, i") == []
    assert not browser.execute_script(
        'return Array.from(document.querySelectorAll("b")).some(function (b) { return b.textContent === "bold"; })'
    )
    square = browser.find_element("css selector", "button.sc")
    assert square.get_attribute("data-function") == EVIL
    square.click()
    text = browser.find_element("id", "details").text
    assert EVIL in text and "</script><script>window.__pwned=2</script>" in text and "<b>bold</b>" in text
    assert "<i>22</i>" in browser.find_element("id", "counts").text
    assert _errors(browser) == []


def test_embedded_data_cannot_close_its_script_element():
    doc = {
        "kind": "harness-matrix",
        "builds": [{"id": "</script>", "version": "1", "bin": "<b>", "pipeline": "none"}],
        "counts": [{"pass": 1}],
        "cells": [{"function": "</script><!--", "differs": False}],
        "shard": None,
    }
    text = html_report.render(doc)
    body = text.split('id="matrix-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in body and ">" not in body and "&" not in body
    assert json.loads(body)["cells"][0]["function"] == "</script><!--"
    assert "from &lt;b&gt;" in text and "from <b>" not in text  # the build's bin, in the counts table
    assert "<h1>harness matrix: &lt;/script&gt;</h1>" in text


def _sm(cpu: str) -> tuple[int, str]:
    number = cpu.removeprefix("sm_").rstrip("abcdef")
    return int(number), cpu


def test_nvptx_cells_are_variant_by_sm_grids(browser, cli, llvm_22_1_8, ptxas_path, tmp_path):
    """NVPTX rows: a grid per shape, a row per variant as the ISA spells it, a column per SM in
    SM order (sm_75 before sm_100a), one square per cell of the document where it belongs."""
    out = tmp_path / "nvptx.html"
    proc = cli("matrix", "--spec", "nvptx-mma.yaml", "--intrinsic", "mma.m16n8k8.*", "-O", "0", "--llvm-bin",
               llvm_22_1_8.bin_dir, "--json", "--html", out, "--cache-dir", tmp_path / "cache")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    cells = json.loads(proc.stdout)["cells"]
    for c in cells:  # the variant is the instruction's own spelling after its shape
        assert c["grid"]["title"] == "NVPTX mma m16n8k8" and c["grid"]["row"].startswith("row.col."), c["grid"]
    _open(browser, out)
    assert _errors(browser) == []
    assert [h.text for h in browser.find_elements("css selector", "section.gridbox h2")] == ["NVPTX mma m16n8k8 · -O0"]
    heads = [th.text for th in browser.find_elements("css selector", "table.grid thead th")]
    assert heads == ["variant \\ SM", *sorted({c["cpu"] for c in cells}, key=_sm)]
    rows = [th.text for th in browser.find_elements("css selector", "table.grid tbody th")]
    assert rows == list(dict.fromkeys(c["grid"]["row"] for c in cells))
    for c in cells:
        td = f'td[data-variant="{c["grid"]["row"]},{c["cpu"]}"]'
        square = f'{td} button.sc[data-function="{c["function"]}"][data-selector="{c["selector"]}"]'
        assert len(browser.find_elements("css selector", square)) == 1, square
    assert len(browser.find_elements("css selector", "button.sc")) == len(cells)


def _visible_squares(driver) -> int:
    return driver.execute_script("""
        return Array.from(document.querySelectorAll("button.sc")).filter(function (b) {
          return !b.classList.contains("off") && !b.closest("section").hidden;
        }).length;""")


def test_filters_keep_changed_or_unexpected_cells_and_the_index_links_each_intrinsic(browser, page, cli, tmp_path):
    path, doc = page
    # One cell made unexpected on the first build: the page's filter and `report`'s exit status see it.
    edited = json.loads(json.dumps(doc))
    target = next(c for c in edited["cells"] if not c["differs"])
    target["judgments"][0] = "unexpected"
    (tmp_path / "doc.json").write_text(json.dumps(edited))
    proc = cli("report", tmp_path / "doc.json", "--html", tmp_path / "page.html")
    assert proc.returncode == 1 and "UNEXPECTED on 22.1.8: " in proc.stdout, proc.stdout[-2000:]
    _open(browser, tmp_path / "page.html")
    assert _visible_squares(browser) == len(doc["cells"])
    said = [p.text for p in browser.find_elements("css selector", "p.judgments")]
    assert said[0].startswith("22.1.8: ") and ", 1 unexpected, " in said[0] and ", 0 unexpected, " in said[1], said
    browser.find_element("css selector", "#only-changed").click()
    changed = sum(1 for c in doc["cells"] if len({v for v in c["verdicts"] if v not in ("unsupported", "timeout")}) > 1)
    assert 0 < changed < len(doc["cells"]) and _visible_squares(browser) == changed
    browser.find_element("css selector", "#only-changed").click()
    browser.find_element("css selector", "#only-unexpected").click()
    assert _visible_squares(browser) == 1
    assert len([s for s in browser.find_elements("css selector", "section.gridbox") if s.is_displayed()]) == 1
    links = {a.text: a.get_attribute("href").split("#")[1] for a in browser.find_elements("css selector", "#index a")}
    assert set(links) == {c["intrinsic"] for c in doc["cells"]}
    for name, anchor in links.items():
        heading = browser.find_element("css selector", f"#{anchor} h2").get_attribute("textContent")
        assert heading.startswith(name + " "), (name, heading)
    browser.save_screenshot(str(tmp_path / "filtered.png"))
    assert _errors(browser) == []
