"""A code block as the deck shows it: the deck's code font on its light ground, each token
coloured as Pygments' `default` style colours it on the slides (deck/publish/assets.py ships
that style's stylesheet); a block without a language (printed output) in one ink."""

from __future__ import annotations

from typing import Any

from deck.publish.pptx.layout import CODE_PT, Placed
from deck.publish.pptx.shapes import CodeBlock, Run
from deck.publish.pptx.textrun import CODE_FILL, CODE_INK, emu, rgb, style_run, text_box

STYLE = "default"  # the deck's Pygments style
Token = tuple[str, str, bool, bool]  # text, colour (hex), bold, italic


def highlighted(text: str, lang: str) -> list[list[Token]]:
    """The code's lines, each as its tokens with their colour and weight."""
    lines: list[list[Token]] = [[]]
    if not lang:
        return [[(line, CODE_INK, False, False)] for line in text.split("\n")]
    from pygments.lexers import get_lexer_by_name
    from pygments.styles import get_style_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return highlighted(text, "")
    style = get_style_by_name(STYLE)
    for kind, value in lexer.get_tokens(text):
        found = style.style_for_token(kind)
        color = found["color"] or CODE_INK
        for k, piece in enumerate(value.split("\n")):
            if k:
                lines.append([])
            if piece:
                lines[-1].append((piece, color.upper(), bool(found["bold"]), bool(found["italic"])))
    return lines


def add_code(slide: Any, box: Placed, code: CodeBlock, lang: str) -> None:
    shape = text_box(slide, box.x, box.y, box.width, box.height)
    shape.fill.solid()
    shape.fill.fore_color.rgb = rgb(CODE_FILL)
    frame = shape.text_frame
    frame.margin_left = frame.margin_right = emu(6)
    frame.margin_top = frame.margin_bottom = emu(5)
    for k, tokens in enumerate(highlighted(code.text.replace("\t", "    "), code.lang)):
        paragraph = frame.paragraphs[0] if k == 0 else frame.add_paragraph()
        for text, color, bold, italic in tokens or [("", CODE_INK, False, False)]:
            run = paragraph.add_run()
            run.text = text
            style_run(run, Run(text, bold, italic, code=True), CODE_PT * box.scale, lang, color)
