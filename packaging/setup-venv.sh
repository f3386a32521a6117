#!/usr/bin/env bash
# Makes .venv/ in the repository root with the pinned torch, torchvision and transformers
# (packaging/requirements.txt) and the graft Python package (python/graft). Idempotent: installs
# nothing when .venv already has them.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$here/.venv"
req="$here/packaging/requirements.txt"
stamp="$venv/.graft-requirements"
# The graft Python package (python/graft) is pure Python: a .pth file puts it on the venv's path.
link_graft_package() {
  local site
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  echo "$here/python" > "$site/graft.pth"
}
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then
  link_graft_package
  echo "setup-venv: .venv is up to date"
  exit 0
fi
base="${GRAFT_BASE_PYTHON:-}"
if [ -z "$base" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then base="$candidate"; break; fi
  done
fi
[ -n "$base" ] || { echo "setup-venv: no python3.11 found (apt-get install python3.11-venv)" >&2; exit 2; }
[ -x "$venv/bin/python" ] || "$base" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
cp "$req" "$stamp"
link_graft_package
"$venv/bin/python" -c "import torch, torchvision, transformers; print('setup-venv: torch', torch.__version__, 'torchvision', torchvision.__version__, 'transformers', transformers.__version__)"
