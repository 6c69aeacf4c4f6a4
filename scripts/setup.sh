#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the main demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
scripts/demo.sh
