"""The course page `dist/index.html`: every lesson in order with its title, subtitle, authors,
date, slide count and planned minutes, and links to the files its last good build wrote (the
lecturer's notes.pdf, the answer key, only where course.yml's `lecturer-notes` asks). Written on
every build (it costs a few milliseconds and reads no lesson): one lesson or twenty, the out
folder opens on a page that says what is in it.

Each lesson's entry is recorded when its build publishes (`.cache/course/<lesson>.json`), so a
lesson that fails keeps its last good entry, marked with the failure; a failed build writes no
page (dist/ stays as it was): the next build that succeeds shows the mark. The page is one file
with its stylesheet inlined: offline from file://, in the deck's language and theme."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deck.options import Options
from deck.publish.coursetitle import rendered_title, shown_title
from deck.store.files import write_atomic
from deck.strings import message, strings
from deck.theme import NOTE_MINUTES, STATIC

if TYPE_CHECKING:
    from deck.model import Lesson
    from deck.model.document import DocSlide, Document
    from deck.publish.coursefile import CourseConfig
    from deck.render.deck import RenderedDeck

PAGE = "index.html"


def entries_folder(options: Options) -> Path:
    return options.cache / "course"


def slide_seconds(slide: DocSlide) -> int:
    """A slide's planned seconds, as the speaker view reads them: a `timing` attribute
    (seconds) wins, else the minutes its notes open with (`minutes=` or `2 min` first)."""
    timing = slide.attrs.get("data-timing", slide.attrs.get("timing"))
    if timing is not None:
        number = re.match(r"\s*([-+]?\d+)", str(timing))
        return int(number.group(1)) if number else 0
    from deck.model.document import Aside, walk  # (a build that renders: not the no-change path)

    notes = [n for n in walk(slide.blocks) if isinstance(n, Aside) and n.kind == "notes"]
    if not notes:
        return 0
    first = notes[0]
    if first.minutes is not None:
        return round(first.minutes * 60)
    said = first.text.markdown(lambda v: v.text) if first.text is not None else ""
    match = NOTE_MINUTES.match(said.lstrip(" \t\n*_"))  # (`**2 min**` reads as 2 min)
    return round(float(match.group(1)) * 60) if match else 0


def planned_seconds(document: Document) -> tuple[int, int]:
    """(planned, optional) seconds of a deck, counted as the speaker view counts them (in any
    language), slides marked `{.optional}` apart."""
    planned = optional = 0
    for slide in document.slides():
        if "optional" in slide.classes:
            optional += slide_seconds(slide)
        else:
            planned += slide_seconds(slide)
    return planned, optional


def record_entry(lesson: Lesson, deck: RenderedDeck, options: Options) -> None:
    """What the course page says of a lesson that just published (its last good entry)."""
    config = lesson.config
    assert deck.document is not None  # (render resolves it for every build)
    planned, optional = planned_seconds(deck.document)
    folder = lesson.path.resolve()
    # the title as its title slide shows it: the document's, rendered as the deck renders it
    shown = rendered_title(deck.document.title, options.cache, lesson)
    entry = {
        "name": lesson.name,
        # a lesson folder of the content folder (listed while it is there), else a .qmd
        "in_content": folder.is_dir() and folder.parent == options.content.resolve(),
        "content": str(options.content.resolve()),
        "out": str(options.out.resolve()),
        "title": lesson.title,
        **shown_title(shown),
        "subtitle": config.subtitle,
        "date": config.date,
        "author": config.author,
        "course": config.course,
        "lang": config.lang,
        "theme": config.slides.theme,
        "slides": len(deck.slides),
        "minutes": planned / 60,
        "optional_minutes": optional / 60,
        "failed": None,
    }
    path = entries_folder(options) / f"{lesson.name}.json"
    write_atomic(path, json.dumps(entry, ensure_ascii=False, indent=1).encode())


def read_entry(path: Path) -> dict[str, Any] | None:
    try:
        entry = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return entry if isinstance(entry, dict) and isinstance(entry.get("name"), str) else None


def mark_entry(name: str, options: Options, failure: str | None) -> bool:
    """Mark a lesson's last good entry with its build's failure (None: it built); whether
    there was an entry to mark."""
    path = entries_folder(options) / f"{name}.json"
    entry = read_entry(path)
    if entry is None:
        return False
    if entry.get("failed") != failure:
        entry["failed"] = failure
        write_atomic(path, json.dumps(entry, ensure_ascii=False, indent=1).encode())
    return True


def lesson_entries(options: Options, order: tuple[str, ...]) -> list[dict[str, Any]]:
    """The entries of lessons built into this out folder: `order` first (one not built yet
    says so), then the rest by name; a lesson folder removed from the content folder is not
    listed any more."""
    out = str(options.out.resolve())
    present = set(lesson_folders(options.content))
    found = {}
    folder = entries_folder(options)
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            entry = read_entry(path)
            if entry is None or entry.get("out") != out:
                continue
            if entry.get("in_content") and entry["name"] not in present:
                continue
            if not isinstance(entry.get("title_html"), str):  # (recorded by an older build)
                entry.update(shown_title(rendered_title(str(entry["title"]), options.cache)))
            found[entry["name"]] = entry
    listed = [found.pop(name, {"name": name, "title": name, "unbuilt": True}) for name in order]
    return listed + [found[name] for name in sorted(found)]


def gone_lessons(options: Options) -> list[str]:
    """Lessons built from this content folder into this out folder whose folder is gone from
    it (their outputs go with their entries: `deck.pipeline`); none while it is not there."""
    if not options.content.is_dir():
        return []
    ours = [str(options.content.resolve()), str(options.out.resolve()), True]
    present = set(lesson_folders(options.content))
    found = [(p.stem, read_entry(p) or {}) for p in entries_folder(options).glob("*.json")]
    keys = ("content", "out", "in_content")
    gone = [n for n, e in found if [e.get(k) for k in keys] == ours and e.get("name") == n]
    return sorted(n for n in gone if n not in present)


def lesson_folders(content: Path) -> list[str]:
    """The lesson folders of the content folder, by name (as the CLI finds them)."""
    if not content.is_dir():
        return []
    return sorted(
        d.name for d in content.iterdir() if d.is_dir() and not d.name.startswith((".", "_"))
    )


def number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def links(entry: dict[str, Any], out: Path, notes: bool = False) -> list[tuple[str, str]]:
    """(kind, href) of each file the lesson's last good build left in the out folder; the
    lecturer's notes (notes.pdf, the answer key) only when `notes` (course.yml's
    `lecturer-notes`): the page is the students' way in."""
    name = entry["name"]
    candidates = [
        ("deck", f"{name}/index.html"),
        ("single", f"{name}.html"),
        ("slides.pdf", f"{name}/slides.pdf"),
        ("handout.pdf", f"{name}/handout.pdf"),
        ("notes.pdf", f"{name}/notes.pdf"),
        ("ipynb", f"{name}/{name}.ipynb"),
        ("solutions", f"{name}/{name}-solutions.ipynb"),
        ("pptx", f"{name}/slides.pptx"),
    ]
    shown = [(kind, href) for kind, href in candidates if notes or kind != "notes.pdf"]
    return [(kind, href) for kind, href in shown if (out / href).is_file()]


