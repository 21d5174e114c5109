"""Quarto's shortcodes and HTML comments, read before the scanner (issue 17, items 1 and 2).

Each case is a small `.qmd` written here; what the slides hold is checked on the loaded
lesson (the text a shortcode gives, at the line where it was written), and once on a built
deck (the icon, the video and the placeholder image as Chromium would get them).
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from catalogue import line_of, write
from deck.errors import DeckError
from deck.model import Prose, Slide, walk_blocks
from deck.source.qmd import load_qmd
from fixture_build import run_cli


def prose(slide: Slide) -> str:
    return "\n".join(b.text for b in walk_blocks(slide.blocks) if isinstance(b, Prose))


def slides_of(path: Path) -> list[Slide]:
    return [s for section in load_qmd(path).sections for s in section.slides]


def errors_of(path: Path) -> list[str]:
    with pytest.raises(DeckError) as caught:
        load_qmd(path)
    return [str(d) for d in caught.value.diagnostics]


def test_a_multiline_html_comment_is_skipped_with_the_markdown_inside_it(tmp_path: Path):
    qmd = write(
        tmp_path,
        {
            "talk.qmd": """
                ## Kept

                before <!-- an inline comment --> after

                <!--
                ## Not a slide
                ::: {.columns}
                ```{python}
                1/0
                ```
                -->

                ## Also kept {#second}

                text <!-- opens here
                and closes --> tail
                """
        },
    )
    slides = slides_of(qmd)
    assert [s.title for s in slides] == ["Kept", "Also kept"]
    assert "before  after" in prose(slides[0])
    assert "comment" not in prose(slides[0])
    assert "text " in prose(slides[1]) and "tail" in prose(slides[1])
    assert "opens" not in prose(slides[1]) and "closes" not in prose(slides[1])
    # the slide after the comment keeps its own line
    assert slides[1].loc.line == line_of(qmd.read_text(), "## Also kept")


def test_a_comment_in_code_is_code(tmp_path: Path):
    qmd = write(
        tmp_path,
        {
            "talk.qmd": """
                ## Code

                ```html
                <!-- shown as written -->
                ```

                Inline `<!-- also shown -->` here.
                """
        },
    )
    (slide,) = slides_of(qmd)
    codes = [b for b in walk_blocks(slide.blocks) if hasattr(b, "lang")]
    assert codes and "<!-- shown as written -->" in codes[0].text
    assert "`<!-- also shown -->`" in prose(slide)


def test_an_unclosed_comment_is_an_error_where_it_opens(tmp_path: Path):
    qmd = write(tmp_path, {"talk.qmd": "## A\n\ntext\n\n<!-- never closed\n\n## B\n"})
    (error,) = errors_of(qmd)
    assert "talk.qmd:5:" in error
    assert "never closed" in error and "<!--" in error


def test_meta_var_and_env_give_their_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DECK_TEST_ROOM", "Hörsaal 3")
    monkeypatch.delenv("DECK_TEST_UNSET", raising=False)
    qmd = write(
        tmp_path,
        {
            "talk.qmd": """
                ---
                title: Attention
                course:
                  code: ML-501
                ---

                ## {{< meta title >}} in {{< meta course.code >}}

                Version {{< var version >}} by {{< var people.lead >}},
                room {{< env DECK_TEST_ROOM >}}, {{< env DECK_TEST_UNSET fallback >}}.
                Written as {{{< meta title >}}}.
                """,
            "_variables.yml": "version: 2.1\npeople:\n  lead: Ada\n",
        },
    )
    slide = slides_of(qmd)[1]  # (the first is the title slide)
    assert slide.title == "Attention in ML-501"
    text = prose(slide)
    assert "Version 2.1 by Ada," in text
    assert "room Hörsaal 3, fallback." in text
    assert "Written as {{< meta title >}}." in text


def test_a_missing_value_is_an_error_at_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("DECK_TEST_UNSET", raising=False)
    source = "## A\n\n{{< meta nothing >}}\n\n{{< var nope >}}\n\n{{< env DECK_TEST_UNSET >}}\n"
    qmd = write(tmp_path, {"talk.qmd": source})
    errors = errors_of(qmd)
    assert any(":3:" in e and "`nothing` is not in the front matter" in e for e in errors)
    assert any(":5:" in e and "_variables.yml" in e for e in errors)
    assert any(":7:" in e and "DECK_TEST_UNSET" in e for e in errors)


def test_an_unknown_shortcode_is_a_warning_at_its_line_never_silent(tmp_path: Path):
    qmd = write(tmp_path, {"talk.qmd": "## A\n\nsee {{< tweet user=x id=1 >}}\n"})
    lesson = load_qmd(qmd)
    (warning,) = [str(w) for w in lesson.warnings if "shortcode" in str(w)]
    assert "talk.qmd:3:" in warning and "unknown shortcode `tweet`" in warning


def test_include_splices_a_file_and_errors_point_at_its_own_lines(tmp_path: Path):
    (tmp_path / "parts").mkdir()
    qmd = write(
        tmp_path,
        {
            "talk.qmd": """
                ## First

                {{< include parts/_middle.qmd >}}

                ## Last
                """,
            "parts/_middle.qmd": """
                ## From the include

                {{< include _inner.md >}}
                """,
            "parts/_inner.md": """
                Inner text with {{< meta title >}}.

                ```{python}
                #| bogus-option: 1
                x = 1
                ```
                """,
        },
    )
    text = qmd.read_text().replace("## First", "---\ntitle: T\n---\n\n## First")
    qmd.write_text(text)
    warnings = [str(w) for w in load_qmd(qmd).warnings]
    line = line_of((tmp_path / "parts/_inner.md").read_text(), "bogus-option")
    assert any(f"/parts/_inner.md:{line}:" in w for w in warnings), warnings
    slides = slides_of(qmd)
    assert [s.title for s in slides][1:] == ["First", "From the include", "Last"]
    assert "Inner text with T." in prose(slides[2])
    assert slides[2].loc.path == str(tmp_path / "parts/_middle.qmd") and slides[2].loc.line == 1


def test_include_that_leaves_the_project_or_loops_is_an_error(tmp_path: Path):
    outside = tmp_path / "secret.md"
    outside.write_text("## Secret\n")
    qmd = write(
        tmp_path / "talk",
        {
            "talk.qmd": "## A\n\n{{< include ../secret.md >}}\n\n{{< include _loop.qmd >}}\n",
            "_loop.qmd": "again\n\n{{< include _loop.qmd >}}\n",
        },
    )
    errors = errors_of(qmd)
    assert any("talk.qmd:3:" in e and "outside the project" in e for e in errors)
    assert any("_loop.qmd:3:" in e and "includes itself" in e for e in errors)
    assert not any("Secret" in e for e in errors)


def test_markup_shortcodes(tmp_path: Path):
    qmd = write(
        tmp_path,
        {
            "talk.qmd": """
                ## Markup

                {{< fa brands github >}} and {{< fa star title="Star" >}}

                Press {{< kbd Ctrl-C >}}.

                {{< pagebreak >}}

                {{< lipsum 2 >}}

                {{< placeholder 400 200 >}}

                ![]({{< placeholder 300 >}})
                """
        },
    )
    (slide,) = slides_of(qmd)
    text = prose(slide)
    assert '<i class="fab fa-github" aria-hidden="true"></i>' in text
    assert '<i class="fas fa-star" role="img" aria-label="Star"></i>' in text
    assert "<kbd>Ctrl-C</kbd>" in text
    assert "page-break-after: always" in text
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.startswith(("Lorem", "Curabitur"))]
    assert len(paragraphs) == 2
    uris = re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", text)
    assert len(uris) == 2
    svgs = [base64.b64decode(u).decode() for u in uris]
    assert 'width="400" height="200"' in svgs[0] and 'width="300" height="300"' in svgs[1]
    assert "![](data:image/svg+xml;base64," in text  # in a path it gives the image's address


@pytest.mark.parametrize(
    ("src", "player"),
    [
        (
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
            "https://www.youtube.com/embed/dQw4w9WgXcQ",
        ),
        ("https://youtu.be/dQw4w9WgXcQ", "https://www.youtube.com/embed/dQw4w9WgXcQ"),
        ("https://vimeo.com/123456", "https://player.vimeo.com/video/123456"),
    ],
)
def test_web_videos_become_their_players(tmp_path: Path, src: str, player: str):
    qmd = write(tmp_path, {"talk.qmd": f"## V\n\n{{{{< video {src} >}}}}\n"})
    (slide,) = slides_of(qmd)
    assert f'<iframe src="{player}"' in prose(slide)


def test_built_deck_has_the_icon_font_a_local_video_and_the_placeholder(tmp_path: Path):
    (tmp_path / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    write(
        tmp_path,
        {
            "talk.qmd": """
                ## Media

                {{< fa brands github >}} {{< video clip.mp4 width=320 >}}

                {{< placeholder 120 60 >}}
                """
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist" / "talk" / "index.html").read_text()
    assert '<i class="fab fa-github" aria-hidden="true"></i>' in page
    (video,) = re.findall(r"<video\b[^>]*>", page)
    assert 'src="media/clip.mp4"' in video and "controls" in video and 'width="320"' in video
    assert (tmp_path / "dist" / "talk" / "media" / "clip.mp4").read_bytes().startswith(b"\x00")
    assert re.search(r'<img src="data:image/svg\+xml;base64,[^"]+" width="120"', page)
    assert "font-awesome/css/all.css" in page


def test_an_edit_of_an_included_file_or_a_variable_rebuilds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / "parts").mkdir()
    write(
        tmp_path,
        {
            "talk.qmd": "## A\n\n{{< include parts/_a.qmd >}}\n\nroom {{< env DECK_TEST_ROOM >}}\n",
            "parts/_a.qmd": "{{< include _b.md >}}\n",
            "parts/_b.md": "first words\n",
        },
    )
    page = tmp_path / "dist" / "talk" / "index.html"
    monkeypatch.setenv("DECK_TEST_ROOM", "A1")
    assert run_cli(tmp_path, "talk.qmd", "--no-pdf").returncode == 0
    assert "first words" in page.read_text() and "room A1" in page.read_text()
    (tmp_path / "parts/_b.md").write_text("second words\n")  # two includes deep
    assert run_cli(tmp_path, "talk.qmd", "--no-pdf").returncode == 0
    assert "second words" in page.read_text()
    monkeypatch.setenv("DECK_TEST_ROOM", "B2")
    assert run_cli(tmp_path, "talk.qmd", "--no-pdf").returncode == 0
    assert "room B2" in page.read_text()


# ---- fences as Pandoc reads them ------------------------------------------------------------


def test_a_block_left_open_is_closed_at_the_end_of_its_slide_with_a_warning(tmp_path: Path):
    qmd = write(
        tmp_path,
        {
            "talk.qmd": """
                ## One

                ::: {.incremental}
                - a
                - b

                ## Two

                text of two

                ::: {.notes}
                notes never closed
                """
        },
    )
    lesson = load_qmd(qmd)
    slides = [s for section in lesson.sections for s in section.slides]
    assert [s.title for s in slides] == ["One", "Two"]
    assert "text of two" in prose(slides[1])
    warnings = [str(w) for w in lesson.warnings]
    source = qmd.read_text()
    assert any(
        f":{line_of(source, 'incremental')}:" in w and "end of its slide" in w for w in warnings
    )
    assert any(f":{line_of(source, '.notes')}:" in w and "end of the file" in w for w in warnings)


def test_a_closing_fence_glued_to_a_line_closes_the_block(tmp_path: Path):
    qmd = write(
        tmp_path,
        {
            "talk.qmd": """
                ## Glued

                ::: {.callout-note}
                a note that ends here :::

                after the note
                """
        },
    )
    lesson = load_qmd(qmd)
    (slide,) = [s for section in lesson.sections for s in section.slides]
    top = [b for b in slide.blocks if isinstance(b, Prose)]
    assert [p.text for p in top] == ["after the note"]
    assert "a note that ends here" in prose(slide)
    assert not lesson.warnings


def test_content_between_columns_stands_as_a_column(tmp_path: Path):
    qmd = write(
        tmp_path,
        {
            "talk.qmd": """
                ## Cols

                :::: {.columns}
                ::: {.column width="40%"}
                left
                :::
                between
                ::: {.column width="60%"}
                right
                :::
                ::::
                """
        },
    )
    (slide,) = [s for section in load_qmd(qmd).sections for s in section.slides]
    (columns,) = slide.blocks
    assert [c.width for c in columns.columns] == ["40%", None, "60%"]


def test_in_a_lesson_an_inner_block_closed_by_the_outer_fence_is_named(tmp_path: Path):
    from deck.source.scanner import parse_section

    text = "## A\n\n:::: columns\n::: column\nleft\n::::\n\n## B\n"
    _, problems = parse_section(tmp_path / "01-a.md", "01-a.md", text)
    messages = [str(d) for d in problems]
    assert any(
        m.startswith("01-a.md:4:") and "closed by `::::` at line 6" in m for m in messages
    ), messages
    assert any(m.startswith("01-a.md:3:") and "never closed" in m for m in messages), messages


# ---- visibility -------------------------------------------------------------------------------


def test_content_visible_and_hidden_follow_format_and_meta(tmp_path: Path):
    qmd = write(
        tmp_path,
        {
            "talk.qmd": """
                ---
                draft: true
                ---

                ## V

                ::: {.content-visible when-format="revealjs"}
                shown-1
                :::

                ::: {.content-visible when-format="html"}
                shown-2
                :::

                ::: {.content-visible when-format="pdf"}
                left-1
                :::

                ::: {.content-hidden when-format="html"}
                left-2
                :::

                ::: {.content-hidden unless-format="pdf"}
                left-3
                :::

                ::: {.content-visible when-meta="draft"}
                shown-3
                :::

                ::: {.content-visible unless-meta="draft"}
                left-4
                :::

                ::: {.content-hidden}
                left-5
                :::

                ::: {.hidden}
                left-6
                :::

                ::: content-visible
                shown-4
                :::
                """
        },
    )
    slide = slides_of(qmd)[-1]
    text = prose(slide)
    assert [w for w in re.findall(r"(?:shown|left)-\d", text)] == [
        "shown-1",
        "shown-2",
        "shown-3",
        "shown-4",
    ]


def test_left_out_content_still_runs_its_cells_and_hidden_slides_are_dropped(tmp_path: Path):
    write(
        tmp_path,
        {
            "talk.qmd": """
                ## Shown

                ```{python}
                x = 6
                ```

                ## Secret {visibility="hidden"}

                ```{python}
                y = x * 7
                ```

                ::: {.content-visible when-format="pdf"}
                ```{python}
                z = y + 1
                print("never shown", z)
                ```
                :::

                ## Uses

                y is `{python} y`, z is `{python} z`.
                """
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist" / "talk" / "index.html").read_text()
    assert "Secret" not in page and "never shown 43" not in page  # (its code is z's source)
    assert "y is 42, z is 43." in re.sub(r"<[^>]+>", "", page)
    assert len(re.findall(r"<section\b", page)) == 2
