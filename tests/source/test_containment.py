"""Issue 16, item 4 (paths): a file a `.qmd` or a lesson names for its slides (image, slide
background, logo, stylesheet, raw HTML `src`) that lies outside its project folder is an error
at its line, and nothing outside is copied into `dist/` or inlined in the single file."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, line_of, tree, write, write_lesson
from deck.publish.singlefile import inline_deck
from deck.source.contain import outside
from fixture_build import run_cli

SECRET = "TOP-SECRET-0x5eed\n"
TALK = """\
---
title: 容器
format:
  revealjs:
    footer: 页脚
---

## 一页

正文 `{python} 6 * 7`。

![图](img/ok.png)
"""


def project(root: Path) -> Path:
    """`root/proj/talk.qmd` with an image inside its folder; a secret file beside the folder."""
    (root / "secret.txt").write_text(SECRET)
    (root / "secret.png").write_bytes(b"\x89PNG-" + SECRET.encode())
    (root / "proj/img").mkdir(parents=True)
    (root / "proj/img/ok.png").write_bytes(b"\x89PNG-inside")
    write(root / "proj", {"talk.qmd": TALK})
    return root / "proj/talk.qmd"


def build_ok(root: Path, *args: str) -> None:
    ran = run_cli(root, *args, "--no-pdf", "--single-file")
    assert ran.returncode == 0, ran.stderr


def leaked(root: Path) -> list[str]:
    """Published files holding the secret (as text, or as a data: URL in the single file)."""
    marks = [SECRET.strip(), base64.b64encode(b"\x89PNG-" + SECRET.encode()).decode()[:24]]
    found = []
    for path in (root / "dist").rglob("*"):
        if path.is_file() and any(m.encode() in path.read_bytes() for m in marks):
            found.append(str(path.relative_to(root)))
    return found


ESCAPES = [
    ("    logo: ../secret.png\n", "logo: ../secret.png"),
    ("    logo: /etc/hostname\n", "logo: /etc/hostname"),
    ("    css: ../secret.txt\n", "css: ../secret.txt"),
    ("    css:\n      - img/../../secret.txt\n", "css:"),
]
SLIDE_ESCAPES = [
    ('## 背景 {background-image="../secret.png"}\n', "背景"),
    ('## 背景 {background-image="/etc/hostname"}\n', "背景"),
    ("## B\n\n![泄露](../secret.png)\n", "泄露"),
    ("## B\n\n![泄露](%2E%2E/secret.png)\n", "泄露"),
    ("## B\n\n![泄露](file:///etc/hostname)\n", "泄露"),
    ("## B\n\n![泄露](<../secret.png>)\n", "泄露"),
    ("## B\n\n::: {.callout-note}\n<img alt='x' src='../secret.png'>\n:::\n", "<img"),
    ('## B\n\n<iframe src="../../proj/../secret.txt"></iframe>\n', "iframe"),
    ("## B\n\n![泄露][s]\n\n[s]: ../secret.png\n", "[s]:"),
    ("## B\n\n::: notes\n讲稿 ![泄露](../secret.png)\n:::\n", "讲稿"),
    ("## B\n\n{{< include ../secret.txt >}}\n", "include"),
]


@pytest.mark.parametrize(("front", "needle"), ESCAPES)
@pytest.mark.slow
def test_a_front_matter_path_outside_the_folder_is_an_error_at_its_line(
    tmp_path: Path, front: str, needle: str
):
    talk = project(tmp_path)
    build_ok(tmp_path, "proj/talk.qmd")
    text = TALK.replace("    footer: 页脚\n", f"    footer: 页脚\n{front}")
    talk.write_text(text)
    where = f"proj/talk.qmd:{line_of(text, needle)}"
    assert_failed_cleanly(tmp_path, ["proj/talk.qmd", "--single-file"], where, says="outside")
    assert leaked(tmp_path) == []


@pytest.mark.parametrize(("slide", "needle"), SLIDE_ESCAPES)
def test_a_slide_path_outside_the_folder_is_an_error_at_its_line(
    tmp_path: Path, slide: str, needle: str
):
    talk = project(tmp_path)
    build_ok(tmp_path, "proj/talk.qmd")
    text = TALK + "\n" + slide
    talk.write_text(text)
    where = f"proj/talk.qmd:{line_of(text, needle)}"
    assert_failed_cleanly(tmp_path, ["proj/talk.qmd", "--single-file"], where, says="outside")
    assert leaked(tmp_path) == []


def test_a_symlink_pointing_out_of_the_folder_is_an_error(tmp_path: Path):
    talk = project(tmp_path)
    build_ok(tmp_path, "proj/talk.qmd")
    (tmp_path / "proj/img/link.png").symlink_to(tmp_path / "secret.png")
    text = TALK + "\n## B\n\n![链接](img/link.png)\n"
    talk.write_text(text)
    where = f"proj/talk.qmd:{line_of(text, '链接')}"
    assert_failed_cleanly(tmp_path, ["proj/talk.qmd", "--single-file"], where, says="outside")
    assert leaked(tmp_path) == []


@pytest.mark.slow
def test_a_lesson_image_outside_its_folder_is_an_error_too(tmp_path: Path):
    (tmp_path / "secret.png").write_bytes(b"\x89PNG-" + SECRET.encode())
    write_lesson(tmp_path, {"01-a.md": "## 一页\n\n正文。\n"})
    build_ok(tmp_path, "cat")
    text = "## 一页\n\n正文。\n\n![泄露](../../secret.png)\n"
    (tmp_path / "content/cat/01-a.md").write_text(text)
    where = f"content/cat/01-a.md:{line_of(text, '泄露')}"
    assert_failed_cleanly(tmp_path, ["cat", "--single-file"], where, says="outside")
    assert leaked(tmp_path) == []


@pytest.mark.slow
def test_paths_inside_the_folder_links_and_web_urls_still_build(tmp_path: Path):
    talk = project(tmp_path)
    (tmp_path / "proj/img/inner.png").symlink_to(tmp_path / "proj/img/ok.png")
    (tmp_path / "proj/style.css").write_text("h2 { color: teal; }\n")
    text = TALK.replace("    footer: 页脚\n", "    footer: 页脚\n    logo: ./img/ok.png\n")
    text = text.replace("footer: 页脚\n", "footer: 页脚\n    css: style.css\n", 1)
    text += (
        '\n## B {background-image="img/ok.png"}\n\n![内](img/inner.png)\n\n'
        "[上一级的链接](../secret.txt) 与 ![网](https://example.org/a.png)\n\n"
        '行内代码 `<img src="/etc/hostname">` 只是文字。\n'
    )
    talk.write_text(text)
    build_ok(tmp_path, "proj/talk.qmd")
    published = tree(tmp_path / "dist/talk")
    assert {"media/img/ok.png", "media/img/inner.png", "media/style.css"} <= set(published)
    assert leaked(tmp_path) == []


def test_the_publish_stage_refuses_media_from_outside_even_if_the_check_missed_it(
    tmp_path: Path, monkeypatch
):
    talk = project(tmp_path)
    build_ok(tmp_path, "proj/talk.qmd")
    talk.write_text(TALK + "\n## B\n\n![泄露](../secret.png)\n")
    monkeypatch.setattr("deck.source.qmd.escapes", lambda lesson, locs=None: [])
    assert_failed_cleanly(tmp_path, ["proj/talk.qmd"], "proj:1", says="outside the project")
    assert leaked(tmp_path) == []


def test_the_single_file_inlines_nothing_from_outside_the_deck_folder(tmp_path: Path):
    (tmp_path / "secret.png").write_bytes(b"\x89PNG-" + SECRET.encode())
    deck = tmp_path / "deck"
    (deck / "media").mkdir(parents=True)
    (deck / "media/ok.png").write_bytes(b"\x89PNG-inside")
    (deck / "media/out.png").symlink_to(tmp_path / "secret.png")
    (deck / "index.html").write_text(
        '<img src="media/ok.png"><img src="../secret.png"><img src="media/out.png">'
        f'<img src="{tmp_path}/secret.png"><link rel="stylesheet" href="../secret.png">'
        '<style>a { background: url("../secret.png") }</style>'
    )
    page = inline_deck(deck / "index.html")
    inside = base64.b64encode(b"\x89PNG-inside").decode()
    assert page.count(inside) == 1
    assert base64.b64encode(b"\x89PNG-" + SECRET.encode()).decode() not in page
    assert SECRET.strip() not in page


def test_outside_against_the_resolved_paths(tmp_path: Path):
    folder = tmp_path / "p"
    (folder / "a").mkdir(parents=True)
    (folder / "a/out").symlink_to(tmp_path)
    cases = {
        "a/x.png": False,
        "./a/../x.png": False,
        "https://example.org/x.png": False,
        "#top": False,
        "../x.png": True,
        "a/../../x.png": True,
        "/x.png": True,
        "file:///x.png": True,
        "a/out/x.png": True,
        "%2e%2e/x.png": True,
    }
    for src, expected in cases.items():
        reference = not (folder / src.split("://")[-1]).resolve().is_relative_to(folder)
        if "://" in src and not src.startswith("file"):
            reference = False  # a web URL names no file here
        assert outside(folder, src) is expected, src
        if not src.startswith(("#", "%", "file", "/")):
            assert reference is expected, src
