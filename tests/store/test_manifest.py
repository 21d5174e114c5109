"""The build manifest's file stats: a file hashed while too recent to trust its stat is hashed
again by the next check, and once that check finds it unchanged and no longer recent, its stat
is kept, so later no-change builds do not hash it again."""

from __future__ import annotations

from pathlib import Path

import pytest

from deck.publish import manifest as manifest_module
from deck.publish.manifest import Hasher, Manifest


def counting_hashes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    hashed: list[Path] = []
    real = manifest_module.content_hash

    def content_hash(path: Path) -> str:
        hashed.append(path)
        return real(path)

    monkeypatch.setattr(manifest_module, "content_hash", content_hash)
    return hashed


def test_a_no_change_check_keeps_the_stats_it_had_to_hash_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = tmp_path / "index.html"
    output.write_text("<p>built</p>", "utf-8")
    place = tmp_path / "lesson.manifest.json"
    first = Hasher()
    digest = first.file(output)  # written a moment ago, as a build's outputs are when recorded
    Manifest(place, {}).save(["inputs"], "outputs", first, {"warnings": []})
    assert Manifest.load(place).data["files"][str(output)][1] == -1  # not trusted yet

    monkeypatch.setattr(manifest_module, "RACY_SECONDS", 0.0)  # later: no longer recent
    hashed = counting_hashes(monkeypatch)
    check = Manifest.load(place)
    hasher = check.hasher()
    assert hasher.file(output) == digest and hashed == [output]  # hashed again: unchanged
    check.refresh(hasher)  # what a no-change build does after its check

    again = Manifest.load(place)
    assert again.data["files"][str(output)][1] == output.stat().st_mtime_ns
    assert again.data["inputs"] == ["inputs"] and again.data["outputs"] == "outputs"
    assert again.hasher().file(output) == digest and hashed == [output]  # not hashed again


def test_an_edit_is_still_seen_after_a_refresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    output = tmp_path / "index.html"
    output.write_text("<p>built</p>", "utf-8")
    place = tmp_path / "lesson.manifest.json"
    monkeypatch.setattr(manifest_module, "RACY_SECONDS", 0.0)
    first = Hasher()
    digest = first.file(output)
    Manifest(place, {}).save(["inputs"], "outputs", first, {"warnings": []})
    check = Manifest.load(place)
    hasher = check.hasher()
    hasher.file(output)
    check.refresh(hasher)
    output.write_text("<p>edited</p>", "utf-8")  # size differs: seen by its stat
    assert Manifest.load(place).hasher().file(output) != digest
