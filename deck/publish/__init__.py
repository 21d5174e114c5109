"""Stage 4, publish: the exporters (HTML, PDFs, single file) fill staging folders, and the
journal swaps them into place all at once."""
