#!/usr/bin/env bash
# Builds the .deb from a configured build folder, unpacks it into a scratch root (no install,
# no chroot), runs the unpacked graft-cli, and validates the shipped desktop files.
# The package finds torch in the user's Python environment: here, GRAFT_PYTHON (the venv's).
# Usage: GRAFT_PYTHON=.venv/bin/python packaging/check-deb.sh BUILD_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

(cd "$build" && cpack --config CPackConfig.cmake -B "$scratch/out" >/dev/null)
deb="$(ls "$scratch"/out/graft_*.deb)"
echo "built $(basename "$deb") ($(du -h "$deb" | cut -f1))"
dpkg-deb --field "$deb" Depends | tr ',' '\n' | grep -q libqt6widgets6 || { echo "FAIL: Depends lacks Qt"; exit 1; }
dpkg -x "$deb" "$scratch/root"
for f in usr/bin/graft usr/bin/graft-cli usr/lib/graft/graft usr/lib/graft/graft-cli usr/share/applications/io.github.graft.Graft.desktop \
         usr/share/metainfo/io.github.graft.Graft.metainfo.xml usr/share/mime/packages/graft.xml \
         usr/share/icons/hicolor/scalable/apps/io.github.graft.Graft.svg usr/share/doc/graft/copyright; do
  [ -e "$scratch/root/$f" ] || { echo "FAIL: $f missing from the package"; exit 1; }
done
export GRAFT_PYTHON="${GRAFT_PYTHON:-$src/.venv/bin/python}"
out="$("$scratch/root/usr/bin/graft-cli" info --sample cnn --json)"
echo "$out" | grep -q '"ops": 23' || { echo "FAIL: installed graft-cli info --sample cnn gave: $out"; exit 1; }
"$scratch/root/usr/bin/graft-cli" --version
# A torch of another version is refused with a message naming both versions.
mkdir -p "$scratch/oldtorch/lib" && touch "$scratch/oldtorch/lib/libtorch_cpu.so"
echo "__version__ = '2.0.0'" > "$scratch/oldtorch/version.py"
if msg="$(GRAFT_TORCH_DIR="$scratch/oldtorch" "$scratch/root/usr/bin/graft-cli" info --sample cnn 2>&1)"; then
  echo "FAIL: a mismatched torch was accepted"; exit 1
fi
echo "$msg" | grep -q "2.0.0" || { echo "FAIL: mismatch message: $msg"; exit 1; }
echo "mismatch refused: $msg"
QT_QPA_PLATFORM=offscreen "$scratch/root/usr/bin/graft" --version
desktop-file-validate "$scratch/root/usr/share/applications/io.github.graft.Graft.desktop"
appstreamcli validate --no-net --pedantic "$scratch/root/usr/share/metainfo/io.github.graft.Graft.metainfo.xml"
# The shipped MIME database compiles, and its magic tells a TorchScript archive from a state_dict.
mkdir -p "$scratch/mime/packages" && cp "$scratch/root/usr/share/mime/packages/graft.xml" "$scratch/mime/packages/"
update-mime-database "$scratch/mime"
grep -q "application/x-torchscript" "$scratch/mime/magic" || { echo "FAIL: MIME magic not compiled"; exit 1; }
echo "package check passed"
