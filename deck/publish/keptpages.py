"""The warm layout service's pages (deck.publish.layoutd): kept open between measurements, one
for each page size, since opening a page costs about as much as laying out one slide."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deck.publish.pdf import Overflow, overflows_in, show_print_layout, viewport


class KeptPages:
    """Measures in pages kept open between measurements, one for each page size (the warm
    service's: a new page costs about as much as laying out one slide)."""

    def __init__(self) -> None:
        self.pages: dict[tuple[int, int] | None, Any] = {}

    def __call__(  # the signature of measure_overflow
        self,
        browser,  # noqa: ANN001
        index_html: Path,
        slide_count: int,
        size: tuple[int, int] | None = None,
        only: tuple[int, ...] = (),
    ) -> list[Overflow]:
        page = self.pages.pop(size, None)
        if page is None or page.is_closed():
            page = browser.new_page(viewport=viewport(size))
        try:
            show_print_layout(page, index_html, slide_count, only)
            found = overflows_in(page, only)
        except BaseException:
            page.close()  # (a page a failure left in an unknown state is not kept)
            raise
        self.pages[size] = page
        return found
