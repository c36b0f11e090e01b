#!/usr/bin/env python3
"""The fixed point of DCQCN's fluid model (Zhu, Ghobadi, Misra, Padhye, "ECN or Delay",
CoNEXT'16, Theorem 1) for N flows at C/N: p* and q* = Kmin + p*/Pmax (Kmax - Kmin).
The same computation as tests/support/dcqcn_fluid.h; the table in docs/models/dcqcn.md.

    .venv/bin/python tools/dcqcn_fluid.py --gbps 40 100 --flows 2 4 8 16
"""
import argparse
import math


def fixed_point(c_bps, n, s=1000, kmin=5000, kmax=200000, pmax=0.01, tau=50e-6, tau_p=55e-6, t=55e-6, b=10e6, f=5,
                rai=40e6, holdoff=False):
    """holdoff: with the CNP hold-off of the paper's NP and RP (tests/support/dcqcn_fluid.h)."""
    rc = c_bps / n / (8 * s)  # packets/s per flow
    b_pk, rai_pk = b / s, rai / (8 * s)

    def excess(p_mark):
        r = p_mark * rc / (1 + p_mark * rc * tau)  # CNPs per second with the hold-off
        p = r / rc if holdoff else p_mark
        q = 1 - p
        if holdoff:
            a, alpha = r * tau, r * tau_p / (1 + r * tau_p)
        else:
            a, alpha = 1 - q ** (tau * rc), 1 - q ** (tau_p * rc)
        bb = p / (q ** -b_pk - 1)
        cc = q ** (f * b_pk) * bb
        d = p / (q ** (-t * rc) - 1)
        e = q ** (f * t * rc) * d
        return a * a * alpha / ((bb + d) * (cc + e)) - tau * tau * rai_pk * rc

    lo, hi = 1e-12, 0.5
    for _ in range(200):  # the left side grows with p (the paper's proof): bisect
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if excess(mid) > 0 else (mid, hi)
    p = math.sqrt(lo * hi)
    return p, kmin + min(p, pmax) / pmax * (kmax - kmin)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gbps", type=float, nargs="+", default=[40, 100])
    ap.add_argument("--flows", type=int, nargs="+", default=[2, 4, 8, 16])
    ap.add_argument("--frame", type=float, default=1000, help="wire bytes per frame")
    args = ap.parse_args()
    print("C_Gbps  N  p*         q*_bytes  marks_per_tau  with the CNP hold-off: p  q_bytes  (q-Kmin)/(q*-Kmin)")
    for c in args.gbps:
        for n in args.flows:
            p, q = fixed_point(c * 1e9, n, s=args.frame)
            ph, qh = fixed_point(c * 1e9, n, s=args.frame, holdoff=True)
            print(f"{c:6.0f} {n:2d}  {p:.6f}  {q:9.0f}  {c * 1e9 / n / (8 * args.frame) * p * 50e-6:.3f}"
                  f"          {ph:.6f}  {qh:7.0f}  {(qh - 5000) / (q - 5000):.3f}")


if __name__ == "__main__":
    main()
