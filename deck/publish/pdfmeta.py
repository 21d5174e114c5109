"""A printed PDF's document metadata from the lesson: its authors as the Info dictionary's
`/Author` and XMP `dc:creator`, and the lesson's `date` as XMP `dc:date` (the date the
lesson is given). The print dates stay Chromium's own `/CreationDate` and `/ModDate`, which
the build's digest ignores; nothing here is stamped with the time."""

from __future__ import annotations

from pathlib import Path


def authors(text: str) -> list[str]:
    """`author` as lesson.yml keeps it ("A, B") → one name each."""
    return [name.strip() for name in text.split(",") if name.strip()]


def stamp(path: Path, author: str | None, date: str | None) -> None:
    """Write `author` and `date` into the PDF at `path` (in place), when the lesson has them."""
    if not author and not date:
        return
    import pikepdf

    with pikepdf.open(path, allow_overwriting_input=True) as pdf:
        # no editor, no metadata date (the time would make two prints differ), and the Info
        # dictionary left as Chromium wrote it (pikepdf would drop its keys XMP lacks)
        with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
            if author:
                meta["dc:creator"] = authors(author)
            if date:
                meta["dc:date"] = [date]
        if author:
            pdf.docinfo["/Author"] = author
        pdf.save(
            path,
            object_stream_mode=pikepdf.ObjectStreamMode.disable,  # dates stay findable
            static_id=True,  # no /ID made of the dates: equal decks, equal bytes
        )
