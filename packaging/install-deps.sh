#!/usr/bin/env bash
# Installs the Debian 12 packages Graft needs to build, test and screenshot. PyTorch is not among
# them: it comes from the pinned wheel in .venv/ (packaging/setup-venv.sh).
# Idempotent: installs only what is missing; never prompts.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev qt6-svg-dev libqt6svg6 libxkbcommon-dev
  libgl1-mesa-dev
  libgraphviz-dev graphviz
  python3-venv libpython3.11
  xvfb xauth x11-apps imagemagick
  chromium
  desktop-file-utils appstream dpkg-dev file
  openssh-client openssh-server
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
