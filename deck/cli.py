"""Command line: `python build.py [LESSON ...] [options]`."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

from deck.errors import DeckError
from deck.execute.executor import executor_address
from deck.model.outputs import DEFAULT_OUTPUTS, KNOWN_OUTPUTS, OUTPUTS
from deck.options import Options, UsageError, read_outputs
from deck.pipeline import build
from deck.progress import LogOnly, ProgressDisplay, counted
from deck.publish.journal import LockTimeout, lock_timeout
from deck.source.registry import sources_for

# True whenever a build stops early: publishing is all-or-nothing (see deck.publish).
KEPT = "dist/ and figures/ left as they were"


NEW = "build.py new NAME [--lang en|zh|fr|de|…] [--content DIR]"
DOCS = "build.py docs [--out DIR]"


def epilog() -> str:
    """The outputs, each with what it makes, and which are made by default: all from the
    registry (deck/model/outputs.py)."""
    asked = [o for o in OUTPUTS if o.asked]
    made = "\n".join(f"  {o.name:<8} {o.makes}" for o in asked)
    defaults = ",".join(o.name for o in asked if o.default)  # (DEFAULT_OUTPUTS)
    others = ",".join(o.name for o in asked if not o.default)
    return (
        f"outputs (--to, lesson.yml's `outputs:`):\n{made}\n"
        f"made when neither names any: {defaults}; only when named: {others}\n\n"
        f"a new lesson: {NEW}\n"
        "  writes CONTENT/NAME/ (a lesson that builds at once) and its test "
        "tests/lessons/test_NAME.py\n  (build.py new --help)\n\n"
        f"the documentation site: {DOCS}\n  builds docs/ offline into OUT/docs/ (open "
        "OUT/docs/index.html)"
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="build.py",
        usage=f"%(prog)s [LESSON ...] [options]\n       {NEW}\n       {DOCS}",
        description="Build lessons into reveal.js decks, PDF slides and handouts.",
        epilog=epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "lessons",
        nargs="*",
        metavar="LESSON",
        help="lessons to build (default: every lesson folder in --content), or Quarto files "
        "(path/to/talk.qmd → dist/talk/)",
    )
    p.add_argument("--content", type=Path, default=Path("content"), help="lessons folder")
    p.add_argument("--out", type=Path, default=Path("dist"), help="output folder")
    p.add_argument("--figures", type=Path, default=Path("figures"), help="figures folder")
    p.add_argument("--cache", type=Path, default=Path(".cache"), help=argparse.SUPPRESS)
    p.add_argument(
        "--no-pdf", action="store_true", help="skip slides.pdf, handout.pdf and notes.pdf"
    )
    p.add_argument(
        "--to",
        metavar="LIST",
        help=f"outputs to make, e.g. html,pdf,ipynb (known: {', '.join(KNOWN_OUTPUTS)}; "
        f"default: lesson.yml's `outputs:`, else {','.join(DEFAULT_OUTPUTS)}); "
        "the deck itself is always written",
    )
    p.add_argument(
        "--single-file",
        action="store_true",
        help="also write OUT/<lesson>.html with every asset inlined (presents offline, alone)",
    )
    p.add_argument(
        "--serve",
        action="store_true",
        help="preview on 127.0.0.1 and rebuild (without PDFs) whenever a lesson file changes; "
        "the presenter's address it prints (with a secret) edits and runs cells on the slides",
    )
    p.add_argument(
        "--port", default="8000", metavar="P", help="port for --serve (default 8000; 0: any free)"
    )
    p.add_argument(
        "--classroom",
        action="store_true",
        help="with --serve: serve the room's network; students' devices follow the presenter "
        "and vote, the presenter's ink is kept (the presenter's address, with its secret, is "
        "printed; docs/guide/classroom.md)",
    )
    p.add_argument(
        "--host",
        metavar="ADDR",
        help="with --classroom: the address to serve and give students (default: every "
        "interface, and this machine's address on its network)",
    )
    p.add_argument("--force", action="store_true", help="re-run every cell, ignoring the cache")
    p.add_argument(
        "--freeze",
        action="store_true",
        help="after the build, write each section's results into the lesson's _freeze/ folder, "
        "to commit: a clone builds from them without running a cell while every input they "
        "recorded still matches (a section whose inputs changed runs)",
    )
    p.add_argument(
        "--frozen-only",
        action="store_true",
        help="run no cell: every section from its frozen results (_freeze/); one whose inputs "
        "changed is an error at its file:line naming the input",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="sections executed in parallel (default: CPU count)",
    )
    p.add_argument(
        "--executor",
        default="local",
        metavar="WHERE",
        help="where sections run: `local` (default: --jobs worker processes here) or "
        "dask://HOST:PORT, the workers of a running Dask scheduler (with no LESSON, every "
        "lesson's sections are sent together); the deck is still published here",
    )
    p.add_argument(
        "--compare",
        type=Path,
        metavar="OLD",
        help="after the build, list each shown value (inline value, cell output, quiz choices "
        "and answer) that differs from OLD, an earlier build's values.json (or its folder; "
        "dist/LESSON/values.json itself works: it is read before the build): its slide, "
        "file:line, expression and old → new, values in one build only as added or removed, "
        "under a line naming both build hosts. One lesson only. A report on stdout: the exit "
        "status is 0 whether or not values changed",
    )
    p.add_argument(
        "--compare-rtol",
        type=float,
        metavar="R",
        help="with --compare: numbers in a shown value within relative tolerance R of the old "
        "ones (math.isclose) count as unchanged (default 0: any change to the text shown)",
    )
    p.add_argument(
        "--compare-atol",
        type=float,
        metavar="A",
        help="with --compare: numbers within absolute tolerance A count as unchanged (default 0)",
    )
    level = p.add_mutually_exclusive_group()
    level.add_argument("-q", "--quiet", action="store_true", help="only print errors")
    level.add_argument("-v", "--verbose", action="store_true", help="show cell stderr")
    return p


def new_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="build.py new",
        description="A new lesson CONTENT/NAME/ that builds at once, showing each convention "
        "once, and its test tests/lessons/test_NAME.py (run: bash test.sh -k NAME).",
    )
    p.add_argument("name", help="the lesson's folder name, in the content folder")
    p.add_argument("--lang", default="en", help="the deck's language (default en)")
    p.add_argument("--content", type=Path, default=Path("content"), help="lessons folder")
    return p


def new(argv: list[str]) -> int:
    """`build.py new NAME [--lang en|zh|…]`: a lesson that builds at once, and its test."""
    from deck.source.scaffold import new_lesson

    p = new_parser()
    args = p.parse_args(argv)
    try:
        written = new_lesson(args.name, args.content, Path.cwd(), args.lang)
    except UsageError as exc:
        p.error(str(exc))
    for path in written:
        print(f"  wrote   {path}", file=sys.stderr)
    print(
        f"next: python build.py {args.name} --serve   (then edit {args.content / args.name})",
        file=sys.stderr,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["new"]:
        return new(argv[1:])
    if argv[:1] == ["docs"]:
        from deck import docsite

        return docsite.main(argv[1:])
    p = parser()
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    tolerances = {"--compare-rtol": args.compare_rtol, "--compare-atol": args.compare_atol}
    for flag, value in tolerances.items():
        if value is not None and args.compare is None:
            p.error(f"{flag} needs --compare")
        if value is not None and not 0 <= value < float("inf"):
            p.error(f"{flag} must be a number of 0 or more, not {value}")
    if args.compare is not None and args.serve:
        p.error("--compare reports on one build: not with --serve")
    if args.freeze and args.serve:
        p.error("--freeze writes into the lesson's folder: not with --serve")
    try:
        executor = executor_address(args.executor)
    except UsageError as exc:
        p.error(str(exc))
    if executor and args.serve:
        p.error("--executor sends the sections of one build: not with --serve")
    if args.frozen_only and args.force:
        p.error("--frozen-only runs no cell, --force runs every cell: choose one")
    if args.classroom and not args.serve:
        p.error("--classroom needs --serve")
    if args.host is not None and not args.classroom:
        p.error("--host needs --classroom (the preview alone serves 127.0.0.1 only)")
    outputs = None
    if args.to is not None:
        try:
            outputs = read_outputs(args.to)
        except ValueError as exc:
            p.error(f"--to: {exc}")
    try:
        lock_timeout()  # read before anything is built: a bad value is bad usage
    except UsageError as exc:
        p.error(str(exc))
    try:
        sources = sources_for(args.lessons, args.content)  # [] when none are named
    except UsageError as exc:
        p.error(str(exc))
    for source in sources:
        if not source.in_content and not source.path.is_file():
            p.error(f"no file {source.path}")
    if not sources or any(s.in_content for s in sources):
        if not args.content.is_dir():
            p.error(f"content folder {args.content} does not exist")
    if not sources:  # every lesson folder of the content folder
        found = sorted(d.name for d in args.content.iterdir() if d.is_dir())
        sources = sources_for([n for n in found if not n.startswith((".", "_"))], args.content)
    missing = [s.path for s in sources if s.in_content and not s.path.exists()]
    if missing:
        p.error(f"no lesson folder {', '.join(str(path) for path in missing)}")
    if not sources:
        p.error(f"no lessons in {args.content}")
    if args.compare is not None and len(sources) != 1:
        p.error("--compare compares the build of one lesson: name one LESSON")
    names = [str(s.path) if not s.in_content else s.name for s in sources]

    display = ProgressDisplay(sys.stderr, quiet=args.quiet)
    log = display.log

    options = Options(
        content=args.content,
        out=args.out,
        figures=args.figures,
        cache=args.cache,
        pdf=not args.no_pdf,
        force=args.force,
        jobs=args.jobs,
        verbose=args.verbose,
        single_file=args.single_file,
        outputs=outputs,
        lint=os.environ.get("DECK_LAYOUT_CHECK", "1") != "0",  # (off in the engine's tests)
        compare=args.compare,
        compare_rtol=args.compare_rtol or 0.0,
        compare_atol=args.compare_atol or 0.0,
        freeze=args.freeze,
        frozen_only=args.frozen_only,
        executor=executor,
    )
    if args.serve:
        from deck.preview.serve import ServeError, parse_port

        # (its own page lists the decks; the page it shows checks the layout: static/live.js)
        first = replace(options, pdf=False, course=False, lint=False)
        later = replace(first, force=False)
        builds = iter([first])
        say = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
        rebuild = lambda: build(names, next(builds, later), LogOnly(log))  # noqa: E731
        try:
            if args.classroom:
                from deck.classroom.serve import serve_classroom

                port = parse_port(args.port)
                serve_classroom(rebuild, sources, args.out, port, say, args.host, options=later)
            else:  # the preview, with the presenter's live cells (its secret: the terminal's)
                from deck.classroom.livepreview import serve_live

                serve_live(rebuild, sources, args.out, parse_port(args.port), say, later)
        except ServeError as exc:
            print(f"build.py: error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:  # a second Ctrl-C while stopping
            print("stopped", file=sys.stderr)
        return 0
    try:
        with display:
            report = build(names, options, display)
    except UsageError as exc:
        print(f"build.py: error: {exc}", file=sys.stderr)
        return 2
    except DeckError as exc:
        for diagnostic in exc.diagnostics:
            print(diagnostic, file=sys.stderr)
        errors = counted(sum(d.severity == "error" for d in exc.diagnostics), "error")
        print(f"build failed: {errors}; {KEPT}", file=sys.stderr)
        return 1
    except LockTimeout as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"interrupted; {KEPT}", file=sys.stderr)
        return 130
    except Exception as exc:  # a broken install or browser, not an author's mistake
        if args.verbose:
            raise
        print(f"error: {type(exc).__name__}: {exc} (-v shows the traceback)", file=sys.stderr)
        print(f"build failed; {KEPT}", file=sys.stderr)
        return 1
    for line in (line for lesson in report.reports for line in lesson.compared):
        print(line)  # --compare: a report, whatever it found (the exit status stays 0)
    return 0
