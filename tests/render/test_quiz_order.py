"""Quiz answer positions: `quiz: {shuffle: true}` puts each quiz's answer at a position planned
across the lesson (no position holds more than its share) and orders the other choices from the
lesson's seed and the quiz's identity (file and `#id`); an unshuffled lesson with most answers
at one position is warned about."""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path

from test_render import stand_in_results

from catalogue import write_lesson
from deck.render.deck import render_lesson
from deck.source.folder import load_lesson

CHOICES = ["甲", "乙", "丙", "丁", "戊", "己"]


def quiz(label: str, right: int, question: str = "问题？") -> str:
    lines = [f"- [{'x' if k == right else ' '}] {c}{label}" for k, c in enumerate(CHOICES)]
    return f"::: {{.quiz #{label}}}\n{question}\n\n" + "\n".join(lines) + "\n:::\n"


def lesson_yml(seed: int, shuffle: bool | None) -> str:
    text = f"title: T\nlang: zh-CN\nexec:\n  seed: {seed}\n"
    return text + (f"quiz:\n  shuffle: {str(shuffle).lower()}\n" if shuffle is not None else "")


def build(root: Path, seed: int, shuffle: bool | None, slides: list[str]):
    files = {"lesson.yml": lesson_yml(seed, shuffle), "01-a.md": "\n".join(slides)}
    lesson = load_lesson(write_lesson(root, files))
    return render_lesson(lesson, stand_in_results(lesson))


def seeded(seed: int, file: str, label: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}\0{file}\0{label}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def reference_orders(seed: int, file: str, labels: list[str], right: int, n: int):
    """The documented rule, written out again: quizzes in deck order each take the position
    that has held fewest answers so far (ties in an order shuffled by sha256 of seed, file and
    label); the other choices follow in an order shuffled by the same seed."""
    counts = [0] * n
    orders = []
    for label in labels:
        positions = list(range(n))
        seeded(seed, file, label).shuffle(positions)
        slot = min(positions, key=lambda k: counts[k])
        counts[slot] += 1
        others = [k for k in range(n) if k != right]
        seeded(seed, file, label).shuffle(others)
        orders.append([*others[:slot], right, *others[slot:]])
    return orders


SLIDES = [f"## Q{k}\n\n{quiz(f'q{k}', 2)}" for k in range(4)]


def test_shuffle_is_a_permutation_that_tracks_the_answer(tmp_path: Path):
    deck = build(tmp_path, 7, True, SLIDES)
    quizzes = deck.values["quizzes"]
    assert len(quizzes) == 4
    orders = reference_orders(7, "01-a.md", [f"q{k}" for k in range(4)], 2, len(CHOICES))
    for k, record in enumerate(quizzes):
        label = f"q{k}"
        written = [c + label for c in CHOICES]
        assert sorted(record["choices"]) == sorted(written)  # a permutation
        assert record["answer_text"] == written[2]  # the answer moved with its text
        assert record["choices"][record["answer"]] == written[2]
        assert record["choices"] == [written[j] for j in orders[k]]
    # the page's buttons (which the notes' answer key reads) are in the same order, the
    # right one marked
    buttons = re.findall(r'data-correct="(true|false)">([^<]*)</button>', deck.html)
    assert [text for _, text in buttons] == [c for q in quizzes for c in q["choices"]]
    marked = [k % len(CHOICES) for k, (flag, _) in enumerate(buttons) if flag == "true"]
    assert marked == [q["answer"] for q in quizzes]
    # not every answer at the written position any more (the point of shuffling)
    assert {q["answer"] for q in quizzes} != {2}
    assert not [w for w in deck.warnings if w.code == "quiz-positions"]


def test_same_seed_same_order_other_seed_other_order_and_edits_elsewhere_keep_it(
    tmp_path: Path,
):
    a = build(tmp_path / "a", 7, True, SLIDES).values["quizzes"]
    b = build(tmp_path / "b", 7, True, SLIDES).values["quizzes"]
    assert [q["choices"] for q in a] == [q["choices"] for q in b]
    other = build(tmp_path / "c", 8, True, SLIDES).values["quizzes"]
    assert [q["choices"] for q in a] != [q["choices"] for q in other]
    # a new slide of prose before them, and a new quiz after them: each quiz keeps its order
    moved = ["## New\n\nprose\n", *SLIDES, f"## Q9\n\n{quiz('q9', 0)}"]
    c = build(tmp_path / "d", 7, True, moved).values["quizzes"][:-1]
    assert [q["choices"] for q in a] == [q["choices"] for q in c]


