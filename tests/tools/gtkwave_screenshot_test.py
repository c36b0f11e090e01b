#!/usr/bin/env python3
"""tools/gtkwave_screenshot.py draws a Sluice VCD in GTKWave headless (a CTest test).

    gtkwave_screenshot_test.py SLUICE

Runs the QCN dumbbell for 3 ms with the signals of tools/gtkwave/dumbbell-qcn.gtkw, screenshots
that view, and checks the PNG: the view's size, GTKWave's black waves pane, and green waveform
pixels across most of its width (every signal drawn). Exit status 77 (skipped) without Xvfb or
gtkwave.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.image
import numpy as np

SKIPPED = 77
ROOT = Path(__file__).resolve().parents[2]
VIEW = ROOT / "tools" / "gtkwave" / "dumbbell-qcn.gtkw"


def fail(message):
    print(f"gtkwave_screenshot_test: {message}")
    sys.exit(1)


def main():
    for program in ("Xvfb", "gtkwave"):
        if not shutil.which(program):
            print(f"gtkwave_screenshot_test: skipped: {program} is not installed (tools/setup.sh installs it)")
            sys.exit(SKIPPED)
    with tempfile.TemporaryDirectory(prefix="sluice-gtkwave-test-") as tmp:
        vcd, png = Path(tmp) / "dumbbell-qcn.vcd", Path(tmp) / "view.png"
        subprocess.run([sys.argv[1], "run", str(ROOT / "scenarios/dumbbell.yaml"), "--cc", "qcn", "--until", "3ms",
                        "-q", "--vcd", str(vcd), "--trace", "sw0.port4.prio3.queue_bytes,sw0.port4.prio3.fb,h*.flow*.rate"],
                       check=True, env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
        done = subprocess.run([sys.executable, str(ROOT / "tools" / "gtkwave_screenshot.py"), str(vcd), str(VIEW), str(png)],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            fail(f"the script failed: {done.stderr.strip() or done.stdout.strip()}")
        pixels = (matplotlib.image.imread(png)[:, :, :3] * 255).round().astype(int)
    if pixels.shape[:2] != (440, 1400):
        fail(f"{pixels.shape[1]}x{pixels.shape[0]} pixels, not the view's [size] 1400x440")
    black = (pixels == 0).all(axis=2).mean()
    green = (pixels[:, :, 1] > 200) & (pixels[:, :, 0] < 80) & (pixels[:, :, 2] < 80)
    columns = np.unique(np.nonzero(green)[1]).size
    if black < 0.3 or columns < 600:
        fail(f"no waveforms drawn: {black:.0%} black, green in {columns} columns")
    print(f"gtkwave_screenshot_test: ok ({black:.0%} black, waveforms in {columns} columns)")


if __name__ == "__main__":
    main()
