"""A font file's face numbers are kept in the cache under the file's identity: read once with
fontTools, then from the cache while the file is unchanged, and again when it changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from deck.publish.fonts import Face, located_face
from deck.render.fontconfig import Match

CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def test_face_numbers_come_from_the_cache_while_the_file_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    store = tmp_path / "fonts"
    face = Face("Noto Sans CJK SC", 400)
    found = Match(CJK, 2, ("Noto Sans CJK SC",))
    assert located_face(face, found, store) == (Path(CJK), 2)  # (read with fontTools)
    assert len(list(store.glob("face-*.json"))) == 1

    def unread(*args: object) -> None:
        raise AssertionError("read the font again")

    monkeypatch.setattr("deck.publish.subset.face_number", unread)
    assert located_face(face, found, store) == (Path(CJK), 2)


def test_a_changed_font_file_is_read_again(tmp_path: Path):
    store, font = tmp_path / "fonts", tmp_path / "Some.ttf"
    shutil.copy(SANS, font)
    face = Face("DejaVu Sans", 400)
    assert located_face(face, Match(str(font), 0, ("DejaVu Sans",)), store) == (font, 0)
    shutil.copy("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", font)  # another family
    assert located_face(face, Match(str(font), 0, ("DejaVu Sans",)), store) is None


def test_a_shared_font_store_is_used_when_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from deck.publish.fonts import subset_store

    monkeypatch.delenv("DECK_FONT_CACHE", raising=False)
    assert subset_store(tmp_path / ".cache") == tmp_path / ".cache" / "fonts"
    monkeypatch.setenv("DECK_FONT_CACHE", str(tmp_path / "shared"))
    assert subset_store(tmp_path / ".cache") == tmp_path / "shared"
