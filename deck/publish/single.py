"""The single-file exporter (`--single-file`, `--to …,single`): `dist/<lesson>.html`, the
deck with every asset inlined (see `deck.publish.singlefile`), presentable offline when sent
alone."""

from __future__ import annotations

from pathlib import Path

from deck.options import Options
from deck.progress import Progress
from deck.publish.exporter import DECK, Built, Exported, file_digest


class SingleFile:
    name = "single file"
    why_not = "build with --single-file (or `--to …,single`) to make it again"

    def wanted(self, options: Options) -> bool:
        return options.wants("single")

    def places(self, name: str, options: Options) -> dict[str, Path]:
        return {"single": options.out / f"{name}.html"}

    def files(self, built: Built) -> tuple[str, ...]:
        return ()  # (its file is a place of its own)

    def made_from(self, built: Built) -> dict[str, str] | None:
        return None

    def digest(self, path: Path) -> str:
        return file_digest(path)

    def export(self, built: Built, todo: list[str], progress: Progress) -> Exported:
        from deck.publish.singlefile import inline_deck

        page = inline_deck(built.staging[DECK] / "index.html")
        built.staging["single"].write_text(page, "utf-8")
        return Exported()
