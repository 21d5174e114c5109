"""deck: Markdown lessons with executed Python cells → reveal.js decks, PDF slides, handouts."""
