"""Every figure in two layouts: as drawn, for a wide screen, and restacked for a phone.

A figure is drawn for the book's text column (``book.mplstyle``: 6.8 inches at 100 dpi, tick labels of 10 points,
13.9 px). Shrunk to a phone's column (about 340 px) its tick labels would be 7 px. So each figure is also drawn for a
narrow screen: ``PHONE_WIDTH_IN`` wide at the same font sizes, its panels one above the other (one per row, in
reading order), long titles and labels wrapped, legends in at most two columns. Shown at its own size there, its
tick labels keep their 13.9 px.

``figure_html`` writes both as one ``<picture>`` of two 2x PNGs: the browser shows the phone layout where the
screen is at most ``PHONE_SCREEN_PX`` wide, the wide one elsewhere (the hosted book, Jupyter, Colab alike).
``show_both_layouts`` makes IPython display every matplotlib figure that way, in place of its PNG alone;
``grpo_nb.plots`` calls it on import.
"""

from __future__ import annotations

import base64
import io
import pickle
import re
import types
from html import escape

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.gridspec import GridSpec
from matplotlib.text import Text

PHONE_WIDTH_IN = 3.25  # with the 0.1-inch margin of a trimmed PNG, about a phone's 340-px column at 100 dpi
PHONE_SCREEN_PX = 720  # up to this screen width the wide layout would shrink its tick labels under 11 px
PANEL_HEIGHT_IN = 2.7  # each panel's height in the phone layout (a colorbar or a long legend adds to it)
LEGEND_INSIDE_MOST = 3  # a legend inside a phone's panel covers its data beyond this many entries…
LEGEND_WIDTH_MOST = 0.5  # … or beyond this share of the phone's width
CATEGORY_LABEL_MOST = 0.3  # a bar chart's category labels are wrapped to this share of the phone's width
LEGEND_DROP = 0.3  # a legend moved under its axes starts this far below them (a fraction of their height)
PIXEL_DENSITY = 2  # PNGs at twice the pixels of the size they are shown at
CLASS = "grpo-figure"

__all__ = ["CLASS", "PHONE_SCREEN_PX", "PHONE_WIDTH_IN", "figure_html", "phone_layout", "show_both_layouts"]


def _shared(obj: object) -> bool:
    """A function that the copy may share with the figure: a plain function or one of numpy's, not a method (a
    method is bound to an object that is itself copied)."""
    if isinstance(obj, (types.FunctionType, np.ufunc)):
        return True
    return isinstance(obj, types.BuiltinFunctionType) and isinstance(
        getattr(obj, "__self__", None), (types.ModuleType, type(None))
    )


class _DetachedCopy(pickle.Pickler):
    """Pickles a figure so that its copy is not registered with pyplot (pyplot would show the copy too, at the end of
    a cell or in ``plt.show()``, and a slider's redraw would pile up copies). Functions (a tick formatter's, a scale's)
    are not copied but shared: the copy is made and used in this process, and a function need not be picklable (a
    closure, or numpy's functions replaced as on another CPU)."""

    def __init__(self, file: io.BytesIO, fig: Figure) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.fig = fig
        self.shared: list[object] = []

    def persistent_id(self, obj: object) -> int | None:
        if _shared(obj):
            self.shared.append(obj)
            return len(self.shared) - 1
        return None

    def reducer_override(self, obj: object) -> object:
        if obj is not self.fig:
            return NotImplemented
        state = obj.__getstate__()
        state.pop("_restore_to_pylab", None)
        return (Figure.__new__, (Figure,), state)


class _SharedLoad(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, shared: list[object]) -> None:
        super().__init__(file)
        self.shared = shared

    def persistent_load(self, pid: int) -> object:
        return self.shared[pid]


def _copy(fig: Figure) -> Figure:
    """A deep copy of ``fig`` that pyplot does not manage, drawn by Agg, sharing ``fig``'s functions."""
    buffer = io.BytesIO()
    pickler = _DetachedCopy(buffer, fig)
    pickler.dump(fig)
    buffer.seek(0)
    copy = _SharedLoad(buffer, pickler.shared).load()
    FigureCanvasAgg(copy)
    return copy


def _panels(fig: Figure) -> list[list[Axes]]:
    """The figure's panels in reading order (by row, then column); axes that share a place (a twin) go together.
    Colorbars and insets are left out: they follow their parent axes."""
    groups: dict[tuple, list[Axes]] = {}
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        if spec is None or hasattr(ax, "_colorbar"):
            continue
        rows, cols = spec.rowspan, spec.colspan
        groups.setdefault((rows.start, cols.start, rows.stop, cols.stop, id(spec.get_gridspec())), []).append(ax)
    return [groups[key] for key in sorted(groups)]


