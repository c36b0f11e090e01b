#!/usr/bin/env python3
"""A GTKWave screenshot of a Sluice waveform, made headless: GTKWave draws on a virtual X display
(Debian's Xvfb) whose frame buffer is a file, read back and written as a PNG.

    tools/gtkwave_screenshot.py RUN.vcd VIEW.gtkw OUT.png     one view of one VCD
    tools/gtkwave_screenshot.py --docs build/platforms/sluice  the images of docs/observability.md

VIEW.gtkw is a GTKWave save file (the signals, their formats, the zoom and the window's [size],
which becomes the screen's); tools/gtkwave/ holds the docs' views, and `gtkwave RUN.vcd
VIEW.gtkw` opens the same view on a desktop. --docs runs the views' scenarios with the given
sluice into a temporary folder and writes docs/img/gtkwave-<view>.png. Needs Debian's xvfb and
gtkwave (tools/setup.sh installs both) and numpy and matplotlib (for the PNG).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
VIEWS = ROOT / "tools" / "gtkwave"
# The docs' views: the run whose VCD each shows (tools/gtkwave/<view>.gtkw names the signals).
DOCS_RUNS = {
    "tcd-victim-ib": ["scenarios/tcd-victim-ib.yaml", "--until", "2500us", "--trace",
                      "sw1.port16.prio3.queue_bytes,sw1.port16.prio3.cp_state,sw1.port16.prio3.marks,"
                      "sw0.port2.prio3.queue_bytes,sw0.port2.prio3.cp_state,sw0.port2.vl3.*"],
    "dumbbell-qcn": ["scenarios/dumbbell.yaml", "--cc", "qcn", "--until", "3ms", "--trace",
                     "sw0.port4.prio3.queue_bytes,sw0.port4.prio3.fb,h*.flow*.rate,h0.port0.prio3.paused"],
}
SETTLE_S, LIMIT_S = 1.5, 30  # the picture must stay the same this long; give up after LIMIT_S


def fail(message):
    sys.exit(f"gtkwave_screenshot: {message}")


def window_size(view):
    """The [size] line of a save file: GTKWave's window, made the whole screen here."""
    found = re.search(r"^\[size\]\s+(\d+)\s+(\d+)", view.read_text(), re.M)
    return (int(found[1]), int(found[2])) if found else (1400, 720)


def xwd_pixels(path):
    """The RGB pixels of Xvfb's frame buffer file (X Window Dump, 24-bit TrueColor, 32 bits a pixel)."""
    data = path.read_bytes()
    fields = np.frombuffer(data, dtype=">u4", count=25)
    header_size, width, height, byte_order = int(fields[0]), int(fields[4]), int(fields[5]), int(fields[7])
    bits_per_pixel, bytes_per_line, colors = int(fields[11]), int(fields[12]), int(fields[19])
    if bits_per_pixel != 32:
        fail(f"the frame buffer has {bits_per_pixel} bits a pixel, not 32 (Xvfb -screen 0 WxHx24)")
    rows = np.frombuffer(data, dtype=np.uint8, count=bytes_per_line * height, offset=header_size + 12 * colors)
    pixels = rows.reshape(height, bytes_per_line)[:, : 4 * width].reshape(height, width, 4)
    return np.ascontiguousarray(pixels[:, :, [2, 1, 0]] if byte_order == 0 else pixels[:, :, [1, 2, 3]])


def screenshot(vcd, view, out):
    for program, package in (("Xvfb", "xvfb"), ("gtkwave", "gtkwave")):
        if not shutil.which(program):
            fail(f"{program} is not installed (Debian: apt-get install {package}; tools/setup.sh installs it)")
    width, height = window_size(view)
    with tempfile.TemporaryDirectory(prefix="sluice-gtkwave-") as tmp:
        read_display, write_display = os.pipe()  # Xvfb picks a free display and writes its number here
        xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_display), "-screen", "0", f"{width}x{height}x24",
                                 "-fbdir", tmp, "-nolisten", "tcp"], pass_fds=(write_display,),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_display)
        gtkwave = None
        try:
            with os.fdopen(read_display) as f:
                display = f.readline().strip()
            if not display:
                fail("Xvfb did not start")
            log = open(Path(tmp) / "gtkwave.log", "w")
            # From the VCD's folder, so that the title bar names the file, not a temporary path.
            gtkwave = subprocess.Popen(["gtkwave", vcd.name, str(view.resolve())], cwd=vcd.resolve().parent,
                                       env=dict(os.environ, DISPLAY=f":{display}"), stdout=log, stderr=subprocess.STDOUT)
            pixels = settled(Path(tmp) / "Xvfb_screen0", gtkwave, Path(tmp) / "gtkwave.log")
        finally:
            for p in (gtkwave, xvfb):
                if p:
                    p.terminate()
                    p.wait()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.imsave(out, pixels, format="png", metadata={"Software": None})
    print(f"gtkwave_screenshot: {view.name} on {vcd.name}: {out} ({width}x{height})")


def settled(frame_buffer, gtkwave, log):
    """The screen once GTKWave has drawn: not one colour, and unchanged for SETTLE_S."""
    start, last, since = time.monotonic(), None, None
    while time.monotonic() - start < LIMIT_S:
        time.sleep(0.25)
        if gtkwave.poll() is not None:
            fail(f"gtkwave exited ({gtkwave.returncode}): {log.read_text().strip()[-300:]}")
        pixels = xwd_pixels(frame_buffer)
        if (pixels == pixels[0, 0]).all():
            continue
        if last is None or not np.array_equal(pixels, last):
            last, since = pixels, time.monotonic()
        elif time.monotonic() - since >= SETTLE_S:
            return pixels
    fail(f"gtkwave did not finish drawing within {LIMIT_S} s")


def docs(sluice):
    with tempfile.TemporaryDirectory(prefix="sluice-vcd-") as tmp:
        for name, args in DOCS_RUNS.items():
            vcd = Path(tmp) / f"{name}.vcd"
            subprocess.run([sluice, "run", str(ROOT / args[0]), *args[1:], "-q", "--vcd", str(vcd)], check=True,
                           env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
            screenshot(vcd, VIEWS / f"{name}.gtkw", ROOT / "docs" / "img" / f"gtkwave-{name}.png")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="RUN.vcd VIEW.gtkw OUT.png")
    ap.add_argument("--docs", metavar="SLUICE", help="regenerate docs/img/gtkwave-*.png with this sluice executable")
    args = ap.parse_args()
    if args.docs:
        return docs(args.docs)
    if len(args.files) != 3:
        ap.error("give RUN.vcd VIEW.gtkw OUT.png, or --docs SLUICE")
    vcd, view, out = (Path(f) for f in args.files)
    for f in (vcd, view):
        if not f.is_file():
            fail(f"no file '{f}'")
    screenshot(vcd, view, out)


if __name__ == "__main__":
    main()
