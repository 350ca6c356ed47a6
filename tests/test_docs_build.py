"""The documentation site builds, warning-free, and reads in a browser.

One Sphinx build (``-W``: every warning an error) into a temporary folder, shared by the tests of this
module (built once per run, under a lock, whichever test worker comes first).  The gallery's examples are rendered without
running them here: tests/test_gallery.py runs each one.  Then:

* every public name has its API page, and each estimator's page shows its registry capabilities;
* every page of the user guide, the mathematics and the migration tables is built and reachable from
  the index;
* headless Chromium (Debian's package; ``make test`` installs it with scripts/install_chromium.sh)
  opens the index and one API page from disk: the DOM after MathJax has run holds the page's title and
  typeset formulas (MathJax's ``mjx-container`` elements, bundled, no network), and a screenshot of
  each is written and is not blank.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import linclass
from linclass import registry

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

pytestmark = pytest.mark.slow


def build_site(tmp_path_factory) -> Path:
    """The built site, once per run: built under a lock in the run's common temporary folder, so a
    second caller (another test worker) waits and reads it (or its failure)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # this run's folder, above each worker's own
    root = base / "docs-site"
    root.mkdir(exist_ok=True)
    failed = root / "failed.txt"
    with open(root / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "html" / "index.html").exists() and not failed.exists():
            env = dict(os.environ, MPLBACKEND="Agg")
            proc = subprocess.run(
                [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                 "-D", "plot_gallery=0", "-d", str(root / ".doctrees"), str(DOCS), str(root / "html")],
                capture_output=True, text=True, env=env, timeout=900)
            if proc.returncode != 0:
                failed.write_text(f"sphinx-build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}")
    assert not failed.exists(), failed.read_text()
    return root / "html"


def public_names() -> list[str]:
    names = [n for n in linclass.__all__ if n != "__version__"]
    names += [f"plot.{n}" for n in linclass.plot.__all__]
    return names


def check_every_public_name_has_a_reference_page(site):
    generated = site / "api" / "generated"
    pages = {p.stem for p in generated.glob("*.html")}
    missing = [n for n in public_names() if f"linclass.{n}" not in pages]
    assert not missing, f"no API page for {missing}"


def check_estimator_pages_show_their_capabilities(site):
    for entry in registry.ENTRIES:
        page = site / "api" / "generated" / f"linclass.{entry.name}.html"
        text = page.read_text(encoding="utf-8")
        assert "Capabilities" in text, entry.name
        for cap in entry.capabilities:
            assert f">{cap}<" in text, (entry.name, cap)


def check_every_written_page_is_built_and_linked(site):
    for section in ("guide", "math", "migration"):
        check_section(site, section)


def check_section(site, section):
    sources = sorted((DOCS / section).glob("*.md"))
    assert len(sources) >= 2, f"docs/{section} has no pages"
    index = (site / section / "index.html").read_text(encoding="utf-8")
    for source in sources:
        built = site / section / f"{source.stem}.html"
        assert built.exists(), built
        if source.stem != "index":
            assert f'href="{source.stem}.html' in index, f"{section}/index does not link {source.stem}"


def check_site_is_offline(site):
    """MathJax is served from the site itself; no page loads a script from the network."""
    assert (site / "_static" / "mathjax" / "tex-chtml.js").exists()
    for page in [site / "index.html", site / "math" / "logistic.html"]:
        scripts = re.findall(r'<script[^>]+src="([^"]+)"', page.read_text(encoding="utf-8"))
        assert scripts and not [s for s in scripts if s.startswith(("http:", "https:", "//"))], scripts


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("headless Chromium is not installed (scripts/install_chromium.sh installs it)")
    return path


def browse(page: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
           "--virtual-time-budget=10000", *args, page.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


#: the pages opened in the browser, with the title each must show
BROWSED = [("index.html", "linclass"),
           ("api/generated/linclass.LogisticRegression.html", "LogisticRegression")]


def check_page_renders_title_and_formulas_in_a_browser(site, tmp_path, page, title):
    path = site / page
    dom = browse(path, tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", dom.stdout, re.S)
    assert h1 is not None and title in re.sub(r"<[^>]+>", "", h1.group(1))
    assert "<mjx-container" in dom.stdout, "MathJax typeset no formula"
    assert "<mjx-merror" not in dom.stdout, "MathJax could not typeset a formula"

    shot = site.parent / "screenshots" / (path.stem + ".png")
    shot.parent.mkdir(exist_ok=True)
    proc = browse(path, tmp_path, f"--screenshot={shot}", "--window-size=1280,1600")
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    import matplotlib.image as mpimg

    pixels = mpimg.imread(shot)
    assert pixels.shape[:2] == (1600, 1280)
    assert np.std(pixels[..., :3]) > 0.05, "the screenshot is blank"


CHECKS = [check_every_public_name_has_a_reference_page, check_estimator_pages_show_their_capabilities,
          check_every_written_page_is_built_and_linked, check_site_is_offline]


def test_the_site_builds_and_reads(tmp_path_factory, tmp_path):
    """One test, so that one worker builds the site and no other waits for it; each check's failure
    is reported by name."""
    site = build_site(tmp_path_factory)
    failures = []
    for check in CHECKS:
        try:
            check(site)
        except AssertionError as error:
            failures.append(f"{check.__name__}: {error}")
    assert not failures, "\n".join(failures)
    chromium()  # skips here, after the checks above, when no browser is installed
    for page, title in BROWSED:
        check_page_renders_title_and_formulas_in_a_browser(site, tmp_path, page, title)
