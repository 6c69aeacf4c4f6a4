#!/usr/bin/env bash
# Installs the Debian 12 packages fx-mlir needs. Idempotent: silent and
# immediate when everything is already installed.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ git clang-format
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libomp-22-dev
  libtorch-dev python3-torch python3-torchvision python3-numpy
  python3-dev pybind11-dev zlib1g-dev
  python3-tabulate python3-pytest python3-matplotlib python3-psutil
  libopenblas0-openmp
  clang-22 libclang-rt-22-dev libfuzzer-22-dev
)

missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "fx-mlir: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
  --no-install-recommends "${missing[@]}" > /dev/null
