"""Stage 1, source: reading a lesson (a folder of section files, or a `.qmd`) into a `Lesson`."""
