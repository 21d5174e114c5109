"""The classroom server over real HTTP on loopback: what an audience device is given (the deck
without notes or answers, no lecturer's file), what it may send (its votes, once per quiz,
changeable while voting is open, rate-limited), and what only the presenter's secret allows
(slides, polls, ink); Host, Origin and body checks."""

from __future__ import annotations

import json
from pathlib import Path

from fixture_build import Built
from room_support import KEY, Served, device_cookie, http, lead, serve_room, vote


def test_the_audience_page_has_no_notes_no_answers_and_no_explanations(served: Served):
    code, headers, body = http(served, "GET", "/room/")
    page = body.decode()
    assert code == 200 and "A quiz" in page and 'id="DECK_ROOM"' in page
    assert "The lecturer's notes" not in page and 'class="notes"' not in page
    assert "data-correct" not in page
    assert "Two and two make" not in page and "Ten is twice five" not in page
    assert 'class="quiz-explain" hidden></div>' in page  # (filled once revealed)
    assert KEY not in page and "deck-live" not in page  # no secret, no preview client
    assert headers["Set-Cookie"].startswith("deck_device=") and "HttpOnly" in headers["Set-Cookie"]
    # the presenter's page is the deck as built, with the live preview's client
    code, _, body = http(served, "GET", "/room/", headers={"Cookie": served.lead_cookie})
    assert code == 200 and b"The lecturer's notes" in body and b'data-correct="true"' in body
    assert b"deck-live" in body and KEY.encode() not in body


def test_the_presenters_address_sets_the_secret_as_a_cookie(served: Served):
    code, headers, _ = http(served, "GET", f"/__deck/lead?key={KEY}&lesson=room")
    assert code == 303 and headers["Location"] == "/room/"
    assert headers["Set-Cookie"].startswith(f"deck_lead_{served.port}={KEY};")
    assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
    assert http(served, "GET", "/__deck/lead?key=guess")[0] == 403
    assert any("a wrong presenter key" in line for line in served.lines)


def test_the_audience_reads_no_file_meant_for_the_lecturer(served: Served, built: Built):
    (built.out / "notes.pdf").write_bytes(b"%PDF answer key")
    for path in (
        "/room/values.json",
        "/room/notes.pdf",
        "/room/room.ipynb",
        "/__deck/status",
        "/__deck/events",
        "/room/../room/values.json",
        "/room/%2e%2e/x",
    ):
        assert http(served, "GET", path)[0] == 404, path
    assert http(served, "GET", "/room/assets/deck.js")[0] == 200
    code, headers, _ = http(served, "GET", "/")  # the short address: the lesson
    assert code == 303 and headers["Location"] == "/room/"
    lead_cookie = {"Cookie": served.lead_cookie}
    assert http(served, "GET", "/room/values.json", headers=lead_cookie)[0] == 200
    assert http(served, "GET", "/__deck/status", headers=lead_cookie)[0] == 200


def test_a_foreign_host_or_origin_is_refused(served: Served):
    for host in ("evil.example", f"evil.example:{served.port}", "127.0.0.1:1", "[::1]:80"):
        assert http(served, "GET", "/room/", headers={"Host": host})[0] == 403, host
    assert http(served, "GET", "/room/", headers={"Host": None})[0] == 403
    # an IP address of this machine on the room's network is fine
    assert http(served, "GET", "/room/", headers={"Host": f"10.0.0.7:{served.port}"})[0] == 200
    device = device_cookie(served)
    body = {"lesson": "room", "quiz": 0, "choice": 1}
    for origin in ("http://evil.example", f"http://127.0.0.1:{served.port}.evil", "null"):
        headers = {"Cookie": device, "Origin": origin}
        assert http(served, "POST", "/__deck/room/vote", body, headers)[0] == 403, origin
    assert http(served, "POST", "/__deck/room/vote", body, {"Cookie": device})[0] == 200


