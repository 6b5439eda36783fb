"""The chapters: each chapter's analyses, its .md/.ipynb pair and its style (marker ``chapters``, as nbval over
book/*.ipynb)."""
