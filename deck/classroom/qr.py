"""How students join: the address of this machine on the room's network and its QR code,
made here (segno), never fetched."""

from __future__ import annotations

import io
import socket
from urllib.parse import quote


def lan_address() -> str:
    """This machine's address on its network: the one its route out leaves from (a UDP
    socket's connect sends nothing); 127.0.0.1 with no network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"
    return address if address != "0.0.0.0" else "127.0.0.1"


def join_url(host: str, port: int, lesson: str) -> str:
    """The audience's address of a lesson: short enough to type from the projector."""
    where = f"[{host}]" if ":" in host else host
    shown = where if port == 80 else f"{where}:{port}"
    return f"http://{shown}/{quote(lesson)}/"


def qr_svg(url: str) -> bytes:
    """The QR code of `url`, as an SVG (black on white, a quiet zone of 4 modules)."""
    import segno

    code = segno.make(url, error="m", micro=False)
    out = io.BytesIO()
    code.save(
        out, kind="svg", scale=8, border=4, xmldecl=False, title=url, dark="#000", light="#fff"
    )
    return out.getvalue()
