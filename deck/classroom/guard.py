"""What a classroom server checks before it does anything for a request: the Host and Origin
it names, who sends it (the presenter's secret, a device's signed id), how often a device
votes, and how many connections are open.

Every check here is a pure function or a small thread-safe counter, so each is tested alone.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import re
import secrets
import threading
import time

# An IP literal or localhost, with a port: a page on another site reaching this server through a
# name of its own (DNS rebinding) names that name, which is refused.
HOST = re.compile(r"(localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\])(?::(\d{1,5}))?")
DEVICE = re.compile(r"[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}")
LEAD_COOKIE = "deck_lead"
DEVICE_COOKIE = "deck_device"


def host_of(header: str | None) -> tuple[str, int | None] | None:
    """(host, port) of a Host header that names localhost or an IP literal; None otherwise."""
    match = HOST.fullmatch((header or "").strip())
    if match is None:
        return None
    host = match.group(1).lower()
    if host != "localhost":
        try:
            ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            return None
    return host, int(match.group(2)) if match.group(2) else None


def host_allowed(header: str | None, port: int) -> bool:
    """A Host naming localhost or an IP address, and this server's port (none: 80)."""
    found = host_of(header)
    return found is not None and (found[1] or 80) == port


def origin_allowed(origins: list[str] | None, host: str | None) -> bool:
    """No Origin (not a browser page), or exactly `http://` + the Host the request names: a
    page this server served. A page of another site, or a second Origin header, is refused."""
    if origins is None:
        return True
    return len(origins) == 1 and host is not None and origins[0].strip() == f"http://{host.strip()}"


def cookies(header: str | None) -> dict[str, str]:
    """A Cookie header's names and values (the first of a name wins)."""
    found: dict[str, str] = {}
    for part in (header or "").split(";"):
        name, _, value = part.strip().partition("=")
        if name and name not in found:
            found[name] = value.strip()
    return found


class Keys:
    """The presenter's secret and the key that signs device ids, made at start-up: never
    written anywhere, never sent to an audience page."""

    def __init__(self, lead: str | None = None) -> None:
        self.lead = lead or secrets.token_urlsafe(18)
        self.signing = secrets.token_bytes(32)

    def is_lead(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value.encode(), self.lead.encode())

    def new_device(self) -> str:
        token = secrets.token_urlsafe(12)
        return f"{token}.{self.sign(token)}"

    def sign(self, token: str) -> str:
        mac = hmac.new(self.signing, token.encode(), hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def device(self, value: str | None) -> str | None:
        """The device id `value` when this server signed it; None for anything else."""
        if value is None or not DEVICE.fullmatch(value):
            return None
        token, mac = value.split(".")
        return value if hmac.compare_digest(mac, self.sign(token)) else None


class RateLimit:
    """A token bucket per key: `burst` at once, then `per_second`. Keys idle for a minute are
    forgotten, so the table stays as small as the room."""

    def __init__(self, burst: float, per_second: float) -> None:
        self.burst = burst
        self.rate = per_second
        self.lock = threading.Lock()
        self.buckets: dict[str, tuple[float, float]] = {}
        self.swept = time.monotonic()

    def allow(self, key: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        with self.lock:
            if now - self.swept > 60:
                self.buckets = {k: v for k, v in self.buckets.items() if now - v[1] < 60}
                self.swept = now
            tokens, then = self.buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            allowed = tokens >= 1
            self.buckets[key] = (tokens - 1 if allowed else tokens, now)
            return allowed


class Gate:
    """A bound on the connections open at once."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.open = 0
        self.refused = 0
        self.lock = threading.Lock()

    def enter(self) -> bool:
        with self.lock:
            if self.open >= self.most:
                self.refused += 1
                return False
            self.open += 1
            return True

    def leave(self) -> None:
        with self.lock:
            self.open -= 1
