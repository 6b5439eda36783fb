"""A Sphinx extension of the book's build: a code cell's figure, shown in two layouts, is served as two image files.

In a notebook a figure is a ``<picture class="grpo-figure">`` with its two 2x PNGs inline (``grpo_nb/plots/
narrow_screens.py``): the layout as drawn, and one restacked for a phone, which the browser picks by the screen's
width. On the hosted page each PNG is written once to ``_images/`` (named by its content's hash, as Sphinx names the
other images) and the picture links to it, so that a page does not carry its figures inline and a phone fetches
only the layout it shows. The picture's text for screen readers is the cell's ``mystnb.image.alt``, as for any other
figure.
"""

from __future__ import annotations

import base64
import hashlib
import posixpath
import re
from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

from grpo_nb.plots.narrow_screens import CLASS

PICTURE = f'class="{CLASS}"'
INLINE_PNG = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")
IMAGE_ALT = re.compile(r'\salt="[^"]*"')


def _alt(node: nodes.Node) -> str:
    """The ``mystnb.image.alt`` of the code cell that holds ``node``, or ''."""
    while node is not None and not (isinstance(node, nodes.Element) and node.get("nb_element") == "cell_code"):
        node = node.parent
    metadata = node.get("cell_metadata", {}) if node is not None else {}
    return metadata.get("mystnb", {}).get("image", {}).get("alt", "")


class ServeFigurePictures(SphinxPostTransform):
    """Write each inline PNG of a figure's ``<picture>`` to ``_images/`` and link to it; set its alt text."""

    default_priority = 300  # after MyST-NB has chosen the HTML of each output (SelectMimeType)
    formats = ("html",)

    def run(self, **kwargs: object) -> None:
        images = Path(self.app.builder.outdir) / "_images"
        prefix = posixpath.relpath("_images", posixpath.dirname(self.env.docname) or ".")

        def serve(match: re.Match) -> str:
            data = base64.b64decode(match.group(1))
            name = f"{hashlib.sha256(data).hexdigest()}.png"
            images.mkdir(parents=True, exist_ok=True)
            if not (images / name).exists():
                (images / name).write_bytes(data)
            return f"{prefix}/{name}"

        for raw in list(self.document.findall(nodes.raw)):
            text = raw.astext()
            if PICTURE not in text:
                continue
            text = INLINE_PNG.sub(serve, text)
            alt = _alt(raw)
            if alt:
                text = IMAGE_ALT.sub(f' alt="{escape(alt)}"', text, count=1)
            raw.replace_self(nodes.raw("", text, format="html", classes=raw.get("classes", [])))


def setup(app: Sphinx) -> dict[str, object]:
    app.add_post_transform(ServeFigurePictures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
