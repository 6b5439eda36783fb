"""The build extension _ext/details_sections.py folds what follows a fold rubric (``:::{rubric} label`` with the
class ``fold``) in its section under that label, leaves a section without one as it is, and reports a fold that
opens a section, a label that says nothing of what the fold holds, and an empty fold."""

from __future__ import annotations

from docutils import nodes

from tests.book.fold_checks import load_details_sections

details_sections = load_details_sections()


def _rubric(label: str, *ids: str) -> nodes.rubric:
    return nodes.rubric(text=label, classes=["fold"], ids=list(ids))


def _section(title: str, *children: nodes.Node) -> nodes.section:
    section = nodes.section(ids=[title.lower().replace(" ", "-")])
    section += nodes.title(text=title)
    for child in children:
        section += child
    return section


def test_what_follows_a_fold_rubric_is_folded_under_its_label():
    lead, support, sub = nodes.paragraph(text="The result, 0.42."), nodes.paragraph(text="How."), nodes.section()
    section = _section("Exact moments", lead, _rubric("The derivation of Eq. 12", "moments-derivation"), support, sub)
    assert details_sections.fold_sections(section) == []
    title, shown, part = section.children
    assert isinstance(title, nodes.title) and shown is lead
    assert isinstance(part, details_sections.details_part) and part.children == [support, sub]
    assert part["label"] == "The derivation of Eq. 12" and part["ids"] == ["moments-derivation"]


def test_a_second_rubric_ends_the_first_fold():
    a, b = nodes.paragraph(text="Table."), nodes.paragraph(text="Checks.")
    lead = nodes.paragraph(text="In view.")
    section = _section("Runs", lead, _rubric("The 20-seed table"), a, _rubric("The checks"), b)
    assert details_sections.fold_sections(section) == []
    folds = [c for c in section.children if isinstance(c, details_sections.details_part)]
    assert [f["label"] for f in folds] == ["The 20-seed table", "The checks"]
    assert [f.children for f in folds] == [[a], [b]]


def test_a_section_without_a_fold_rubric_is_left_as_it_is():
    plain = nodes.rubric(text="A plain rubric")  # no class "fold": a rubric as Sphinx draws it
    section = _section("Folding the moments", nodes.paragraph(text="Some text."), plain, nodes.paragraph(text="More."))
    before = list(section.children)
    assert details_sections.fold_sections(section) == []
    assert section.children == before


def test_a_fold_that_opens_its_section_is_reported():
    section = _section("Exact moments", nodes.target(ids=["x"]), _rubric("The derivation"), nodes.paragraph(text="."))
    (problem,) = details_sections.fold_sections(section)
    assert "opens with a fold" in problem and "Exact moments" in problem


def test_a_vague_label_and_an_empty_fold_are_reported():
    section = _section("Runs", nodes.paragraph(text="In view."), _rubric("Show the details"), nodes.paragraph(text="."))
    assert any("say what it holds" in p for p in details_sections.fold_sections(section))
    for label in ("Details", "More", "Show more.", "Code"):
        assert details_sections.vague_label(label), label
    assert not details_sections.vague_label("The 20-seed table")
    empty = _section("Runs", nodes.paragraph(text="In view."), _rubric("The derivation of Eq. 12"))
    assert any("holds nothing" in p for p in details_sections.fold_sections(empty))
