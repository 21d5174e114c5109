#!/usr/bin/env bash
# Sets up everything this project needs on a fresh Debian machine, then builds the slides.
# Run again, it only checks and rebuilds. Options: `bash setup.sh --help`.
set -euo pipefail
cd "$(dirname "$0")"

usage() {
  cat <<'USAGE'
usage: bash setup.sh [--no-build] [--help]

Sets up what this project needs on a fresh Debian machine: system packages with apt when run
as root or with sudo (Chromium, Noto CJK and emoji fonts, poppler, LibreOffice Impress,
Node.js), a .venv with the pinned Python packages (requirements.txt; a lesson's package goes
there too), reveal.js and KaTeX with `npm ci`; then builds the slides: every lesson in
content/ into dist/ (`python build.py`). Run again, it only checks what is there and rebuilds.

  --no-build  set up only, build nothing (after adding a package to requirements.txt, say:
              then build the lesson you work on, `python build.py LESSON`)
  -h, --help  print this and do nothing else
USAGE
}

build=1
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "setup.sh: unknown option $arg (bash setup.sh --help lists them)" >&2; exit 2 ;;
  esac
done

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# 1. System packages: Chromium (for PDFs and browser tests), CJK and emoji fonts, poppler,
#    LibreOffice Impress (opens slides.pptx in the tests: PPTX → PDF).
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
fonts=$(fc-list : family 2>/dev/null || true)  # (grep -q on a pipe would trip pipefail)
grep -q "Noto Sans CJK" <<<"$fonts" || need+=(fonts-noto-cjk)
grep -qi "Noto Color Emoji" <<<"$fonts" || need+=(fonts-noto-color-emoji)
command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)
command -v soffice >/dev/null 2>&1 || need+=(libreoffice-impress)
command -v node >/dev/null 2>&1 || need+=(nodejs npm)
python=${PYTHON:-python3.11}
command -v "$python" >/dev/null 2>&1 || python=python3
command -v "$python" >/dev/null 2>&1 || need+=(python3)
"$python" -c "import ensurepip, venv" >/dev/null 2>&1 || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing system packages: ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    say "installing system packages with sudo: ${need[*]}"
    sudo DEBIAN_FRONTEND=noninteractive apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "missing system packages: ${need[*]}" >&2
    echo "install them with:  sudo apt-get install ${need[*]}" >&2
    for p in "${need[@]}"; do
      case "$p" in
        chromium|poppler-utils|fonts-noto-color-emoji|libreoffice-impress) ;;
        *) exit 1 ;;
      esac
    done
    echo "(continuing: Playwright's own Chromium will be tried instead of Debian's)" >&2
    export DECK_FETCH_BROWSER=1
  fi
fi

# 2. Python virtual environment with pinned packages (torch is a CPU wheel).
stamp=.venv/.requirements-sha256
want=$(cat requirements.txt requirements-nodeps.txt | sha256sum | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  say "creating .venv and installing Python packages"
  [ -x .venv/bin/python ] || "$python" -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -r requirements-nodeps.txt
  echo "$want" > "$stamp"
fi
if [ "${DECK_FETCH_BROWSER:-0}" = 1 ]; then
  .venv/bin/python -m playwright install chromium
fi

# 3. reveal.js and KaTeX from npm, exactly as locked.
lock=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.lock-sha256 2>/dev/null)" != "$lock" ]; then
  say "installing reveal.js and KaTeX (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock" > node_modules/.lock-sha256
fi

# 4. The engine's bytecode, written now even where PYTHONDONTWRITEBYTECODE is set (as on CI
#    machines): otherwise every build compiles deck/ from source again (0.1 s of each build).
.venv/bin/python -m compileall -q deck build.py >/dev/null

# 5. Build the slides.
if [ "$build" = 1 ]; then
  say "building the slides"
  .venv/bin/python build.py
  echo "open dist/index.html in a browser (the course page: every lesson, offline); the docs: .venv/bin/python build.py docs" >&2
fi
