"""`::: quiz`: a question, `- [ ]` / `- [x]` choices (or `answer=` computed by code), and an
optional `::: explain`; the rendered quiz records its answer and the line that computed it."""

from __future__ import annotations

import hashlib
import random
import re

from deck.blocks.base import (
    BlockKind,
    Handler,
    NotebookWriter,
    Opening,
    ParseContext,
    ResolveContext,
    SlidesWriter,
    named,
)
from deck.blocks.context import RenderContext
from deck.blocks.provenance import VALUE, Bindings
from deck.errors import Diagnostic, Loc
from deck.model import Choice, Quiz, QuizRecord, Section, walk_blocks
from deck.model.document import QuizOrder, ShownQuiz, Text
from deck.strings import strings

CHOICE = re.compile(r"^\s*[-*]\s+\[( |x|X)\]\s+(.*)$")
DIV_OPEN = re.compile(r"^(:{3,})\s*(\S.*?)\s*$")
DIV_CLOSE = re.compile(r"^:{3,}\s*$")
# a line meant as a choice but not written as one: `- []`, `- [ x]`, `-[ ]`, `- [ ]text`
NEAR_CHOICE = re.compile(r"^\s*[-*+]\s*\[([ xX]{0,3})\]\s*(.*)$")


def parse(p: ParseContext, opening: Opening) -> Quiz | None:
    start, attrs = opening.start, opening.attrs
    question: list[str] = []
    choices: list[tuple[int, list[str], bool]] = []
    explanation = ""
    while p.pos < len(p.lines):
        i, line = p.pos, p.lines[p.pos]
        if DIV_CLOSE.match(line):
            p.pos += 1
            break
        m = DIV_OPEN.match(line)
        if m and m.group(2) in ("explain", "{.explain}"):
            p.pos += 1
            blocks, closed = p.body()
            if not closed:
                p.error(i, "parse", "`::: explain` is never closed by `:::`")
                return None
            explanation = p.block_text(blocks, start)
            continue
        c = CHOICE.match(line)
        if c:
            choices.append((i, [p.inline(c.group(2), i)], c.group(1) != " "))
        elif near := NEAR_CHOICE.match(line):
            # reported, and read as the choice it was meant to be (no errors follow from it)
            hint = (
                "write `- [ ]` (a space between the brackets) for a choice"
                if not near.group(1)
                else "write a choice as `- [ ] text` (`- [x] text` for the right one)"
            )
            p.error(i, "quiz", hint)
            text = p.inline(near.group(2), i)
            choices.append((i, [text], "x" in near.group(1).lower()))
        elif choices and line.startswith((" ", "\t")) and line.strip():
            if i != choices[-1][0] + len(choices[-1][1]):
                p.error(i, "quiz", "a choice goes on in the next line, not after a blank")
            choices[-1][1].append(p.inline(line.strip(), i))
        elif choices and line.strip():
            # A line that cannot belong to the quiz: its closing `:::` was forgotten. Said
            # once, at the quiz, and the lines from here on are read as the file's own.
            m = DIV_OPEN.match(line)
            only = "; only `::: explain` may follow the choices" if m else ""
            missing = f"`:::` missing before line {i + 1}{only}"
            opened = f"`::: quiz` opened at {p.loc(start)}"
            p.error(start, "parse", f"{opened} is not closed ({missing})")
            p.pos = i
            return None
        elif not choices:
            question.append(p.inline(line, i))
        p.pos += 1
    else:
        p.error(start, "parse", "`::: quiz` is never closed by `:::`")
        return None
    loc = p.loc(start)
    answer = p.add_inline(attrs["answer"], loc) if "answer" in attrs else None
    marked = sum(1 for _, _, correct in choices if correct)
    if len(choices) < 2:
        p.error(start, "quiz", "a quiz needs at least two `- [ ]` choices")
        return None
    if answer is None and marked != 1:
        p.error(start, "quiz", f"mark exactly one choice `[x]` (found {marked})")
        return None
    if answer is not None and marked:
        p.error(start, "quiz", "give the answer either by `[x]` or by answer=, not both")
        return None
    # The question's text starts with the `::: quiz` line itself (left empty), so that its
    # line k is the file's line `loc.line + k`, as for every text with a Loc.
    return Quiz(
        question="\n".join(["", *question]).rstrip(),
        choices=tuple(Choice("\n".join(t), ok, p.loc(i)) for i, t, ok in choices),
        explanation=explanation,
        answer=answer,
        loc=loc,
        label=attrs.get("id"),
    )


