"""Can a reader move around the book? Checks of one built page in headless Chromium (Playwright).

- ``find_dead_navigation``: at a phone's width (390 px) the visible sidebar toggle opens the chapter list and the
  visible contents toggle opens the page's contents; at a laptop's width (1280 px) the chapter list is shown and the
  visible toggle hides it and shows it again. Each toggle is the button a reader sees, clicked as a reader would.
- ``find_extra_search_boxes``: a reader sees one search box (or search button), not two.
- ``console_errors``: what the page writes to the console as an error, and its uncaught exceptions.

``tests/book/test_navigation.py`` runs them on every page of ``_toc.yml`` at both widths, and shows that they fail
when the book's ``_static/nav_toggles.js``, ``_static/default_mode.js`` or ``_static/book.css`` is kept from
loading.
"""

from __future__ import annotations

__all__ = ["MIN_CHAPTER_LINKS", "WIDTHS", "console_errors", "find_dead_navigation", "find_extra_search_boxes"]

WIDTHS = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}
MIN_CHAPTER_LINKS = 10  # the chapter list of _toc.yml has more than that
_SETTLE_MS = 400


def console_errors(page) -> list[str]:
    """Start recording the page's console errors and uncaught exceptions; returns the list they go into."""
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def _visible_button(page, name: str):
    buttons = page.locator(f".{name}:visible")
    return buttons.first if buttons.count() else None


def _links(page, selector: str) -> int:
    return page.locator(f"{selector} a:visible").count()


def _phone(page) -> list[str]:
    defects = []
    button = _visible_button(page, "primary-toggle")
    if button is None:
        return ["phone: no visible button opens the chapter list"]
    button.click()
    page.wait_for_timeout(_SETTLE_MS)
    if _links(page, "dialog#pst-primary-sidebar-modal[open]") < MIN_CHAPTER_LINKS:
        defects.append("phone: the visible sidebar toggle does not open the chapter list")
    page.keyboard.press("Escape")
    page.wait_for_timeout(_SETTLE_MS)
    button = _visible_button(page, "secondary-toggle")
    if button is not None:  # a page without sections has no contents to open
        button.click()
        page.wait_for_timeout(_SETTLE_MS)
        if _links(page, "dialog#pst-secondary-sidebar-modal[open]") < 1:
            defects.append("phone: the visible contents toggle does not open the page's contents")
        page.keyboard.press("Escape")
    return defects


def _laptop(page) -> list[str]:
    shown = lambda: _links(page, "#pst-primary-sidebar") >= MIN_CHAPTER_LINKS  # noqa: E731
    if not shown():
        return ["laptop: the chapter list is not shown"]
    button = _visible_button(page, "primary-toggle")
    if button is None:
        return ["laptop: no visible button hides the chapter list"]
    button.click()
    page.wait_for_timeout(_SETTLE_MS)
    hidden = not shown()
    button.click()
    page.wait_for_timeout(_SETTLE_MS)
    if not (hidden and shown()):
        return ["laptop: the visible sidebar toggle does not hide and show the chapter list"]
    return []


def find_dead_navigation(page, width: str) -> list[str]:
    """The navigation defects of a loaded page at ``width`` ("phone" or "laptop", :data:`WIDTHS`)."""
    return _phone(page) if width == "phone" else _laptop(page)


def find_extra_search_boxes(page) -> list[str]:
    """More than one visible search box or search button (they all open the same search)."""
    count = page.locator(".search-button__button:visible, form.bd-search:visible").count()
    return [] if count == 1 else [f"{count} search boxes or buttons are visible, not one"]
