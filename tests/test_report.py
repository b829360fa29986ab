"""The HTML report (quercus.report, ``quercus report``): the page's tree, rules, importances
and evaluation against the model, escaping, and the interactive tree in a real headless
browser (Debian's chromium driven by selenium; skipped when either is missing)."""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from picture_cases import CASES, SCRIPT, fitted

import quercus
from quercus import cli
from quercus.export.rules import tree_to_rules
from quercus.report import OPEN_DEPTH, report_html
from quercus.tree import LEAF, NUMERIC

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"


class PageReader(HTMLParser):
    """Collects the tree rows (their data-* attributes), the rules, the importance table,
    the confusion matrix and every tag name, from the page as a browser would parse it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.rows, self.rules, self.text = [], [], [], []
        self.tables: dict[str, list[list[str]]] = {}
        self._table = self._cell = self._rule = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "div" and attrs.get("class") == "row":
            self.rows.append(attrs)
        elif tag == "table":
            self._table = attrs.get("class")
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self.tables[self._table].append([])
        elif tag in ("td", "th") and self._table:
            self._cell = []
        elif tag == "code" and self.rules is not None and self._in_rules():
            self._rule = []

    def _in_rules(self):
        return any(t == "ol" and a.get("class") == "rules" for t, a in self.tags)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[self._table][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = None
        elif tag == "code" and self._rule is not None:
            self.rules.append("".join(self._rule))
            self._rule = None

    def handle_data(self, data):
        self.text.append(data)
        for sink in (self._cell, self._rule):
            if sink is not None:
                sink.append(data)


def read_page(page: str) -> PageReader:
    reader = PageReader()
    reader.feed(page)
    reader.close()
    return reader


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    return fitted(request.param)


def test_page_tree_rules_and_importances_match_the_model(case):
    model = case[0]
    tree = model.tree_
    page = read_page(report_html(model))
    assert [int(r["data-node"]) for r in page.rows] == list(range(tree.n_nodes))  # pre-order
    depths = tree.depths()
    proba = tree.node_probabilities()
    for node, row in enumerate(page.rows):
        assert int(row["data-depth"]) == depths[node]
        assert int(row["data-samples"]) == tree.n_node_samples[node]
        pairs = [part.rsplit(": ", 1) for part in row["data-distribution"].split("; ")]
        assert len(pairs) == model.n_classes_
        np.testing.assert_allclose([float(v) for _, v in pairs], tree.value[node], atol=0.0051)
        if tree.kind[node] == LEAF:
            assert row["data-test"] == "(leaf)"
        else:
            assert model.schema_.features[tree.feature[node]].name in row["data-test"]
        lost = model.algorithm == "interval" and tree.kind[node] == LEAF and not proba[node].any()
        expected = "unclassified" if lost else str(model.classes_[np.argmax(proba[node])])
        assert row["data-class"].split(" (empty leaf")[0].strip("'\"") == expected
    assert page.rules == [str(rule) for rule in tree_to_rules(model)]
    table = page.tables["importances"][1:]
    importances = model.feature_importances_
    names = model.schema_.feature_names
    assert [r[0] for r in table] == [names[j] for j in np.argsort(-importances, kind="stable")
                                     if importances[j] > 0]
    for name, value, _ in table:
        assert float(value) == pytest.approx(importances[names.index(name)], abs=5e-5)


def test_user_strings_are_escaped():
    model, X, y = fitted("cart-awkward-missing")
    page = report_html(model, X, y, title=SCRIPT, data_name=SCRIPT)
    assert SCRIPT not in page and "<i>x</i>" not in page
    reader = read_page(page)
    assert [t for t, _ in reader.tags].count("script") == 1  # our own script only
    assert not any(t in ("i", "b") for t, _ in reader.tags)
    assert SCRIPT in "".join(reader.text)  # shown as text
    assert any(SCRIPT in r["data-test"] or SCRIPT in r["data-branch"] for r in reader.rows)


def test_page_needs_no_network():
    page = report_html(fitted("c45-vote")[0])
    reader = read_page(page)
    for tag, attrs in reader.tags:
        assert "src" not in attrs and tag != "link", (tag, attrs)
        assert not attrs.get("href", "#").startswith(("http:", "https:", "//"))
    assert not re.search(r"https?://", page)
    csp = [a for t, a in reader.tags if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0]["content"].startswith("default-src 'none'")


@pytest.mark.parametrize("name", ["cart-iris", "c45-vote", "interval-iris"])
def test_accuracy_and_confusion_matrix(name):
    model, X, y = fitted(name)
    reader = read_page(report_html(model, X, y))
    known = ~pd.isna(pd.Series(y, dtype=object)).to_numpy()
    predicted = pd.Series(model.predict(X), dtype=object).where(
        model.predict_proba(X).sum(axis=1) > 0, "unclassified")[known]
    truth = pd.Series(y, dtype=object)[known]
    score = float(np.mean(predicted.to_numpy() == truth.to_numpy()))
    assert f"accuracy {score:.4f} " in "".join(reader.text)
    table = reader.tables["confusion"]
    columns = table[0][1:]
    counts = pd.crosstab(truth.to_numpy(), predicted.to_numpy())
    assert columns[:model.n_classes_] == [str(c) for c in model.classes_]
    assert ("unclassified" in columns) == ("unclassified" in counts.columns)
    for row in table[1:]:
        for column, cell in zip(columns, row[1:]):
            got = counts.loc[row[0], column] if column in counts.columns else 0
            assert int(cell) == got, (row[0], column)


def test_report_command(tmp_path, capsys):
    model_file, out = tmp_path / "iris.json", tmp_path / "r.html"
    fitted("cart-iris")[0].save(model_file)
    assert cli.main(["report", str(model_file), str(BUNDLED / "iris.csv"),
                     "--out", str(out)]) == 0
    assert "accuracy 0.9" in "".join(read_page(out.read_text()).text)
    assert cli.main(["report", str(model_file), "--out", str(tmp_path / "t.html")]) == 0
    assert 'id="evaluation"' not in (tmp_path / "t.html").read_text()
    capsys.readouterr()
    bad = tmp_path / "b.html"
    assert cli.main(["report", str(model_file), str(BUNDLED / "yinyang.csv"),
                     "--out", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("quercus: error: ") and err.count("\n") == 1
    assert "sepal_length" in err and not bad.exists()


# -- in a real browser ---------------------------------------------------------------------
def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if (path := shutil.which(name)) is not None:
            return path
    return None


@pytest.fixture(scope="module")
def driver():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed "
                                    "(pip install -e '.[test]')")
    browser, chromedriver = _browser(), shutil.which("chromedriver")
    if browser is None or chromedriver is None:
        pytest.skip("chromium or chromedriver is not on PATH "
                    "(apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,1000"):
        options.add_argument(argument)
    try:
        chrome = webdriver.Chrome(service=Service(chromedriver), options=options)
    except Exception as error:  # noqa: BLE001 (a browser that cannot start: skip)
        pytest.skip(f"chromium did not start under chromedriver: {error}".splitlines()[0])
    yield chrome
    chrome.quit()


def _row(driver, node):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, f"node-{node}")


def test_expanding_a_node_in_the_browser_shows_the_model(driver, tmp_path):
    from selenium.webdriver.common.by import By

    model, X, y = fitted("cart-iris")
    tree = model.tree_
    page = tmp_path / "report.html"
    page.write_text(report_html(model, X, y), encoding="utf-8")
    driver.get(page.as_uri())
    depths = tree.depths()
    node = next(int(n) for n in np.flatnonzero((depths == OPEN_DEPTH) & (tree.kind != LEAF)))
    children = [int(c) for c in tree.children(node)]
    assert _row(driver, node).is_displayed()
    assert not any(_row(driver, c).is_displayed() for c in children)  # starts collapsed
    _row(driver, node).find_element(By.CLASS_NAME, "toggle").click()
    assert all(_row(driver, c).is_displayed() for c in children)
    for branch, child in enumerate(children):  # what the page shows, against the arrays
        row = _row(driver, child)
        name = model.schema_.features[tree.feature[node]].name
        condition = row.find_element(By.CLASS_NAME, "cond").text
        assert tree.kind[node] == NUMERIC
        m = re.fullmatch(rf"{re.escape(name)} (<=|>) ([^\s:]+):?", condition)
        assert m and m.group(1) == ("<=" if branch == 0 else ">")
        assert float(m.group(2)) == pytest.approx(tree.threshold[node], rel=5.1e-6)
        samples = row.find_element(By.CLASS_NAME, "samples").text
        assert samples == f"{tree.n_node_samples[child]} rows"
    child = children[1]
    _row(driver, child).click()
    shown = {dd.get_attribute("data-field"): dd.text
             for dd in driver.find_elements(By.CSS_SELECTOR, "#details dd")}
    assert shown["node"] == str(child) and shown["samples"] == str(tree.n_node_samples[child])
    counts = [float(part.rsplit(": ", 1)[1]) for part in shown["distribution"].split("; ")]
    np.testing.assert_allclose(counts, tree.value[child])
    _row(driver, node).find_element(By.CLASS_NAME, "toggle").click()  # collapse again
    assert not any(_row(driver, c).is_displayed() for c in children)
    driver.find_element(By.ID, "expand-all").click()
    assert all(_row(driver, n).is_displayed() for n in range(tree.n_nodes))
    shot = tmp_path / "report.png"  # the test artifact
    assert driver.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_script_category_is_inert_in_the_browser(driver, tmp_path):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    model, X, y = fitted("cart-awkward-missing")
    page = tmp_path / "awkward.html"
    page.write_text(report_html(model, X, y), encoding="utf-8")
    driver.get(page.as_uri())
    driver.find_element(By.ID, "expand-all").click()
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018
    assert len(driver.find_elements(By.TAG_NAME, "script")) == 1
    shown = [r.text for r in driver.find_elements(By.CSS_SELECTOR, ".row")]
    assert any(SCRIPT in text for text in shown)
    driver.save_screenshot(str(tmp_path / "awkward.png"))