def _wrap(text: Text, width_in: float, renderer) -> None:
    """Break ``text`` into lines at spaces outside ``$…$`` (a formula stays whole) so that no line is longer than
    ``width_in``, measured as drawn (along the text, so a rotated axis label too)."""
    words = re.findall(r"(?:\$[^$]*\$|[^\s$])+", text.get_text())
    if not words or "\n" in text.get_text():
        return
    dpi = text.figure.dpi

    def length(candidate: str) -> float:
        text.set_text(candidate)
        box = text.get_window_extent(renderer)
        return max(box.width, box.height) / dpi

    lines, line = [], ""
    for word in words:
        trial = f"{line} {word}".strip()
        if line and length(trial) > width_in:
            lines.append(line)
            line = word
        else:
            line = trial
    text.set_text("\n".join([*lines, line]))


def _columns(fig: Figure, legend) -> int:
    """2 where two columns of ``legend``'s entries (text and about 0.7 inch of handle and spacing) fit
    ``PHONE_WIDTH_IN``, else 1."""
    renderer = fig.canvas.get_renderer()
    widest = max((t.get_window_extent(renderer).width / fig.dpi for t in legend.get_texts()), default=0.0)
    return 2 if 2 * (widest + 0.7) <= PHONE_WIDTH_IN else 1