def render(r: RenderContext, quiz: ShownQuiz, notes: list[str]) -> str:
    """The quiz as resolved: its choices in the order shown, the answer and where it is
    computed recorded. (Choices render in the order written, so that the values record reads
    as the file does.)"""
    shown: dict[int, str] = {}  # position shown → its HTML
    for k in sorted(range(len(quiz.order)), key=lambda k: quiz.order[k]):
        shown[k] = r.text(quiz.choices[k], inline=True, wrap=False)
    choices = [shown[k] for k in range(len(quiz.choices))]
    texts = [r.plain(c) for c in choices]
    question = r.text(quiz.question)
    explanation = r.text(quiz.explanation) if quiz.explanation is not None else ""
    source = str(quiz.source or quiz.loc)
    r.records.quizzes.append(
        QuizRecord(
            question=r.plain(question),
            choices=texts,
            answer=quiz.answer,
            answer_text=texts[quiz.answer],
            explanation=r.plain(explanation),
            loc=str(quiz.loc),
            source=source,
            slide=r.number,
        )
    )
    return r.template("quiz.html.j2").render(
        question=question,
        choices=choices,
        correct=quiz.answer,
        explanation=explanation,
        source=source,
    )


def shown_order(r: ResolveContext, quiz: Quiz, choices: list[Text]) -> QuizOrder | None:
    """Where the answer is among the choices as the slide quotes them (`- [x]`, or the
    `answer=` value), and the order they are shown in (`quiz: {shuffle: true}`); None, with an
    error at the quiz, when the answer is not among them."""
    assert r.plain is not None
    texts = [r.plain(c) for c in choices]
    if quiz.answer is not None:
        answer_text = r.inline_value(quiz.answer.expr) or ""
        matches = [k for k, t in enumerate(texts) if t == answer_text.strip()]
        if not matches:
            message = f"answer `{answer_text}` is not among the choices {texts}"
            r.diagnostics.append(Diagnostic(quiz.loc, "quiz", message))
            return None
        correct = matches[0]
    else:
        correct = next(k for k, c in enumerate(quiz.choices) if c.correct)
    for k, t in enumerate(texts):
        if t in texts[:k]:
            r.diagnostics.append(
                Diagnostic(quiz.choices[k].loc, "quiz", f"two choices both read `{t}`")
            )
    source = str(answer_source(r.section, quiz, correct, r.bindings))
    settings = r.section.settings
    if settings.shuffle_quizzes:
        starts = [q.loc for q in quizzes_of(r.section)]
        slots = dict(zip(starts, settings.answer_slots, strict=False))
        slot = slots.get(quiz.loc, correct) % len(choices)
        order = shuffled_order(settings.seed, r.section.path.name, quiz, correct, slot)
        correct = order.index(correct)
    else:
        order = list(range(len(choices)))
    return QuizOrder(str(quiz.loc), tuple(order), correct, source)


def shuffled_order(seed: int, file: str, quiz: Quiz, correct: int, slot: int) -> list[int]:
    """The order a shuffled quiz shows its choices in (indices into the order written): the
    answer (`correct`) at `slot`, the other choices in an order drawn from the lesson's seed and
    the quiz's identity (its file and `#id`, else its question as written), never its position,
    so an edit elsewhere does not reorder them."""
    others = [k for k in range(len(quiz.choices)) if k != correct]
    _random(seed, file, quiz).shuffle(others)
    return [*others[:slot], correct, *others[slot:]]


