#!/usr/bin/env python3
"""Draws bench_cpu's ratios (DIR/cpu.csv) as DIR/cpu.svg: per type and op, pclreduce on PoCL /
the OpenMP loop on all cores (blue) and the CPU reference / the OpenMP loop on one thread
(orange), with the 0.8 / 0.9 and 0.5 target lines. Plain SVG: no plotting package needed.
usage: python3 bench/plot_cpu.py DIR [DIR_BEFORE]   (with DIR_BEFORE: its pocl ratios in grey)"""
import csv, sys
from collections import OrderedDict


def ratios(d):
    t = OrderedDict()
    with open(d + "/cpu.csv") as f:
        for r in csv.DictReader(f):
            key = (r["type"], r["op"] + ("-wide" if r["accumulate"] == "wide" else ""))
            t.setdefault(key, {})[r["impl"]] = float(r["median_ms"])
    out = OrderedDict()
    for k, v in t.items():
        p = v["omp"] / v["pocl"] if "pocl" in v and "omp" in v else 0
        q = v["omp1"] / v["ref"] if "ref" in v and "omp1" in v else 0
        out[k] = (p, q)
    return out


def main():
    d = sys.argv[1]
    now = ratios(d)
    before = ratios(sys.argv[2]) if len(sys.argv) > 2 else {}
    keys = list(now)
    bw, gap, h, top = 6, 6, 300, 1.6
    w = 60 + len(keys) * (3 * bw + gap)
    y = lambda v: 20 + h - min(v, top) / top * h
    s = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="9">' % (w, h + 130)]
    for v, col in ((0.5, "#c60"), (0.8, "#36c"), (0.9, "#36c"), (1.0, "#000")):
        s.append('<line x1="50" x2="%d" y1="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="3,3"/>' % (w, y(v), y(v), col))
        s.append('<text x="2" y="%.1f">%.1f</text>' % (y(v) + 3, v))
    for i, k in enumerate(keys):
        x = 55 + i * (3 * bw + gap)
        bars = [(before.get(k, (0, 0))[0], "#aaa"), (now[k][0], "#36c"), (now[k][1], "#c60")]
        for j, (v, col) in enumerate(bars):
            if v > 0:
                s.append('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="%s"><title>%s %s %.2f</title></rect>'
                         % (x + j * bw, y(v), bw, 20 + h - y(v), col, k[0], k[1], v))
        s.append('<text transform="translate(%d,%d) rotate(60)">%s %s</text>' % (x + 4, h + 26, k[0], k[1]))
    s.append('<text x="55" y="12">speed ratio: blue PoCL / OpenMP (all cores), orange CPU reference / OpenMP (one thread)%s; capped at %.1f</text>'
             % (", grey PoCL before" if before else "", top))
    s.append("</svg>")
    open(d + "/cpu.svg", "w").write("\n".join(s) + "\n")
    print("wrote %s/cpu.svg" % d)


main()