def _redo_legend(owner: Axes | Figure, legend, most: int = 2, **where: object) -> int:
    """Draw ``legend`` anew on ``owner`` at ``where``, with its entries, font size, title and frame, in as many
    columns as the phone's width holds (at most ``most``); return its number of rows."""
    fig = owner if isinstance(owner, Figure) else owner.figure
    handles, labels = legend.legend_handles, []
    for text in legend.get_texts():  # no entry wider than the phone, less its handle
        _wrap(text, PHONE_WIDTH_IN - 0.8, fig.canvas.get_renderer())
        labels.append(text.get_text())
    ncols = min(most, _columns(fig, legend))
    size = legend.get_texts()[0].get_fontsize() if labels else None
    title = legend.get_title().get_text() or None
    frame = legend.get_frame_on()
    legend.remove()
    owner.legend(handles, labels, ncols=ncols, fontsize=size, title=title, frameon=frame, **where)
    return -(-len(labels) // ncols)


def _wrap_category_labels(ax: Axes, renderer) -> float:
    """Break the tick labels of a category axis (labels in words, as a bar chart's) that are wider than
    ``CATEGORY_LABEL_MOST`` of the phone's width, so that the bars keep their room. Returns the height in inches
    that the axis' labels then need on a vertical axis (0 where it has none in words)."""
    needed = 0.0
    for axis in (ax.xaxis, ax.yaxis):
        ticks, labels = axis.get_ticklocs(), [t.get_text() for t in axis.get_ticklabels()]
        if not any(re.search(r"[A-Za-z]{2}", re.sub(r"\$[^$]*\$", "", label)) for label in labels):
            continue
        probe = ax.figure.text(0, 0, "", fontsize=axis.get_ticklabels()[0].get_fontsize())
        wrapped = []
        for label in labels:
            probe.set_text(label)
            _wrap(probe, CATEGORY_LABEL_MOST * PHONE_WIDTH_IN, renderer)
            wrapped.append(probe.get_text())
        probe.remove()
        axis.set_ticks(ticks, labels=wrapped)
        if axis is ax.yaxis:
            lines = max(label.count("\n") + 1 for label in wrapped)
            needed = len(labels) * lines * 1.3 * axis.get_ticklabels()[0].get_fontsize() / 72 + 0.8
    return needed


def _crowds_its_axes(legend, renderer) -> bool:
    """Whether an axes' legend (one inside them) would cover much of a phone's panel: more than
    ``LEGEND_INSIDE_MOST`` entries, or wider than ``LEGEND_WIDTH_MOST`` of the phone's width."""
    width = legend.get_window_extent(renderer).width / legend.figure.dpi
    return len(legend.get_texts()) > LEGEND_INSIDE_MOST or width > LEGEND_WIDTH_MOST * PHONE_WIDTH_IN


def phone_layout(fig: Figure) -> Figure:
    """A copy of ``fig`` laid out for a phone: ``PHONE_WIDTH_IN`` wide, one panel per row with its own tick labels,
    titles, axis labels and a bar chart's category labels wrapped, a legend that would crowd its panel
    (``_crowds_its_axes``) or one beside its axes moved under them, a figure's legend under the panels, each in at most
    two columns. ``fig`` itself is not changed."""
    copy = _copy(fig)
    renderer = copy.canvas.get_renderer()
    for ax in list(copy.axes):  # a hidden panel (a place kept empty) goes; a panel that only holds a legend too
        legend = ax.get_legend()
        if not ax.get_visible():
            ax.remove()
        elif legend is not None and not ax.axison and ax.get_subplotspec() is not None:
            copy.legend(legend.legend_handles, [t.get_text() for t in legend.get_texts()], loc="outside lower center")
            ax.remove()
    panels = _panels(copy)
    heights = [max(PANEL_HEIGHT_IN, *(_wrap_category_labels(ax, renderer) for ax in group)) for group in panels]
    copy.set_size_inches(PHONE_WIDTH_IN, sum(heights) or PANEL_HEIGHT_IN)
    if len(panels) > 1:
        grid = GridSpec(len(panels), 1, figure=copy, height_ratios=heights)
        for row, group in enumerate(panels):
            for ax in group:
                ax.set_subplotspec(grid[row, 0])
                ax.xaxis.set_tick_params(labelbottom=ax.xaxis.get_label_position() == "bottom")
                if ax.yaxis.get_label_position() == "left":
                    ax.yaxis.set_tick_params(labelleft=True)
                    if not ax.get_ylabel():  # a shared y axis labelled only in the first column
                        shared = ax.get_shared_y_axes().get_siblings(ax)
                        ax.set_ylabel(next((a.get_ylabel() for a in shared if a.get_ylabel()), ""))
    extra = 0.0
    for ax in copy.axes:
        _wrap(ax.title, PHONE_WIDTH_IN * 0.85, renderer)
        _wrap(ax.xaxis.label, PHONE_WIDTH_IN * 0.8, renderer)
        _wrap(ax.yaxis.label, PANEL_HEIGHT_IN * 0.85, renderer)
        legend = ax.get_legend()
        if legend is None:
            continue
        anchor = legend.get_bbox_to_anchor().transformed(ax.transAxes.inverted())
        beside = anchor.x0 > 1.0 or anchor.x1 < 0.0  # drawn beside the axes, not over them
        if (beside or _crowds_its_axes(legend, renderer)) and ax.axison:
            rows = _redo_legend(ax, legend, loc="upper center", bbox_to_anchor=(0.5, -LEGEND_DROP))
            extra += 0.22 * rows + 0.3
        elif legend._ncols > 1:
            _redo_legend(ax, legend, most=legend._ncols, loc=legend._loc, bbox_to_anchor=legend.get_bbox_to_anchor())
    for legend in list(copy.legends):
        extra += 0.22 * _redo_legend(copy, legend, loc="outside lower center")
    if copy._suptitle is not None:
        _wrap(copy._suptitle, PHONE_WIDTH_IN * 0.95, renderer)
        extra += 0.3
    height = sum(heights) if len(panels) > 1 else max(min(fig.get_figheight(), 3.0), *heights)
    copy.set_size_inches(PHONE_WIDTH_IN, height + extra)
    for _ in range(3):  # what sticks out (a colorbar's label) is taken from the panels' width, a fifth at most
        copy.draw_without_rendering()
        over = copy.get_tightbbox().width - PHONE_WIDTH_IN
        if over <= 0.02 or copy.get_figwidth() - over < 0.8 * PHONE_WIDTH_IN:
            break
        copy.set_size_inches(copy.get_figwidth() - over, copy.get_figheight())
    return copy


def _png(fig: Figure) -> tuple[str, int, int]:
    """``fig`` as a PNG of ``PIXEL_DENSITY`` times its pixels, trimmed to what it draws as Jupyter shows a figure
    (base64; its size in CSS px)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=PIXEL_DENSITY * fig.dpi, bbox_inches="tight")
    data = buffer.getvalue()
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return base64.b64encode(data).decode("ascii"), width // PIXEL_DENSITY, height // PIXEL_DENSITY


def figure_html(fig: Figure) -> str:
    """``fig`` as one ``<picture>``: its phone layout on screens at most ``PHONE_SCREEN_PX`` wide, as drawn elsewhere.
    Each image carries the size it is meant to be shown at (``width``, ``height``: half its pixels); its alt text
    names the figure's titles."""
    wide, wide_w, wide_h = _png(fig)
    try:
        phone, phone_w, phone_h = _png(phone_layout(fig))
    except (pickle.PicklingError, TypeError, AttributeError):  # a figure that cannot be copied shows as drawn; the
        phone, phone_w, phone_h = wide, wide_w, wide_h  # book's phone checks would find it too wide for a phone
    titles = [t for t in (fig._suptitle and fig._suptitle.get_text(), *(ax.get_title() for ax in fig.axes)) if t]
    alt = escape("A figure: " + "; ".join(titles) if titles else "A figure")  # the book sets the cell's alt text
    return (
        f'<picture class="{CLASS}">'
        f'<source media="(max-width: {PHONE_SCREEN_PX}px)" width="{phone_w}" height="{phone_h}" '
        f'srcset="data:image/png;base64,{phone}">'
        f'<img width="{wide_w}" height="{wide_h}" style="max-width: 100%; height: auto" alt="{alt}" '
        f'src="data:image/png;base64,{wide}"></picture>'
    )


def _display(fig: Figure) -> bool:
    """IPython's display of ``fig``: ``figure_html`` and the figure's text, in place of its PNG alone."""
    from IPython.display import publish_display_data

    publish_display_data({"text/html": figure_html(fig), "text/plain": repr(fig)})
    return True


def show_both_layouts() -> None:
    """Make IPython (a notebook's kernel) display every matplotlib figure as ``figure_html``, the wide and the phone
    layout in one ``<picture>``, with the figure's text. Outside IPython this does nothing."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency of the notebooks only
        return
    shell = get_ipython()
    if shell is None:
        return
    shell.display_formatter.ipython_display_formatter.for_type(Figure, _display)
