"""What the handout PDFs hold, read back with pikepdf: which slides each page draws."""

from __future__ import annotations

from pathlib import Path

import pikepdf


def placed_slides(path: Path) -> list[list[int]]:
    """For each page, the slides.pdf pages drawn on it (1-based), as compose.py names them."""
    with pikepdf.open(path) as pdf:
        return [
            sorted(
                int(str(name)[len("/DeckSlide") :])
                for name in (page.Resources.get("/XObject") or {}).keys()
                if str(name).startswith("/DeckSlide")
            )
            for page in pdf.pages
        ]
