"""The HTML exporter: `dist/<lesson>/` with the deck (`index.html`), its assets, figures and
media, and `values.json`; the figures also go to `figures/<lesson>/`."""

from __future__ import annotations

import json
from pathlib import Path

from deck.errors import DeckError, Diagnostic, Loc
from deck.options import Options
from deck.progress import Progress
from deck.publish.assets import copy_assets, drop_unused_theme_fonts
from deck.publish.carry import carry
from deck.publish.exporter import DECK, Built, Exported, file_digest
from deck.source.contain import project_root

OUT = "outside the project folder: nothing was published"


class HtmlDeck:
    name = "html"
    why_not = ""

    def wanted(self, options: Options) -> bool:
        return True

    def places(self, name: str, options: Options) -> dict[str, Path]:
        return {DECK: options.out / name, "figures": options.figures / name}

    def files(self, built: Built) -> tuple[str, ...]:
        return ("index.html", "values.json")

    def made_from(self, built: Built) -> dict[str, str] | None:
        return None  # as quick to write as to copy

    def digest(self, path: Path) -> str:
        return file_digest(path)

    def export(self, built: Built, todo: list[str], progress: Progress) -> Exported:
        deck, staging, figures = built.deck, built.staging[DECK], built.staging["figures"]
        staging.mkdir(parents=True)
        figures.mkdir(parents=True)
        published = built.options.out / built.lesson.name  # (what an unchanged file is linked from)
        widgets = tuple(kind.script for kind in built.lesson.widgets)
        copy_assets(staging / "assets", widgets, published / "assets")
        (staging / "figures").mkdir()
        for figure in deck.figures:
            carry(figure, staging / "figures" / figure.name, published / "figures" / figure.name)
            carry(
                figure,
                figures / figure.name,
                built.options.figures / built.lesson.name / figure.name,
            )
        folder = project_root(built.lesson.path)  # (a Quarto project's files are the deck's)
        for name, source in deck.media:  # images and stylesheets the slides name
            if folder not in source.resolve().parents:  # (deck.source.contain says where)
                message = f"`{name}` would come from {source}, {OUT}"
                raise DeckError([Diagnostic(Loc(str(built.lesson.path), 1), "media", message)])
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            carry(source, staging / name, published / name)
        (staging / "index.html").write_text(deck.html, "utf-8")
        stage_deck_fonts(staging, built.options.cache, deck.views, progress, deck.html)
        values = json.dumps(deck.values, ensure_ascii=False, indent=1)
        (staging / "values.json").write_text(values + "\n", "utf-8")
        return Exported()


def stage_deck_fonts(
    staging: Path, cache: Path, views: dict[str, str], progress: Progress, page: str
) -> None:
    """The deck's font subsets (deck.publish.fonts) and its theme without unused fonts;
    `page` is the staged `index.html`'s text."""
    from deck.publish.fonts import stage_fonts

    drop_unused_theme_fonts(staging, page)
    fonts = stage_fonts(staging, cache, views, page)
    made = f"{fonts.subset} subset now" if fonts.subset else "all cached"
    progress.log(
        f"  fonts   {len(fonts.faces)} faces for {fonts.characters} characters "
        f"({made}, {fonts.seconds:.1f} s)"
    )
    if fonts.missing:
        progress.log(f"  fonts   not installed, left to the browser: {', '.join(fonts.missing)}")