def test_only_the_presenter_moves_the_room(served: Served):
    device = device_cookie(served)
    forged = [
        {"Cookie": device},
        {"Cookie": f"deck_lead_{served.port}=guess"},
        {"Cookie": f"deck_lead_1={KEY}"},  # another server's cookie name
        {},
    ]
    for route, body in (
        ("position", {"h": 3, "v": 0, "f": None}),
        ("poll", {"quiz": 0, "action": "step"}),
        ("ink", {"events": []}),
        ("ink/save", {"storage": [], "upto": 0}),
        ("run", {"cell": "content/room/01-room.md:11", "code": "import os"}),
        ("save", {"cell": "content/room/01-room.md:11"}),
    ):
        for headers in forged:
            code = http(
                served, "POST", f"/__deck/room/{route}", {"lesson": "room", **body}, headers
            )[0]
            assert code == 403, (route, headers)
    assert served.classroom.rooms["room"].position == {"h": 0, "v": 0, "f": None}
    assert lead(served, "position", {"h": 3, "v": 0, "f": None})[0] == 200
    assert served.classroom.rooms["room"].position == {"h": 3, "v": 0, "f": None}


def test_each_device_votes_once_per_quiz_and_may_change_it_until_voting_closes(served: Served):
    a, b = device_cookie(served), device_cookie(served)
    assert a != b
    assert vote(served, a, 0, 0) == 200
    assert vote(served, a, 0, 1) == 200  # changed: still one vote
    assert vote(served, b, 0, 1) == 200
    assert vote(served, b, 1, 2) == 200  # another quiz
    room = served.classroom.rooms["room"]
    assert room.polls[0].counts(3) == [0, 2, 0] and room.polls[1].counts(3) == [0, 0, 1]
    assert lead(served, "poll", {"quiz": 0, "action": "close"}) == (200, {"stage": "closed"})
    assert vote(served, a, 0, 2) == 409  # closed: the vote stays
    assert room.polls[0].counts(3) == [0, 2, 0]
    assert lead(served, "poll", {"quiz": 0, "action": "step"})[1] == {"stage": "shown"}
    assert lead(served, "poll", {"quiz": 0, "action": "step"})[1] == {"stage": "answered"}
    assert lead(served, "poll", {"quiz": 0, "action": "reset"})[1] == {"stage": "open"}
    assert room.polls[0].counts(3) == [0, 0, 0]
    assert vote(served, "deck_device=forged.AAAAAAAAAAAAAAAAAAAAAA", 0, 0) == 403
    assert vote(served, a, 0, 3) == 400 and vote(served, a, 9, 0) == 404


def test_a_device_voting_too_often_is_slowed_down(served: Served):
    device = device_cookie(served)
    codes = [vote(served, device, 0, k % 3) for k in range(12)]
    assert codes[:5] == [200] * 5 and 429 in codes


def test_bad_bodies_are_refused_and_the_server_goes_on(served: Served):
    device = {"Cookie": device_cookie(served)}
    path = "/__deck/room/vote"
    assert http(served, "POST", path, b"{not json", device)[0] == 400
    assert http(served, "POST", path, b"[1, 2]", device)[0] == 400
    assert http(served, "POST", path, b"x" * 10_000, device)[0] == 413
    huge = {**device, "Content-Length": str(1 << 40)}
    assert http(served, "POST", path, b"", huge)[0] in (400, 413)
    text = {**device, "Content-Type": "text/plain"}
    assert http(served, "POST", path, {"lesson": "room"}, text)[0] == 415
    for bad in (
        {"lesson": "room", "quiz": True, "choice": 0},
        {"lesson": "room", "quiz": "0", "choice": 0},
        {"lesson": ["room"], "quiz": 0, "choice": 0},
        {"lesson": "nope", "quiz": 0, "choice": 0},
    ):
        assert http(served, "POST", path, bad, device)[0] in (400, 404), bad
    body = json.dumps({"lesson": "room", "events": [{"x": "y" * 100}] * 20_000}).encode()
    headers = {"Cookie": served.lead_cookie}
    assert http(served, "POST", "/__deck/room/ink", body, headers)[0] == 413
    assert http(served, "GET", "/room/")[0] == 200


