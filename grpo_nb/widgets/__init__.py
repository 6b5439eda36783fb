"""ipywidgets explorers; defaults reproduce the paper's figures."""