def course_page(course: CourseConfig, entries: list[dict[str, Any]], out: Path) -> str:
    """The page, all text escaped; a lesson's title as its deck renders it (`shown_title`)."""
    e = html.escape
    built = [x for x in entries if not x.get("unbuilt")]
    lang = course.lang or (built[0]["lang"] if built else "en")
    text = strings(lang, "course")  # (deck/static/strings.json: English for one without)
    theme = built[0].get("theme", "default") if built else "default"
    named = [x["course"] for x in built if x.get("course")]
    title = course.title or (named[0] if named else text["course"])
    head = [f"<h1>{e(title)}</h1>"]
    facts = [(text["lecturer"], course.lecturer), (text["term"], course.term)]
    shown = [f"<div><dt>{e(k)}</dt><dd>{e(v)}</dd></div>" for k, v in facts if v]
    if shown:
        head.append(f'<dl class="course-facts">{"".join(shown)}</dl>')
    if course.description:
        paragraphs = [p.strip() for p in course.description.split("\n\n") if p.strip()]
        head += [f'<p class="course-description">{e(p)}</p>' for p in paragraphs]
    items = []
    for entry in entries:
        items.append(lesson_item(entry, lang, out, course.links_notes(entry["name"])))
    css = (STATIC / "course.css").read_text("utf-8")
    return (
        f'<!DOCTYPE html>\n<html lang="{e(lang)}" class="deck-theme-{e(theme)}">\n<head>\n'
        '<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{e(title)}</title>\n<style>\n{css}</style>\n</head>\n<body>\n"
        f"<header>\n{chr(10).join(head)}\n</header>\n<main>\n"
        f'<h2 class="lessons-heading">{e(text["lessons"])}</h2>\n'
        f'<ol class="lessons">\n{"".join(items)}</ol>\n</main>\n</body>\n</html>\n'
    )


