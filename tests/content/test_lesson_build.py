"""The whole transformer lesson, built: structure that every slide must have."""

from __future__ import annotations

import re
from pathlib import Path

from lesson_build import Built

SEED_DECK = Path(__file__).resolve().parents[3] / "shared/seeds/003_255ce8ae6f2495db.txt"


def test_every_slide_has_speaker_notes(lesson: Built):
    sections = re.findall(r"<section .*?</section>", lesson.html, re.S)
    assert len(sections) == lesson.values["slides"]
    missing = [
        re.search(r'data-source="([^"]+)"', s).group(1)
        for s in sections
        if '<aside class="notes">' not in s
    ]
    assert missing == []


def test_every_figure_has_alt_text_and_caption(lesson: Built):
    figures = lesson.values["figures"]
    assert len(figures) >= 8
    for figure in figures:
        assert len(figure["alt"]) >= 10, figure
        assert figure["caption"], figure
        assert (lesson.out / figure["file"]).is_file()


def test_quizzes_have_computed_answers_and_explanations(lesson: Built):
    quizzes = lesson.values["quizzes"]
    assert len(quizzes) >= 4
    for quiz in quizzes:
        assert quiz["explanation"], quiz
        assert quiz["answer_text"] == quiz["choices"][quiz["answer"]]
        assert len(set(quiz["choices"])) == len(quiz["choices"])


def test_every_slide_fits_1280_by_720(lesson: Built):
    """Measured in Chromium's print layout; a failure names the slide and its source line."""
    from playwright.sync_api import sync_playwright

    from deck.pdf import launch, measure_overflow

    with sync_playwright() as p:
        browser = launch(p)
        try:
            overflows = measure_overflow(
                browser, lesson.out / "index.html", lesson.values["slides"]
            )
        finally:
            browser.close()
    assert [str(o) for o in overflows] == []


# One or more key terms of every slide of the seed deck (shared/seeds/003_…), in its words.
SEED_TERMS = [
    "Transformer 注意力机制全景",
    "研究生 · 信息技术 · 深度学习",
    "自注意力 · 位置编码 · 多头注意力 · 编码器架构",
    "注意力，凭什么能取代循环？",
    "看懂计算",
    "理解位置",
    "把握并行",
    "组装架构",
    "背景导入：序列建模与注意力机制的兴起",
    "Attention Is All You Need",
    "认知反转",
    "整句可以同时被看见",
    "演进路线",
    "Seq2Seq",
    "软对齐",
    "纯注意力",
    "核心机制一：自注意力的计算原理",
    "线性变换",
    "打分",
    "归一化",
    "加权求和",
    "The animal didn't cross the street because it was too tired",
    "课堂动手",
    "核心机制二：位置编码的必要性与设计",
    "正弦",
    "可学习",
    "外推",
    "零参数",
    "核心机制三：多头注意力的并行化设计",
    "The cat sat on the mat",
    "互动演示",
    "互补",
    "结构组装：编码器层的组成与堆叠",
    "残差连接",
    "层归一化",
    "每层独立参数",
    "对比实验",
    "前馈网络",
    "Add &amp; LayerNorm",
    "编码器角色",
    "课堂互动 · 检验理解",
    "为什么缩放因子是",
    "选择一个答案试试看",
    "总结迁移：从理论到实践与前沿演进",
    "BERT",
    "ViT",
    "GPT",
    "Longformer",
    "BigBird",
    "用 PyTorch 实现一个单层编码器",
]


def test_every_seed_slide_key_term_is_in_the_deck(lesson: Built):
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", lesson.html))
    text = text.replace("&#x27;", "'").replace("&quot;", '"')
    missing = [term for term in SEED_TERMS if term not in text]
    assert missing == []


def test_speaker_notes_plan_a_90_minute_class(lesson: Built):
    """Every slide's notes start with its time ("N 分钟。"); together they fill the class."""
    notes = re.findall(r'<aside class="notes">(.*?)</aside>', lesson.html, re.S)
    minutes = [re.match(r"\s*(?:<p>)?(\d+) 分钟", n) for n in notes]
    assert all(minutes), [n[:40] for n, m in zip(notes, minutes, strict=True) if not m]
    assert 80 <= sum(int(m.group(1)) for m in minutes) <= 95
