"""A raw HTML picture in a lesson (`<img src>`, quoted, single-quoted or bare as HTML allows,
in prose or a `{=html}` block; `<video poster>`, `<source src>`) is published with the deck as
`![](file)` is: copied into `media/`, its src rewritten, loaded from `dist/` by Chromium. A
missing file is an error at its line; a file outside the project is refused at its line and
nothing outside is copied."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from catalogue import line_of, write_lesson
from fixture_build import run_cli

pytestmark = pytest.mark.browser


def svg(width: int) -> str:
    """A picture known by its width (its naturalWidth in the page)."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="7">'
        f'<rect width="{width}" height="7" fill="teal"/></svg>'
    )


SECTION = """\
## Pictures

Double <img src="pics/eleven.svg" alt="d">, single <img alt='s' src='pics/twelve.svg'>,
bare <img src=pics/thirteen.svg alt=b>, and a space <img src="pics/four%20teen.svg" alt="q">.

![As Markdown](pics/fifteen.svg)

`<img src="not-a-file.png">` is code: shown as text.

## A raw block

```{=html}
<img src='pics/sixteen.svg' alt="raw block">
<video poster=pics/seventeen.svg controls><source src="clip.webm" type="video/webm"></video>
<img src="https://example.org/web.png" alt="a web picture stays as written">
```
"""
FILES = {
    "lesson.yml": "title: Raw pictures\nlang: en\n",
    "01-a.md": SECTION,
    "pics/eleven.svg": svg(11),
    "pics/twelve.svg": svg(12),
    "pics/thirteen.svg": svg(13),
    "pics/four teen.svg": svg(14),
    "pics/fifteen.svg": svg(15),
    "pics/sixteen.svg": svg(16),
    "pics/seventeen.svg": svg(17),
    "clip.webm": "not really a video",
}
# Every picture in the page once its slides have loaded them: src, width, and posters' widths
PICTURES = """async () => {
  await Promise.all([...document.images].map(i => i.decode().catch(() => null)));
  const posters = await Promise.all([...document.querySelectorAll('video[poster]')].map(v =>
    new Promise(done => { const i = new Image(); i.onload = () => done(i.naturalWidth);
      i.onerror = () => done(0); i.src = v.poster; })));
  return {images: [...document.images].map(i => [i.getAttribute('src'), i.naturalWidth]),
          posters};
}"""


def loaded_pictures(context, url: str) -> tuple[dict, list[str]]:
    """The print view of `url` (every slide's pictures loaded) offline: what it shows, and
    every request that left the page's own files."""
    page = context.new_page()
    outside: list[str] = []
    page.route(
        re.compile(r"^(?!file:|data:).*"),
        lambda route: (outside.append(route.request.url), route.abort()),
    )
    page.goto(url + "?print-pdf")
    page.wait_for_function("document.documentElement.dataset.pdfReady === 'true'")
    shown = page.evaluate(PICTURES)
    page.close()
    return shown, outside


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rawimg")
    write_lesson(root, FILES, "raw")
    ran = run_cli(root, "raw", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    return root


def test_raw_html_pictures_are_published_and_load_from_dist(built: Path, context):
    deck = built / "dist/raw"
    media = sorted(p.relative_to(deck).as_posix() for p in (deck / "media").rglob("*"))
    assert media == [
        "media/clip.webm",
        "media/pics",
        *(f"media/pics/{n}.svg" for n in ("eleven", "fifteen", "four teen", "seventeen")),
        *(f"media/pics/{n}.svg" for n in ("sixteen", "thirteen", "twelve")),
    ]
    page = (deck / "index.html").read_text("utf-8")
    assert "<img alt='s' src='media/pics/twelve.svg'>" in page  # its quotes kept
    assert "<img src=media/pics/thirteen.svg alt=b>" in page
    assert "<img data-src='media/pics/sixteen.svg' alt=\"raw block\">" in page  # (2nd slide)
    assert '<code>&lt;img src="not-a-file.png"&gt;</code>' in page  # code stays code
    shown, outside = loaded_pictures(context, (deck / "index.html").as_uri())
    widths = {src: width for src, width in shown["images"]}
    assert widths.pop("https://example.org/web.png") == 0  # (offline: not fetched)
    assert sorted(widths.values()) == [11, 12, 13, 14, 15, 16], shown
    assert all(src.startswith("media/pics/") for src in widths)
    assert shown["posters"] == [17]
    assert outside == ["https://example.org/web.png"]


def test_a_render_from_the_cache_publishes_them_again(built: Path):
    shutil.rmtree(built / "dist/raw")
    ran = run_cli(built, "raw", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert (built / "dist/raw/media/pics/twelve.svg").read_text() == svg(12)
    assert (built / "dist/raw/media/pics/seventeen.svg").read_text() == svg(17)


def errors_of(ran) -> list[str]:
    return [line for line in ran.stderr.splitlines() if ": error [" in line]


def test_a_missing_raw_picture_is_an_error_at_its_line(tmp_path: Path):
    text = "## One\n\nText.\n\nSee <img src='gone.png' alt=x> here.\n\n```{=html}\n\n"
    text += "<img src=also-gone.png>\n```\n"
    write_lesson(tmp_path, {"lesson.yml": "title: T\nlang: en\n", "01-a.md": text}, "t")
    ran = run_cli(tmp_path, "t", "--no-pdf")
    assert ran.returncode == 1
    folder = "content/t"  # (as the build was given it)
    assert errors_of(ran) == [
        f"content/t/01-a.md:5: error [media] file `gone.png` not found (paths are read from "
        f"{folder})",
        f"content/t/01-a.md:9: error [media] file `also-gone.png` not found (paths are read "
        f"from {folder})",
    ]
    assert not (tmp_path / "dist/t").exists()


@pytest.mark.parametrize("where", ["prose", "raw-block"])
@pytest.mark.parametrize(
    "src", ["../secret.svg", "pics/../../secret.svg", "SECRET", "FILE_URL", "pics/out.svg"]
)
def test_a_raw_picture_outside_the_project_is_refused_at_its_line(tmp_path, src, where):
    """In prose the load refuses it (`deck.source.contain`), in a raw block the render: one
    rule, one message."""
    secret = tmp_path / "content/secret.svg"
    src = {"SECRET": str(secret), "FILE_URL": secret.as_uri()}.get(src, src)
    img = f'<p>a</p>\n<img src="{src}">\n'
    section = "## One\n\nText.\n\n" + (
        "```{=html}\n" + img + "```\n" if where == "raw-block" else img
    )
    files = {"lesson.yml": "title: T\nlang: en\n", "01-a.md": section, "pics/in.svg": svg(3)}
    folder = write_lesson(tmp_path, files, "t")
    secret.write_text(svg(99))
    (folder / "pics/out.svg").symlink_to(secret)
    ran = run_cli(tmp_path, "t", "--no-pdf")
    assert ran.returncode == 1
    line = line_of(section, "<img")
    assert errors_of(ran) == [
        f"content/t/01-a.md:{line}: error [media] file `{src}` is outside the project folder "
        "content/t: a build publishes only files inside it (copy the file into the folder)"
    ]
    assert not (tmp_path / "dist/t").exists()
    written = [p for p in tmp_path.rglob("*") if p.is_file() and "content" not in p.parts]
    assert [p for p in written if p.read_bytes() == secret.read_bytes()] == []
