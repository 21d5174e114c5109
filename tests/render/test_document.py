"""Issue 30: the typed document and the block kinds' handlers. Every kind has a handler for
every output made from the document (a kind without one is an error at start-up, not a block
that silently vanishes); a node no kind made is refused, never skipped."""

from __future__ import annotations

import pytest

from deck.blocks import KINDS, NAMED, PLAIN, handler
from deck.blocks.base import DOCUMENT_OUTPUTS, BlockKind, check_handlers, parse_div, render_plain
from deck.errors import Loc
from deck.model.document import Aside, Group, ShownQuiz, Text

HERE = Loc("01-a.md", 3)


def test_every_kind_has_a_handler_for_every_document_output():
    check_handlers((*KINDS, PLAIN), DOCUMENT_OUTPUTS)  # what start-up checks
    for kind in (*KINDS, PLAIN):
        assert set(DOCUMENT_OUTPUTS) <= set(kind.outputs), kind.name


def test_a_kind_without_a_handler_is_an_error_naming_it():
    gap = BlockKind("gap", lambda c: c == "gap", parse_div, render_plain, outputs={})
    with pytest.raises(RuntimeError, match="gap → ipynb"):
        check_handlers((*KINDS, gap), DOCUMENT_OUTPUTS)


def test_nodes_go_to_their_kinds_handler_and_an_unknown_node_is_refused():
    quiz = ShownQuiz(Text(("q",), HERE), (Text(("a",), HERE), Text(("b",), HERE)), 1, None, HERE)
    assert handler("ipynb", quiz) is NAMED["quiz"].outputs["ipynb"]
    notes = Aside("notes", Text(("n",), HERE), HERE)
    assert handler("ipynb", notes) is NAMED["notes"].outputs["ipynb"]
    group = Group("callout", ("callout-tip",), {}, (), HERE)
    assert handler("ipynb", group) is NAMED["callout"].outputs["ipynb"]
    with pytest.raises(TypeError):
        handler("ipynb", Text(("prose is the writer's own",), HERE))  # type: ignore[arg-type]
