#!/usr/bin/env python3
"""Bandwidth recovery time of a link after a capacity restore, from a run's link_throughput.csv.

usage: tools/qcn_recovery.py OUT_DIR [--link sw0->sw1] [--after 4s-in-us] [--rate 10] [--frac 0.95]

Prints the time (ms) from --after until the first sample period in which the link carried at
least frac x rate Gb/s (the sample's value covers the period that ends at its time stamp, so the
result is rounded up to the sample period). Used for scenarios/qcn-og-hotspot*.yaml.
"""
import argparse
import csv
import sys

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--link", default="sw0->sw1")
ap.add_argument("--after", type=float, default=4e6, help="restore time, us")
ap.add_argument("--rate", type=float, default=10.0, help="restored capacity, Gb/s")
ap.add_argument("--frac", type=float, default=0.95)
a = ap.parse_args()
with open(f"{a.out}/link_throughput.csv") as f:
    for row in csv.DictReader(f):
        t = float(row["time_us"])
        if t > a.after and float(row[a.link]) >= a.frac * a.rate:
            print(f"{(t - a.after) / 1000:.1f}")
            sys.exit(0)
print("never")
