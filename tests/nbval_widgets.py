"""nbval leaves widget views out of its comparison: a pytest plugin with no imports from the repository, used by the
repository's ``conftest.py`` and copied beside a chapter run alone in an empty folder
(``tests/chapters/chapter_runs.py``).

Widget views are not part of a chapter's committed outputs: ``tools/render_notebook.py`` drops the ipywidgets
explorers and the tqdm.auto progress bars, because without a kernel they are sliders that move nothing and finished
bars. A fresh run by nbval displays them again, so they are left out of its side of the comparison too; every other
output is still compared with the committed one.
"""

from __future__ import annotations

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def without_widget_views(outputs: list) -> list:
    """The outputs of a cell less those that display a widget."""
    return [out for out in outputs if WIDGET_VIEW not in out.get("data", {})]


def compare_without_widget_views(items: list) -> None:
    """Make every nbval cell item among ``items`` compare its outputs less their widget views."""
    for item in items:
        if not type(item).__module__.startswith("nbval") or not hasattr(item, "compare_outputs"):
            continue
        compare = item.compare_outputs

        def compare_without_widgets(test, ref, skip_compare=None, _compare=compare):
            return _compare(without_widget_views(test), without_widget_views(ref), skip_compare)

        item.compare_outputs = compare_without_widgets


def pytest_collection_modifyitems(items: list) -> None:
    compare_without_widget_views(items)
