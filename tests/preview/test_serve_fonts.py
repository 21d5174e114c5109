"""The live preview and the deck's fonts: a prose edit bringing a character the deck did not
show before patches the open page and loads the new font subsets in place."""

from __future__ import annotations

import pytest
from test_serve import live, page, shared_cache, shown  # noqa: F401 (the served page)

from catalogue import edit

pytestmark = pytest.mark.browser


@pytest.mark.slow
def test_a_new_character_is_patched_in_and_drawn_with_the_decks_own_font(page, live):  # noqa: F811
    _, folder = live
    edit(folder / "01-basics.md", "平方的结果是", "平方之结果为龘")
    shown(page, "平方之结果为龘 144")
    assert page.evaluate("window.marker") == "same page"  # patched, not reloaded
    # the stylesheet loaded again (the first link goes once the new one loaded), fonts loaded
    page.wait_for_function(
        """() => [...document.querySelectorAll('link[href^="assets/fonts.css"]')]
                   .every(l => l.getAttribute('href') !== 'assets/fonts.css')
                 && document.fonts.status === 'loaded'"""
    )
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    nodes = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": "section.present p"})
    used = [
        font
        for node in nodes["nodeIds"]
        for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    ]
    assert used and all(font["isCustomFont"] for font in used), used  # 龘 too
