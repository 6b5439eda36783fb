"""The introduction is the book's entry point: it introduces every chapter, its statements about the sliders
name exactly the chapters that have them, and its citation block agrees with CITATION.cff."""

from __future__ import annotations

import re

import yaml

from tests.book_layout import BOOK, ROOT, chapter_of_page

INTRO = (BOOK / "intro.md").read_text()
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


def _linked_chapters(text: str) -> set[str]:
    return set(re.findall(r"\]\(([a-z_]+)\.md\)", text))


def _chapters_with(marker: str) -> set[str]:
    return {md.stem for md in BOOK.glob("*.md") if md.stem != "intro" and marker in md.read_text()}


def _sentence(start: str, end: str) -> str:
    i = INTRO.index(start)
    return INTRO[i : INTRO.index(end, i)]


def test_the_intro_links_every_chapter():
    chapters = set(chapter_of_page().values()) - {"intro"}  # a chapter's first page, which links its sub-pages
    missing = chapters - _linked_chapters(INTRO)
    assert not missing, f"the introduction never links {sorted(missing)}"


def test_each_chapters_first_page_links_every_sub_page():
    for page, chapter in chapter_of_page().items():
        if page != chapter:
            assert f"<{page}>`" in (BOOK / f"{chapter}.md").read_text(), f"{chapter} never links its sub-page {page}"


def test_both_reading_paths_are_there():
    paths = _sentence("## Two ways through the book", "## GRPO in one paragraph")
    assert paths.count("→") >= 8 and "amplification-practice" in paths, paths


def test_the_slider_sentences_name_exactly_the_chapters_that_have_them():
    """Each sentence links one page per chapter that has the sliders: the page that shows them, or the chapter's first
    page when several of its pages do, and says how many chapters that is."""
    browser = _sentence("**Move the sliders**", "run in your browser")
    explorers = _sentence("run in your browser", "not on this site")
    owner = chapter_of_page()
    for text, marker in ((browser, "data-grpo-figure"), (explorers, "_explorer(")):
        linked, pages = _linked_chapters(text), _chapters_with(marker)
        named, actual = {owner[page] for page in linked}, {owner[page] for page in pages}
        assert named == actual, f"the intro names {sorted(named)}; {marker} is in {sorted(actual)}"
        assert all(page in pages or page in actual for page in linked), f"{sorted(linked - pages)} show no {marker}"
        assert len(linked) == len(named), f"two links to one chapter: {sorted(linked)}"
        count = re.search(r"\b(" + "|".join(NUMBER_WORDS) + r") chapters", text, re.IGNORECASE)
        assert count and NUMBER_WORDS[count.group(1).lower()] == len(actual), text


def test_a_wrong_slider_list_would_fail():
    """The check above can fail: a list with one chapter too many is not the set of chapters with sliders."""
    assert _linked_chapters("[intro](trl_grpo.md) [x](variants.md)") != _chapters_with("data-grpo-figure")


def test_citation_file_matches_the_cite_block():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["authors"] and cff["repository-code"].startswith("https://")
    block = _sentence("```bibtex", "\n```\n")
    title = re.search(r"title\s*=\s*\{(.*)\},", block).group(1).replace("{", "").replace("}", "")
    assert title == cff["title"], (title, cff["title"])
    assert cff["repository-code"] in block
    assert any("2503.06639" in str(ref) for ref in cff["references"])
