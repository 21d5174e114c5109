"""MkDocs hooks: the reference pages are written from the code at each build
(`deck.reference.reference`), so they never go stale."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deck.reference import reference  # noqa: E402


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    return reference(markdown, page.file.src_uri)
