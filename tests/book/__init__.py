"""The book build and what a reader sees of it in headless Chromium (slow; marker ``book``)."""
