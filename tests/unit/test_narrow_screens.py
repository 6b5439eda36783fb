"""A figure's phone layout (``grpo_nb/plots/narrow_screens.py``): one panel per row, as wide as a phone's column,
every panel with its own tick labels, titles wrapped without breaking a formula, the figure as drawn unchanged; and
the ``<picture>`` that holds both layouts as 2x PNGs."""

from __future__ import annotations

import base64
import re
import textwrap

import matplotlib

matplotlib.use("agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

import grpo_nb.plots  # noqa: E402,F401  (the book's style)
from grpo_nb.plots import narrow_screens  # noqa: E402

pytestmark = pytest.mark.unit


def _two_panels():
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.3), sharey=True, layout="constrained")
    for ax in (left, right):
        ax.plot([0, 1], [0, 1], label="a line")
        ax.plot([0, 1], [1, 0], label="another line")
    left.set_ylabel("probability")
    right.set_title("a title long enough that a phone must wrap it, with $p_{\\mathrm{ref}} = 0.1$ whole")
    fig.legend(loc="outside lower center", ncols=4)
    return fig


def _png_size(data: str) -> tuple[int, int]:
    raw = base64.b64decode(data)
    return int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big")


def test_the_phone_layout_stacks_the_panels_and_keeps_the_figure():
    fig = _two_panels()
    phone = narrow_screens.phone_layout(fig)
    try:
        assert fig.get_figwidth() == 6.8 and fig.axes[1].get_subplotspec().colspan.start == 1  # unchanged
        assert phone.get_figwidth() == narrow_screens.PHONE_WIDTH_IN
        rows = [ax.get_subplotspec().rowspan.start for ax in phone.axes]
        cols = [ax.get_subplotspec().colspan.start for ax in phone.axes]
        assert rows == [0, 1] and cols == [0, 0]
        phone.canvas.draw()
        right = phone.axes[1]
        assert any(t.get_visible() and t.get_text() for t in right.get_yticklabels())  # its own tick labels
        assert right.get_ylabel() == "probability"  # the shared axis' label
        title = right.get_title()
        assert "\n" in title and "$p_{\\mathrm{ref}} = 0.1$" in title.replace("\n", " ")
        assert all(legend._ncols <= 2 for legend in phone.legends)
    finally:
        plt.close(fig)
        plt.close(phone)


def test_a_figure_left_as_drawn_would_fail_the_phone():
    """The wide layout shrunk to the phone's width shows its 10-point tick labels below 11 px: the reason for the
    second layout."""
    tick_px = plt.rcParams["xtick.labelsize"] * plt.rcParams["figure.dpi"] / 72
    phone_column = narrow_screens.PHONE_WIDTH_IN * plt.rcParams["figure.dpi"]
    assert tick_px * phone_column / (6.8 * plt.rcParams["figure.dpi"]) < 11 <= tick_px


def test_the_picture_holds_both_layouts_at_twice_their_size():
    open_before = set(plt.get_fignums())
    fig = _two_panels()
    try:
        html = narrow_screens.figure_html(fig)
    finally:
        plt.close(fig)
    assert html.startswith(f'<picture class="{narrow_screens.CLASS}">') and html.endswith("</picture>")
    assert f'media="(max-width: {narrow_screens.PHONE_SCREEN_PX}px)"' in html
    (phone_png, wide_png) = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", html)
    widths = [int(w) for w in re.findall(r'width="(\d+)"', html)]
    for png, width in ((phone_png, widths[0]), (wide_png, widths[1])):
        assert 2 * width <= _png_size(png)[0] <= 2 * width + 1  # a 2x PNG of the size it is shown at
    assert widths[0] <= 345 < widths[1]  # a phone's text column is about 340 px wide
    assert set(plt.get_fignums()) <= open_before  # the phone copy is not left open in pyplot


def test_wrapping_never_breaks_a_formula():
    formula = "$\\beta \\sqrt{V(p_{n-1})}$"
    fig = plt.figure(figsize=(3.4, 2.0))
    try:
        text = fig.text(0, 0, f"a long label with {formula} inside that runs past the width")
        narrow_screens._wrap(text, 1.2, fig.canvas.get_renderer())
        lines = text.get_text().split("\n")
        assert len(lines) > 2 and any(formula in line for line in lines)
        assert not any(
            formula in line for line in textwrap.wrap(" ".join(lines), 14)
        )  # wrapping at any space breaks it
        short = fig.text(0, 0, "short")
        narrow_screens._wrap(short, 3.4, fig.canvas.get_renderer())
        assert short.get_text() == "short"
    finally:
        plt.close(fig)


def test_a_figure_with_closures_is_copied_and_one_that_cannot_be_is_shown_as_drawn():
    """A closure as tick formatter (not picklable) is shared with the copy; a figure holding something that cannot
    be copied at all shows its wide layout for both screens instead of failing its cell."""
    scale = 3
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.0))
    try:
        left.plot([0, 1], [0, 1])
        left.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{scale * v:.0f}"))
        widths = [int(w) for w in re.findall(r'width="(\d+)"', narrow_screens.figure_html(fig))]
        assert widths[0] < widths[1]  # restacked: the phone layout is the narrower
        right.uncopyable = (i for i in range(3))  # a generator cannot be pickled
        html = narrow_screens.figure_html(fig)
        widths = [int(w) for w in re.findall(r'width="(\d+)"', html)]
        phone, wide = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", html)
        assert widths[0] == widths[1] and phone == wide
    finally:
        plt.close(fig)
