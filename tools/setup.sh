#!/usr/bin/env bash
# Installs Sluice's dependencies from Debian 12 packages, makes the Python venv and builds.
# Idempotent: installed packages, an existing venv and an up-to-date build are reused.
set -euo pipefail
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1  # keep the SystemC banner out of builds, tests and reports
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

packages=(
  build-essential cmake pkg-config
  libsystemc-dev libboost-program-options-dev libyaml-cpp-dev nlohmann-json3-dev
  libgtest-dev pybind11-dev libsqlite3-dev nettle-dev git clang-format tshark verilator
  openmpi-bin libopenmpi-dev libmetis-dev
  python3 python3-dev python3-venv python3-numpy python3-pandas python3-matplotlib python3-pytest
  python3-dask python3-distributed python3-yaml python3-jinja2
  jupyter-notebook jupyter-nbconvert python3-ipykernel xvfb gtkwave
)

bash tools/apt_install.sh "${packages[@]}"

# Debian's python3 with its numpy/pandas/matplotlib (the default python3 may be another build).
if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv --system-site-packages .venv
fi
# The venv's Jupyter kernel (examples/*.ipynb): Debian's runs /usr/bin/python3, which does not read
# the venv's sluice.pth. Jupyter started as `.venv/bin/python -m notebook` finds this one first.
if [ ! -f .venv/share/jupyter/kernels/python3/kernel.json ]; then
  .venv/bin/python -m ipykernel install --prefix "$root/.venv" --name python3 --display-name "Python 3 (Sluice venv)" >/dev/null
fi

# Another build beside the default one (tools/test.sh --sanitize, --threads): SLUICE_BUILD_DIR
# names its folder, SLUICE_CMAKE_ARGS its configuration (-DCMAKE_BUILD_TYPE=Sanitize), and
# SLUICE_BUILD_TARGET, if set, the one target it builds.
build="${SLUICE_BUILD_DIR:-build}"
# The Python module is built for the venv's interpreter, and the venv finds the package and the
# built module through a .pth file (no PyPI, nothing installed into the venv); the default build's.
cmake -S . -B "$build" -DPython3_EXECUTABLE="$root/.venv/bin/python" ${SLUICE_CMAKE_ARGS:-} >/dev/null
if [ "$build" = build ]; then
  site="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  printf '%s\n' "$root/bindings/python" "$root/build/python" >"$site/sluice.pth"
fi
# The full build log goes to $build/build.log; on failure its tail is shown and setup fails.
echo "setup: building (log: $build/build.log)"
if ! cmake --build "$build" -j2 ${SLUICE_BUILD_TARGET:+--target "$SLUICE_BUILD_TARGET"} >"$build/build.log" 2>&1; then
  tail -n 40 "$build/build.log"
  echo "setup: build failed" >&2
  exit 1
fi