def _random(seed: int, file: str, quiz: Quiz) -> random.Random:
    identity = quiz.label if quiz.label is not None else quiz.question.strip()
    digest = hashlib.sha256(f"{seed}\0{file}\0{identity}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def quizzes_of(section: Section) -> list[Quiz]:
    """The section's quizzes, in the order they appear."""
    return [b for s in section.slides for b in walk_blocks(s.blocks) if isinstance(b, Quiz)]


def plan_answer_slots(sections: list[Section], seed: int) -> list[tuple[int, ...]]:
    """For a shuffled lesson: where each quiz shows its answer, one tuple per section. Quizzes
    are taken in deck order, each given the position that has held fewest answers so far (ties
    drawn from the seed and the quiz's identity), so that no position holds more than its share:
    students learn the reasoning, not the letter. Adding a quiz moves only the ones after it."""
    counts: dict[int, int] = {}
    plan = []
    for section in sections:
        slots = []
        for quiz in quizzes_of(section):
            positions = list(range(len(quiz.choices)))
            _random(seed, section.path.name, quiz).shuffle(positions)
            slot = min(positions, key=lambda k: counts.get(k, 0))
            counts[slot] = counts.get(slot, 0) + 1
            slots.append(slot)
        plan.append(tuple(slots))
    return plan


def answer_source(
    section: Section, quiz: Quiz, correct: int, bindings: Bindings | None = None
) -> Loc:
    """Where a quiz's answer is computed: the last cell before the quiz that assigns a name
    the answer's expression uses (the `answer=` expression, or the inline values of the right
    choice); the quiz itself when no cell does."""
    if quiz.answer is not None:
        exprs = [quiz.answer.expr]
    else:
        indices = [int(m) for m in VALUE.findall(quiz.choices[correct].text)]
        exprs = [section.inlines[k].expr for k in indices]
    found = (bindings or Bindings(section)).producers(exprs, before=quiz.loc.line)
    return Loc(found[-1].cell.loc.path, found[-1].line) if found else quiz.loc


def resolve(r: ResolveContext, quiz: Quiz) -> ShownQuiz | None:
    """The quiz as the slides show it: its choices in their order there, the answer's place
    and the line computing it (as its render recorded them, else found now)."""
    written = [r.text(c.text, c.loc) for c in quiz.choices]
    shown = r.orders.get(str(quiz.loc)) if r.orders is not None else None
    if shown is None:
        shown = shown_order(r, quiz, written)
        if shown is None:
            return None
        r.made.append(shown)
    choices = tuple(written[k] for k in shown.order)
    explanation = r.text(quiz.explanation, quiz.loc) if quiz.explanation else None
    path, _, line = shown.source.rpartition(":")
    source = Loc(path, int(line)) if path else None
    question = r.text(quiz.question, quiz.loc)
    return ShownQuiz(question, choices, shown.answer, explanation, quiz.loc, shown.order, source)


LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def notebook(w: NotebookWriter, quiz: ShownQuiz, exercise: bool) -> None:
    """The question, its choices lettered as on the slides; the solutions add the answer."""
    w.prose(quiz.question)
    w.markdown(
        "\n".join(f"- {LETTERS[k]}. {w.text(c).strip()}" for k, c in enumerate(quiz.choices))
    )
    if w.audience == "solutions":
        right = w.text(quiz.choices[quiz.answer]).strip()
        label = strings(w.lang, "answer")["label"]
        w.markdown(f"**{label}: {LETTERS[quiz.answer]}. {right}**")
        if quiz.explanation is not None:
            w.prose(quiz.explanation)


def slide(w: SlidesWriter, quiz: ShownQuiz, exercise: bool) -> None:
    """The question and its choices lettered on the slide; the answer and its explanation in
    the notes pane (the lecturer's), as the answer key gives them."""
    w.prose(quiz.question)
    w.lettered(quiz.choices)
    right = w.plain(quiz.choices[quiz.answer])
    w.note(f"{strings(w.lang, 'answer')['label']}: {LETTERS[quiz.answer]}. {right}", key=True)
    if quiz.explanation is not None:
        w.note(quiz.explanation, key=True)


OUTPUTS: dict[str, Handler] = {"ipynb": notebook, "pptx": slide}
DOC = """`::: quiz` or `::: {.quiz answer="expr"}`: a question, then one choice a line
(`- [ ] text`, the right one `- [x] text`), then optionally `::: explain` … `:::`, and the
quiz's own `:::`.

A poll in the deck (`quiz: {mode: poll}`, the default: clicks add hands, `A` reveals the answer
and the explanation) or judged at each click (`mode: check`). With `answer="expr"` no choice is
marked: the build finds the one that shows the value of `expr` and fails if none or two do.
`quiz: {shuffle: true}` orders each quiz's choices from the seed and the quiz's place; every
output (slides, handouts, notes' answer key, notebooks, PPTX, values.json) shows that order.
The handouts print it without its answer."""
KIND = BlockKind("quiz", named("quiz"), parse, render, OUTPUTS, resolve, doc=DOC)
