"""Stage 3, render: a lesson and its results → reveal.js HTML (Markdown, KaTeX, blocks, slides,
the page), the values record and the views each output is made from."""
