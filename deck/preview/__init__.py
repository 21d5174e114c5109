"""`--serve`: watch the lesson files, rebuild, and serve the decks on 127.0.0.1 with live
updates."""
