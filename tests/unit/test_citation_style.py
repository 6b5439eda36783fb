"""One citation style, "Author et al., year": sphinxcontrib-bibtex's author-year style writes "A et al." only for three
or more persons, so an author list of one name and "others" would read "A and others, 2025". Every entry of
``references.bib`` that ends its authors with "others" names at least two before it, and no author is an identifier
(an arXiv number in place of the names)."""

from __future__ import annotations

import pytest
from pybtex.database import parse_string

from tests.book_layout import ROOT

pytestmark = pytest.mark.unit


def not_cited_by_names(bib: str) -> list[str]:
    """The keys whose in-text citation would not read "A et al." or the authors' names: one named author and
    "others", or an author that holds a digit (an identifier)."""
    found = []
    for key, entry in parse_string(bib, "bibtex").entries.items():
        people = entry.persons.get("author", [])
        named = [p for p in people if " ".join(p.last_names) != "others"]
        if len(people) == 2 and len(named) == 1 or any(any(c.isdigit() for c in str(p)) for p in people):
            found.append(key)
    return found


def test_every_entry_is_cited_as_author_et_al_or_by_its_names():
    assert not_cited_by_names((ROOT / "references.bib").read_text()) == []


def test_one_author_and_others_is_caught():
    bib = "@article{a, author = {Zheng, Chujie and others}, title = {T}, year = {2025}}\n"
    bib += "@article{b, author = {Zheng, Chujie and Liu, Shixuan and others}, title = {T}, year = {2025}}\n"
    bib += "@article{c, author = {{arXiv 2509.26114}}, title = {T}, year = {2025}}\n"
    assert not_cited_by_names(bib) == ["a", "c"]
