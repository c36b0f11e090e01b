#!/usr/bin/env python3
"""The worked notebook of examples/ executes headless and shows what it must (a CTest test).

    notebook_test.py NOTEBOOK.ipynb BUILD_PYTHON_DIR

Copies the notebook into a temporary folder, executes it there with Debian's nbconvert
(`python3 -m nbconvert --to notebook --execute`, a kernel of this interpreter's python3 seeing
PYTHONPATH), then checks the executed copy: every code cell ran without an error, the native
module came from BUILD_PYTHON_DIR, the printed results are the study's (48 hosts, no drop, the
uplinks full at 800 Gb/s without congestion control, 6 sweep points in the store, a report with 6
embedded plots and no external reference), the figures are PNGs, and the committed notebook
holds no outputs. Exit status 77 (skipped) when nbconvert or ipykernel is not installed.
"""
import base64
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SKIPPED = 77
TIMEOUT_S = 180  # the notebook takes about 10 s
EXPECTED = [  # regular expressions over the printed text, in the notebook's order
    r"native module {build}/_sluice\.",
    r"48 hosts, 6 switches, 48 flows",
    r"drops 0 \(lossless 0\), PFC frames [1-9]\d+",
    r"congestion tree: up to [1-9]\d* paused ports",
    r"leaf uplinks: 8, mean utilization 0\.99\d",
    r"goodput \(after 200 us\): 800\.0 Gb/s of 2400 offered",
    r"the last data frame of flow 0: [1-4] transmissions, [\d.]+ us end to end",
    r"sweep: 6 points, 0 failed",
    r"goodput without congestion control: 800\.0, 800\.0, 800\.0 Gb/s",
    r"store: 6 runs in study\.sqlite",
    r"report\.html: \d+ KiB, 6 embedded plots, external references: 0",
]


def fail(message):
    print(f"notebook_test: {message}")
    sys.exit(1)


def main():
    notebook, build_python = Path(sys.argv[1]), Path(sys.argv[2]).resolve()
    for module, package in (("nbconvert", "jupyter-nbconvert"), ("ipykernel", "python3-ipykernel")):
        if importlib.util.find_spec(module) is None:
            print(f"notebook_test: skipped: {module} is not installed (Debian: {package}; tools/setup.sh installs it)")
            sys.exit(SKIPPED)
    committed = json.loads(notebook.read_text())
    for cell in committed["cells"]:
        if cell["cell_type"] == "code" and (cell["outputs"] or cell["execution_count"] is not None):
            fail(f"{notebook.name} is committed with outputs (clear them: nbconvert --clear-output)")
    work = Path(tempfile.mkdtemp(prefix="sluice-notebook-"))
    try:
        shutil.copy(notebook, work / notebook.name)
        env = dict(os.environ, SLUICE_NOTEBOOK_OUT=str(work / "out"))
        try:
            done = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute",
                                   f"--ExecutePreprocessor.timeout={TIMEOUT_S}", "--output", "executed.ipynb",
                                   notebook.name], cwd=work, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            fail(f"not done in {TIMEOUT_S} s")
        executed = work / "executed.ipynb"
        if done.returncode != 0 or not executed.exists():
            fail(f"nbconvert failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
        check(json.loads(executed.read_text()), build_python, work / "out")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("notebook_test: ok")


def check(nb, build_python, out):
    text, pngs = [], 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        if cell["execution_count"] is None:
            fail(f"a cell did not run: {cell['source'][:60]!r}")
        for o in cell["outputs"]:
            if o["output_type"] == "error":
                fail(f"a cell raised {o['ename']}: {o['evalue']}")
            if o["output_type"] == "stream" and o["name"] == "stdout":
                text.append("".join(o["text"]))  # a list of lines in the file
            if "image/png" in o.get("data", {}):
                if not base64.b64decode("".join(o["data"]["image/png"])).startswith(b"\x89PNG"):
                    fail("a figure is not a PNG")
                pngs += 1
    printed = "".join(text)
    at = 0
    for pattern in EXPECTED:
        found = re.compile(pattern.format(build=re.escape(str(build_python)))).search(printed, at)
        if not found:
            fail(f"the notebook did not print /{pattern}/ (after offset {at}); it printed:\n{printed}")
        at = found.end()
    if pngs < 2:
        fail(f"{pngs} figures, expected the PAUSE timeline and buffer, and the sweep's plot")
    for f in ("study.sqlite", "report.html"):
        if not (out / f).is_file():
            fail(f"no {f} in $SLUICE_NOTEBOOK_OUT")


if __name__ == "__main__":
    main()
