"""The widget checks' helpers live at `deck.widgetdata`; widget checks written against their
first name, `deck.render.widgetdata`, get the very same functions (README, Widgets)."""

from __future__ import annotations

import deck.render.widgetdata as old
import deck.widgetdata as new


def test_the_old_name_gives_the_same_helpers():
    assert old.__all__ and set(old.__all__) <= set(dir(new))
    for name in old.__all__:
        assert getattr(old, name) is getattr(new, name), name
    public = {n for n in dir(new) if not n.startswith("_") and callable(getattr(new, n))}
    assert public - {"Any"} <= set(old.__all__)  # nothing of the new one left out
