#!/usr/bin/env bash
# Formats (or with --check, verifies) every C++ source of the project with clang-format.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# regmaps/generated/: tools/regmap_gen.py's output, checked byte for byte against a regeneration.
mapfile -t files < <(git ls-files '*.cpp' '*.h' ':!regmaps/generated/*')
if [ "${1:-}" = "--check" ]; then
  clang-format --dry-run --Werror "${files[@]}"
else
  clang-format -i "${files[@]}"
fi