def lesson_item(entry: dict[str, Any], lang: str, out: Path, notes: bool) -> str:
    e = html.escape
    text = strings(lang, "course")
    name = entry["name"]
    if entry.get("unbuilt"):
        return (
            f'<li class="lesson lesson-unbuilt" id="lesson-{e(name)}"><h3>{e(name)}</h3>'
            f'<p class="lesson-status">{e(text["unbuilt"])}</p></li>\n'
        )
    found = links(entry, out, notes)
    deck = dict(found).get("deck")
    shown = entry.get("title_html", html.escape(entry["title"]))  # (an older entry's: text)
    title = shown_title(shown)["title_html"]  # (as recorded: again, to be sure)
    heading = f'<a href="{e(deck)}">{title}</a>' if deck else title
    parts = [f"<h3>{heading}</h3>"]
    if entry.get("subtitle"):
        parts.append(f'<p class="lesson-subtitle">{e(entry["subtitle"])}</p>')
    facts = []
    if entry.get("author"):
        facts.append(f'<span class="lesson-author">{e(entry["author"])}</span>')
    if entry.get("date"):
        facts.append(f'<time datetime="{e(entry["date"])}">{e(entry["date"])}</time>')
    facts.append(e(message(lang, text["slides"], n=entry["slides"])))
    if entry.get("minutes"):
        minutes = text["minutes"].format(m=number(entry["minutes"]))
        if entry.get("optional_minutes"):
            minutes += text["optional"].format(m=number(entry["optional_minutes"]))
        facts.append(e(minutes))
    parts.append(f'<p class="lesson-facts">{" · ".join(facts)}</p>')
    if entry.get("failed"):
        failed = text["failed"].format(why=entry["failed"])
        parts.append(f'<p class="lesson-failed" role="status">{e(failed)}</p>')
    label = e(text["files"].format(title=entry.get("title_text", entry["title"])))
    anchors = "".join(
        f'<li><a href="{e(href)}">{e(text["links"][kind])}</a></li>' for kind, href in found
    )
    parts.append(f'<ul class="lesson-links" aria-label="{label}">{anchors}</ul>')
    failed = " lesson-has-failed" if entry.get("failed") else ""
    return f'<li class="lesson{failed}" id="lesson-{e(name)}">{"".join(parts)}</li>\n'


def write_course_page(options: Options, course: CourseConfig, known: list[str]) -> bool:
    """Write `<out>/index.html` when it would change; whether it was written."""
    order = course.lessons or tuple(known)
    entries = lesson_entries(options, order)
    if not [x for x in entries if not x.get("unbuilt")]:
        return False  # nothing built yet: nothing to list
    page = course_page(course, entries, options.out).encode()
    path = options.out / PAGE
    try:
        if path.read_bytes() == page:
            return False
    except OSError:
        pass
    write_atomic(path, page)
    return True