def test_a_body_too_large_is_read_and_answered_with_its_reason(served: Served):
    """A browser still sending a refused body would see a reset connection, not the 413: the
    server reads such a body (up to DRAIN bytes) and drops it before it answers."""
    from deck.classroom.presenter import DRAIN

    body = json.dumps({"lesson": "room", "events": [{"x": "y" * 100}] * 80_000}).encode()
    assert 4 << 20 < len(body) <= DRAIN  # (far beyond what the sockets' buffers hold)
    code, _, data = http(served, "POST", "/__deck/room/ink", body, {"Cookie": served.lead_cookie})
    assert code == 413 and "at most" in json.loads(data)["errors"][0]
    assert http(served, "GET", "/room/")[0] == 200


def test_the_qr_code_is_the_presenters_and_names_the_audience_address(served: Served):
    assert http(served, "GET", "/__deck/room/qr.svg?lesson=room")[0] == 404
    code, headers, body = http(
        served, "GET", "/__deck/room/qr.svg?lesson=room", headers={"Cookie": served.lead_cookie}
    )
    assert code == 200 and headers["Content-Type"].startswith("image/svg+xml")
    assert f"<title>http://127.0.0.1:{served.port}/room/</title>".encode() in body


def test_the_terminal_gives_the_presenters_and_the_students_addresses(tmp_path: Path):
    from deck.classroom.guard import Keys
    from deck.classroom.serve import addresses

    class Fake:
        class server:  # noqa: N801
            server_port = 8123

    lines = addresses(Fake(), Keys("k3y"), "192.168.1.20", ["room"])  # type: ignore[arg-type]
    assert lines == [
        "presenter (keep private): http://127.0.0.1:8123/__deck/lead?key=k3y&lesson=room",
        "students join: http://192.168.1.20:8123/room/",
    ]


def test_after_class_the_counts_are_written_beside_the_outputs_with_each_quizs_line(built: Built):
    record = built.root / "dist" / "room.classroom"
    with serve_room(built) as served:
        devices = [device_cookie(served) for _ in range(3)]
        for device, choice in zip(devices, (1, 1, 2), strict=True):
            assert vote(served, device, 0, choice) == 200
        assert vote(served, devices[0], 1, 2) == 200
        assert lead(served, "poll", {"quiz": 0, "action": "step"})[0] == 200
    # the server stopped: the counts as the lecture left them
    data = json.loads((record / "votes.json").read_text("utf-8"))
    lines = (built.root / "content" / "room" / "01-room.md").read_text().splitlines()
    quiz_lines = [n + 1 for n, line in enumerate(lines) if line == "::: quiz"]
    first, second = data["quizzes"]
    assert first["loc"] == f"content/room/01-room.md:{quiz_lines[0]}"
    assert second["loc"] == f"content/room/01-room.md:{quiz_lines[1]}"
    assert (first["votes"], first["voters"], first["stage"]) == ([0, 2, 1], 3, "shown")
    assert (first["choices"], first["answer"], first["answer_text"]) == (["3", "4", "5"], 1, "4")
    assert second["votes"] == [0, 0, 1] and second["question"] == "Which number is even?"
    rows = (record / "votes.csv").read_text("utf-8").splitlines()
    assert rows[0] == "lesson,quiz,loc,slide,question,choice,text,right,votes"
    assert rows[2] == f"room,1,content/room/01-room.md:{quiz_lines[0]},3,What is $2 + 2$?,B,4,yes,2"
    assert not list(record.glob(".*"))  # no temporary file left
    # a rebuild replaces dist/room/ and leaves the record alone
    assert (built.root / "dist" / "room" / "index.html").is_file()


def test_classroom_is_asked_for_with_serve_and_host_with_classroom(tmp_path: Path):
    from fixture_build import run_cli

    (tmp_path / "content" / "room").mkdir(parents=True)
    ran = run_cli(tmp_path, "room", "--classroom")
    assert ran.returncode == 2 and "--classroom needs --serve" in ran.stderr
    ran = run_cli(tmp_path, "room", "--host", "0.0.0.0")
    assert ran.returncode == 2 and "--host needs --classroom" in ran.stderr


def test_a_cells_code_may_be_longer_than_a_vote(served: Served):
    code = "# " + "x" * 8000  # (this server runs no cell: it says so, having read the code)
    status, body = lead(served, "run", {"cell": "content/room/01-room.md:11", "code": code})
    assert status == 404 and b"live cells are off" in body
