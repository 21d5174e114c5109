#!/usr/bin/env bash
# Sets up the comparison side of the benchmark (bench/build.py): `jupyter nbconvert` in its own
# environment, bench/.venv, which is not a project dependency. Run once after the project's own
# `bash setup.sh`; run again, it only checks.
#
#   bench/.venv            nbconvert, ipykernel, jupytext, pinned in requirements-nbconvert.txt;
#                          a .pth file makes the project .venv's packages (torch, numpy,
#                          matplotlib) importable there, so torch is not installed twice
#   bench/.venv/web        what nbconvert's slides load from CDNs (require.js, jQuery, reveal.js,
#                          MathJax) at the versions nbconvert names, from npm: the machine has no
#                          other network, so the benchmark's browser is served these files instead
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
venv=$here/.venv

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

project_python=$root/.venv/bin/python
if [ ! -x "$project_python" ]; then
  echo "no project .venv: run \`bash $root/setup.sh --no-build\` first" >&2
  exit 1
fi

# 1. The venv, on the project's interpreter (torch's wheels are for that Python version).
stamp=$venv/.requirements-sha256
want=$(sha256sum "$here/requirements-nbconvert.txt" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  say "creating bench/.venv with nbconvert, ipykernel and jupytext"
  [ -x "$venv/bin/python" ] || "$project_python" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    -r "$here/requirements-nbconvert.txt"
  echo "$want" > "$stamp"
fi

# 2. The project's packages, after bench/.venv's own on sys.path (a .pth line is appended).
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
"$project_python" -c '
import sysconfig
paths = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
print("\n".join(paths))' > "$site/deck-project-venv.pth"
"$venv/bin/python" -c 'import torch, numpy, matplotlib, nbconvert, ipykernel, jupytext' || {
  echo "bench/.venv cannot import the kernel's packages (see above)" >&2
  exit 1
}

# 3. nbconvert's web dependencies at the versions its templates name (jQuery 2.0.3 is not on
#    npm: 2.1.0 is the nearest).
web=$venv/web
packages=(reveal.js@4.0.2 requirejs@2.1.10 mathjax@2.7.7 jquery@2.1.0)
if [ "$(cat "$web/.packages" 2>/dev/null)" != "${packages[*]}" ]; then
  say "installing nbconvert's slide assets into bench/.venv/web (npm)"
  mkdir -p "$web"
  npm install --prefix "$web" --no-save --no-package-lock --no-audit --no-fund \
    --loglevel=error "${packages[@]}"
  echo "${packages[*]}" > "$web/.packages"
fi

say "ready: .venv/bin/python bench/build.py"