def test_shuffled_answers_are_spread_over_the_positions(tmp_path: Path):
    """Every answer written at the same place, in quizzes of 3 and of 4 choices: after shuffling
    no position holds more than half of them, for any seed (the plan makes it so, not luck)."""
    three = "::: {{.quiz #t{k}}}\n问？\n\n- [ ] 一{k}\n- [x] 二{k}\n- [ ] 三{k}\n:::\n"
    slides = [f"## T{k}\n\n{three.format(k=k)}" for k in range(3)] + SLIDES[:3]
    for seed in range(12):
        answers = [
            q["answer"] for q in build(tmp_path / str(seed), seed, True, slides).values["quizzes"]
        ]
        assert len(answers) == 6
        assert max(answers.count(p) for p in set(answers)) <= len(answers) // 2, (seed, answers)


def test_without_shuffle_the_order_is_as_written(tmp_path: Path):
    deck = build(tmp_path, 7, None, SLIDES[:2])
    for k, record in enumerate(deck.values["quizzes"]):
        assert record["choices"] == [c + f"q{k}" for c in CHOICES]
        assert record["answer"] == 2


def test_answers_all_at_one_position_are_warned_at_the_first_quiz(tmp_path: Path):
    deck = build(tmp_path, 0, None, ["## Intro\n\ntext\n", *SLIDES[:3]])
    found = [str(w) for w in deck.warnings if w.code == "quiz-positions"]
    text = (tmp_path / "content/cat/01-a.md").read_text().split("\n")
    first = text.index("::: {.quiz #q0}") + 1
    assert len(found) == 1
    where, message = found[0].split(": ", 1)
    assert where.endswith(f"01-a.md:{first}")
    assert message == (
        "warning [quiz-positions] all 3 quizzes have their answer at choice C: "
        "set `quiz: {shuffle: true}` in lesson.yml, or reorder the choices"
    )


def test_most_answers_at_one_position_are_warned(tmp_path: Path):
    slides = [*SLIDES[:3], f"## Q5\n\n{quiz('q5', 0)}"]
    deck = build(tmp_path, 0, None, slides)
    found = [str(w).split(": ", 1)[1] for w in deck.warnings if w.code == "quiz-positions"]
    assert found == [
        "warning [quiz-positions] 3 of 4 quizzes have their answer at choice C: "
        "set `quiz: {shuffle: true}` in lesson.yml, or reorder the choices"
    ]


def test_no_warning_with_two_quizzes_or_different_positions(tmp_path: Path):
    two = build(tmp_path / "a", 0, None, SLIDES[:2])
    assert not [w for w in two.warnings if w.code == "quiz-positions"]
    mixed = SLIDES[:2] + [f"## Q5\n\n{quiz('q5', 0)}", f"## Q6\n\n{quiz('q6', 1)}"]
    varied = build(tmp_path / "b", 0, None, mixed)
    assert not [w for w in varied.warnings if w.code == "quiz-positions"]
    shuffled_off = build(tmp_path / "c", 0, False, SLIDES[:3])
    assert [w.code for w in shuffled_off.warnings].count("quiz-positions") == 1


def test_quiz_shuffle_in_lesson_yml_is_read_and_checked():
    from deck.source.config import parse_config

    config, _, found = parse_config("quiz:\n  shuffle: true\n", "lesson.yml")
    assert found == [] and config.quiz.shuffle is True
    assert parse_config("title: T\n", "lesson.yml")[0].quiz.shuffle is False
    bad = [str(d) for d in parse_config("quiz:\n  shuffle: often\n", "lesson.yml")[2]]
    assert bad == ["lesson.yml:2: error [config] `quiz.shuffle: often` must be true or false"]
