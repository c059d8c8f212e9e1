#!/usr/bin/env python3
"""Plots and tables for one or more benchmark result folders.

usage: python3 bench/plot.py DIR [DIR ...] [--ref DIR]

Each DIR holds what bench_cuda / bench_cl wrote (bench_*.csv, study_*.csv,
device_*.txt). Writes into the same DIR:
  bench_<backend>_kernel.png     GB/s from the kernel time vs n, one panel per type/op
  bench_<backend>_pipelined.png  the same from the pipelined time
  bench_<backend>_blocking.png   blocking latency (us) vs n
  bench_<backend>_ratio.png      baseline time / pclreduce time for the three timings
  bench_<backend>_efficiency.png read-kernel time / time, pipelined (the efficiency column), vs n
  study_<backend>.png            the PCL-Reduction study (granularity, in-group, global-stride-only)
  vocab_<backend>.png            % of the read kernel per type and op at the largest n (vocabulary run)
  rows_<backend>.png             rows/columns (bench_rows): % of the read kernel and time / CUB's vs row length
  README.md                      device, tables with the three timings, ratios vs the baseline, and
                                 for the vocabulary run (vocab_*.csv) one table per target, met/missed

The baseline is CUB (bench_cuda), the OpenMP loop (bench_cl on a CPU), or,
with --ref DIR, the CUB rows of another folder (e.g. the CUDA results of the
same GPU next to its NVIDIA OpenCL results). Ratios are baseline time / time:
above 1 means faster than the baseline.
"""
import argparse
import csv
import glob
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TYPES = ["uint", "int", "float", "double"]
OPS = ["sum", "min", "max"]
TIMINGS = [("kernel_us", "kernel"), ("pipelined_us", "pipelined"), ("blocking_us", "blocking")]


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return math.nan
    return v


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_device(folder):
    info = {}
    for path in sorted(glob.glob(os.path.join(folder, "device_*.txt"))):
        with open(path) as f:
            info[os.path.basename(path)[len("device_"):-4]] = f.read().strip()
    return info


def ok(row):
    return row.get("status", "").startswith("ok")


def impl_order(names):
    """Baselines first, pclreduce next, tuned configs, limits last."""
    def key(n):
        if n.startswith("cub") or n.startswith("omp"):
            return (0, n)
        if n.startswith("pclreduce"):
            return (1, n)
        if n.startswith("pclr"):
            return (2, n)
        if "limit" in n:
            return (4, n)
        return (3, n)
    return sorted(set(names), key=key)


def style(name):
    if "limit" in name:
        return dict(color="0.5", linestyle="--", marker="")
    if name.startswith("cub") or name.startswith("omp"):
        return dict(linestyle="-", marker="s", markersize=3)
    return dict(linestyle="-", marker="o", markersize=3)


def gbps(row, col):
    us = num(row[col])
    return num(row["bytes"]) / us / 1e3 if us > 0 else math.nan


def sweep_plot(rows, backend, title, path, col, as_latency):
    keys = [(t, o) for t in TYPES for o in OPS if any(r["type"] == t and r["op"] == o for r in rows)]
    types = [t for t in TYPES if any(k[0] == t for k in keys)]
    ops = [o for o in OPS if any(k[1] == o for k in keys)]
    if not keys:
        return False
    fig, axes = plt.subplots(len(types), len(ops), figsize=(4.2 * len(ops), 3.0 * len(types)), squeeze=False)
    for i, t in enumerate(types):
        for j, o in enumerate(ops):
            ax = axes[i][j]
            sel = [r for r in rows if r["type"] == t and r["op"] == o and ok(r)]
            for name in impl_order(r["impl"] for r in sel):
                pts = sorted((int(r["log2n"]), num(r[col]) if as_latency else gbps(r, col)) for r in sel if r["impl"] == name)
                pts = [p for p in pts if not math.isnan(p[1])]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], label=name, **style(name))
            ax.set_title(f"{t} {o}", fontsize=10)
            lgs = sorted({int(r["log2n"]) for r in sel})
            if lgs:
                ticks = list(range(lgs[0], lgs[-1] + 1, 2 if lgs[-1] - lgs[0] <= 20 else 4))
                ax.set_xticks(ticks)
                ax.set_xticklabels([f"$2^{{{k}}}$" for k in ticks], fontsize=8)
            ax.set_xlabel("n")
            ax.set_ylabel("us per call" if as_latency else "GB/s")
            if as_latency:
                ax.set_yscale("log")
            ax.grid(True, alpha=0.3)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def ratio_plot(rows, baseline, title, path):
    """baseline time / pclreduce time per timing: the "do we beat it" picture."""
    keys = [(t, o) for t in TYPES for o in OPS if any(r["type"] == t and r["op"] == o for r in rows)]
    types = [t for t in TYPES if any(k[0] == t for k in keys)]
    ops = [o for o in OPS if any(k[1] == o for k in keys)]
    by = {(r["type"], r["op"], int(r["log2n"]), r["impl"]): r for r in rows if ok(r)}
    mine = [n for n in impl_order(r["impl"] for r in rows) if n.startswith("pclr") and "(" not in n]
    if not keys or not baseline or not mine:
        return False
    fig, axes = plt.subplots(len(types), len(ops), figsize=(4.2 * len(ops), 3.0 * len(types)), squeeze=False)
    for i, t in enumerate(types):
        for j, o in enumerate(ops):
            ax = axes[i][j]
            lgs = sorted({int(r["log2n"]) for r in rows if r["type"] == t and r["op"] == o})
            for name in mine:
                for col, label in TIMINGS:
                    pts = []
                    for lg in lgs:
                        a, b = by.get((t, o, lg, baseline)), by.get((t, o, lg, name))
                        if a and b and num(b[col]) > 0:
                            pts.append((lg, num(a[col]) / num(b[col])))
                    pts = [p for p in pts if not math.isnan(p[1])]
                    if pts:
                        lbl = label if len(mine) == 1 else f"{name} {label}"
                        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=lbl)
            ax.axhline(1.0, color="0.3", linewidth=0.8)
            ax.set_title(f"{t} {o}", fontsize=10)
            ax.set_xlabel("log2 n")
            ax.set_ylabel(f"{baseline} time / time")
            ax.grid(True, alpha=0.3)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def study_plot(rows, title, path):
    panels = [("granularity", "unroll", "unroll (x vector width = elements in flight per work-item)"),
              ("ingroup", "unroll", "unroll (scalar loads, 64 groups per unit)"),
              ("gso", "elems_per_item", "elements per work-item (grid from 1 to 64 groups per unit)")]
    panels = [p for p in panels if any(r["study"] == p[0] for r in rows)]
    if not panels:
        return False
    fig, axes = plt.subplots(1, len(panels), figsize=(5.0 * len(panels), 3.6), squeeze=False)
    for ax, (study, xcol, xlabel) in zip(axes[0], panels):
        sel = [r for r in rows if r["study"] == study and ok(r)]
        for series in dict.fromkeys(r["series"] for r in sel):
            pts = sorted((num(r[xcol]), num(r["kernel_us"])) for r in sel if r["series"] == series)
            pts = [p for p in pts if p[0] > 0 and not math.isnan(p[1])]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=series)
        ax.set_xscale("log", base=2)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel("kernel time (us)")
        ax.set_title(study, fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def fmt(v, digits=2):
    return "–" if v is None or math.isnan(v) else f"{v:.{digits}f}"


def geomean(vals):
    vals = [v for v in vals if v > 0 and not math.isnan(v)]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else math.nan


def sweep_markdown(rows, baseline, out):
    impls = impl_order(r["impl"] for r in rows)
    mine = [n for n in impls if n.startswith("pclr") and "(" not in n]
    by = {}
    for r in rows:
        by[(r["type"], r["op"], int(r["log2n"]), r["impl"])] = r
    keys = [(t, o) for t in TYPES for o in OPS if any(r["type"] == t and r["op"] == o for r in rows)]

    def ratio(t, o, lg, name, col):
        a, b = by.get((t, o, lg, baseline)), by.get((t, o, lg, name))
        if not a or not b or not ok(a) or not ok(b):
            return math.nan
        x, y = num(a[col]), num(b[col])
        return x / y if y > 0 else math.nan

    fails = [r for r in rows if not ok(r)]
    if fails:
        out.append(f"**{len(fails)} failed point(s):**\n")
        for r in fails:
            out.append(f"- {r['type']} {r['op']} 2^{r['log2n']} {r['impl']}: {r['status']}")
        out.append("")
    if baseline and mine:
        out.append(f"### Summary: {baseline} time / pclreduce time (above 1 = pclreduce faster)\n")
        out.append("Geometric mean over n, and the worst n.\n")
        head = "| type | op | impl | " + " | ".join(f"{lbl} mean | {lbl} worst" for _, lbl in TIMINGS) + " |"
        out.append(head)
        out.append("|" + " --- |" * (3 + 2 * len(TIMINGS)))
        for t, o in keys:
            lgs = sorted({int(r["log2n"]) for r in rows if r["type"] == t and r["op"] == o})
            for name in mine:
                cells = []
                for col, _ in TIMINGS:
                    rs = [(ratio(t, o, lg, name, col), lg) for lg in lgs]
                    rs = [x for x in rs if not math.isnan(x[0])]
                    if rs:
                        worst = min(rs)
                        cells += [fmt(geomean([x[0] for x in rs])), f"{fmt(worst[0])} (2^{worst[1]})"]
                    else:
                        cells += ["–", "–"]
                out.append(f"| {t} | {o} | {name} | " + " | ".join(cells) + " |")
        out.append("")
    out.append("### All points\n")
    out.append("Cells: kernel / pipelined / blocking, microseconds per call (median); GB/s from the kernel time.\n")
    for t, o in keys:
        lgs = sorted({int(r["log2n"]) for r in rows if r["type"] == t and r["op"] == o})
        present = [n for n in impls if any((t, o, lg, n) in by for lg in lgs)]
        out.append(f"#### {t} {o}\n")
        head = "| n | " + " | ".join(f"{n} (us)" for n in present) + " | " + " | ".join(f"{n} GB/s" for n in present)
        ratio_cols = [n for n in present if n in mine] if baseline in present else []
        head += "".join(f" | {n} vs {baseline}" for n in ratio_cols) + " |"
        out.append(head)
        out.append("|" + " --- |" * (1 + 2 * len(present) + len(ratio_cols)))
        for lg in lgs:
            cells = [f"2^{lg}"]
            for n in present:
                r = by.get((t, o, lg, n))
                if not r:
                    cells.append("")
                elif not ok(r):
                    cells.append("FAIL")
                else:
                    cells.append(" / ".join(fmt(num(r[c])) for c, _ in TIMINGS))
            for n in present:
                r = by.get((t, o, lg, n))
                cells.append(fmt(gbps(r, "kernel_us"), 0) if r and ok(r) else "")
            for n in ratio_cols:
                cells.append(" / ".join(fmt(ratio(t, o, lg, n, c)) for c, _ in TIMINGS))
            out.append("| " + " | ".join(cells) + " |")
        out.append("")


def study_markdown(rows, out):
    out.append("| study | series | stride | variant | unroll | vector | groups/unit | groups | elems/item | kernel us | GB/s | status |")
    out.append("|" + " --- |" * 12)
    for r in rows:
        out.append("| " + " | ".join([r["study"], r["series"], r["stride"], r["variant"], r["unroll"], r["vector"],
                                       r["groups_per_unit"], r["groups"], r["elems_per_item"], fmt(num(r["kernel_us"])),
                                       fmt(num(r["gbps"]), 0), r["status"]]) + " |")
    out.append("")


# ------------------------------------------------------------ the vocabulary run (vocab_*.csv)
VTYPES = ["uint8", "int8", "uint16", "int16", "uint", "int", "uint64", "int64", "half", "float", "double"]
VOPS = ["sum", "min", "max", "argmin", "argmax", "minmax", "stats", "count"]
VACCS = ["native", "wide", "compensated", "-"]
READ_TARGET, STATS_READ_TARGET = 0.97, 0.95
ARG_TARGET, STATS_CUB_TARGET, U8_CUB_TARGET, OMP_TARGET = 0.90, 0.40, 1.00, 0.80


def verdict(ok_):
    return "–" if ok_ is None else ("met" if ok_ else "**missed**")


def vkey(r):
    return (VTYPES.index(r["type"]) if r["type"] in VTYPES else 99, VOPS.index(r["op"]) if r["op"] in VOPS else 99,
            VACCS.index(r["accumulate"]) if r["accumulate"] in VACCS else 99, int(r["log2n"]))


def opname(r):
    return r["op"] if r["accumulate"] in ("-", "") else f"{r['op']} ({r['accumulate']})"


def vocab_plot(rows, title, path):
    """% of the read kernel at each type's largest n: a type x op(accumulate) grid."""
    mine = [r for r in rows if r["impl"] == "pclreduce" and ok(r) and num(r["of_read"]) > 0]
    if not mine:
        return False
    top = {}
    for r in mine:
        top[r["type"]] = max(top.get(r["type"], 0), int(r["log2n"]))
    sel = [r for r in mine if int(r["log2n"]) == top[r["type"]]]
    types = [t for t in VTYPES if any(r["type"] == t for r in sel)]
    cols = sorted({(r["op"], r["accumulate"]) for r in sel}, key=lambda c: (VOPS.index(c[0]) if c[0] in VOPS else 99,
                                                                             VACCS.index(c[1]) if c[1] in VACCS else 99))
    grid = [[math.nan] * len(cols) for _ in types]
    for r in sel:
        grid[types.index(r["type"])][cols.index((r["op"], r["accumulate"]))] = 100 * num(r["of_read"])
    fig, ax = plt.subplots(figsize=(1.0 + 0.75 * len(cols), 1.0 + 0.42 * len(types)))
    im = ax.imshow(grid, cmap="RdYlGn", vmin=50, vmax=100, aspect="auto")
    for i in range(len(types)):
        for j in range(len(cols)):
            if not math.isnan(grid[i][j]):
                ax.text(j, i, f"{grid[i][j]:.0f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([o if a == "-" else f"{o}\n{a[:4]}" for o, a in cols], fontsize=7)
    ax.set_yticks(range(len(types)))
    ax.set_yticklabels([f"{t} 2^{top[t]}" for t in types], fontsize=7)
    fig.colorbar(im, ax=ax, label="% of read kernel")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def vocab_markdown(rows, backend, out):
    mine = sorted([r for r in rows if r["impl"] == "pclreduce"], key=vkey)
    fails = [r for r in rows if not ok(r)]
    if fails:
        out.append(f"**{len(fails)} failed point(s):**\n")
        for r in sorted(fails, key=vkey):
            out.append(f"- {r['type']} {opname(r)} 2^{r['log2n']} {r['impl']}: {r['status']}")
        out.append("")
    good = [r for r in mine if ok(r)]

    # 1. every type/op at the largest n vs the read kernel
    top = {}
    for r in good:
        top[r["type"]] = max(top.get(r["type"], 0), int(r["log2n"]))
    sel = [r for r in good if int(r["log2n"]) == top[r["type"]]]
    if sel:
        met = sum(1 for r in sel if num(r["of_read"]) >= (STATS_READ_TARGET if r["op"] == "stats" else READ_TARGET))
        out.append("### type/op at 2^28 (2^27 for 8-byte types): GB/s, % of read kernel\n")
        out.append(f"Target: pclreduce's kernel time reaches >= {READ_TARGET:.0%} of the read kernel's bandwidth over the same "
                   f"bytes (stats >= {STATS_READ_TARGET:.0%}) at each type's largest n. **{met} of {len(sel)} met.**"
                   + (" (This device's largest n is below 2^28: indicative only.)" if any(int(r["log2n"]) < 27 for r in sel) else "")
                   + "\n")
        out.append("| type | op | accumulate | n | kernel us | GB/s | read GB/s | % of read | target | |")
        out.append("|" + " --- |" * 10)
        for r in sel:
            tgt = STATS_READ_TARGET if r["op"] == "stats" else READ_TARGET
            frac = num(r["of_read"])
            rg = num(r["bytes"]) / num(r["read_kernel_us"]) / 1e3 if num(r["read_kernel_us"]) > 0 else math.nan
            out.append(f"| {r['type']} | {r['op']} | {r['accumulate']} | 2^{r['log2n']} | {fmt(num(r['kernel_us']))} | "
                       f"{fmt(gbps(r, 'kernel_us'), 0)} | {fmt(rg, 0)} | {fmt(100 * frac, 1)} | >= {tgt:.0%} | "
                       f"{verdict(None if math.isnan(frac) else frac >= tgt)} |")
        out.append("")

    def anchored(pred, title, target_text, short, test, note=""):
        sel = [r for r in good if pred(r) and num(r["anchor_kernel_us"]) > 0]
        if not sel:
            return
        judged = [r for r in sel if test(r) is not None]
        met = sum(1 for r in judged if test(r))
        out.append(f"### {title}\n")
        out.append(f"Target: {target_text}. **{met} of {len(judged)} met.**{note}\n")
        out.append("| type | op | accumulate | n | pclreduce us | anchor | anchor us | time / anchor time (kernel) | (pipelined) | target | |")
        out.append("|" + " --- |" * 11)
        for r in sel:
            k = num(r["kernel_us"]) / num(r["anchor_kernel_us"])
            pp = num(r["pipelined_us"]) / num(r["anchor_pipelined_us"]) if num(r["anchor_pipelined_us"]) > 0 else math.nan
            out.append(f"| {r['type']} | {r['op']} | {r['accumulate']} | 2^{r['log2n']} | {fmt(num(r['kernel_us']))} | {r['anchor']} | "
                       f"{fmt(num(r['anchor_kernel_us']))} | {fmt(k, 3)} | {fmt(pp, 3)} | {short} | {verdict(test(r))} |")
        out.append("")

    def tratio(r):
        return num(r["kernel_us"]) / num(r["anchor_kernel_us"])

    anchored(lambda r: r["op"] in ("argmin", "argmax") and r["anchor"].startswith("cub-arg"), "argmin/argmax vs CUB",
             f"time <= {ARG_TARGET:.2f} x CUB ArgMin/ArgMax's (kernel time) at 2^20..2^28", f"<= {ARG_TARGET:.2f}",
             lambda r: tratio(r) <= ARG_TARGET if 20 <= int(r["log2n"]) <= 28 else None)
    anchored(lambda r: r["op"] == "stats" and r["anchor"].startswith("cub-sum+min+max"), "stats vs CUB Sum+Min+Max",
             f"time <= {STATS_CUB_TARGET:.2f} x CUB Sum + Min + Max one after another (three passes, kernel time)",
             f"<= {STATS_CUB_TARGET:.2f}",
             lambda r: tratio(r) <= STATS_CUB_TARGET,
             " CUB's sum is in the accumulator's sum type (compensated: the native one; CUB has no compensated sum).")
    anchored(lambda r: r["type"] == "uint8" and r["op"] == "sum" and r["anchor"].startswith("cub-sum-"),
             "uint8 sum vs CUB into uint32/uint64",
             f"time <= {U8_CUB_TARGET:.2f} x CUB TransformReduce casting to the same sum type (native: uint32, wide: uint64; "
             "the issue names no number here: at least CUB's speed)", f"<= {U8_CUB_TARGET:.2f}",
             lambda r: tratio(r) <= U8_CUB_TARGET)
    anchored(lambda r: r["op"] == "stats" and r["anchor"] == "omp-stats", f"{'PoCL' if backend == 'opencl' else backend} stats vs OpenMP",
             f"speed >= {OMP_TARGET:.2f} x the OpenMP stats loop's at 2^26, i.e. time <= {1 / OMP_TARGET:.2f} x its time",
             f"<= {1 / OMP_TARGET:.2f} at 2^26",
             lambda r: tratio(r) <= 1 / OMP_TARGET if int(r["log2n"]) == 26 else None,
             " The loop: one pass, per-thread shifted sums in double merged with Chan's formula (bench/omp_anchor.c).")

    out.append("### All points\n")
    out.append("Kernel / pipelined microseconds per call (median), GB/s from the kernel time, % of the read kernel.\n")
    out.append("| type | op | accumulate | n | impl | kernel us | pipelined us | GB/s | % of read | status |")
    out.append("|" + " --- |" * 10)
    for r in sorted(rows, key=lambda r: vkey(r) + (r["impl"],)):
        out.append(f"| {r['type']} | {r['op']} | {r['accumulate']} | 2^{r['log2n']} | {r['impl']} | {fmt(num(r['kernel_us']))} | "
                   f"{fmt(num(r['pipelined_us']))} | {fmt(gbps(r, 'kernel_us'), 0) if ok(r) else ''} | "
                   f"{fmt(100 * num(r['of_read']), 1) if ok(r) else ''} | {r['status'] if not ok(r) else 'ok'} |")
    out.append("")


def load_ref(folder):
    """CUB and pclreduce rows of another folder, renamed 'cub (cuda)' etc."""
    rows = []
    for path in glob.glob(os.path.join(folder, "bench_*.csv")):
        backend = os.path.basename(path)[len("bench_"):-4]
        for r in read_csv(path):
            if r["impl"] in ("cub", "pclreduce"):
                r = dict(r)
                r["impl"] = f"{r['impl']} ({backend})"
                rows.append(r)
    return rows


EFF_TARGET = 0.90  # issue 19: read-kernel time / pclreduce time, pipelined, at every n >= 2^14
EFF_FROM_LOG2 = 14


def efficiency_plot(rows, title, path):
    """read-kernel time / time (pipelined) per type/op: how close each implementation is to reading
    the bytes once, the efficiency column bench_cuda / bench_cl write."""
    rows = [r for r in rows if ok(r) and not math.isnan(num(r.get("efficiency", "nan"))) and r["impl"] != "read-limit"]
    keys = [(t, o) for t in TYPES for o in OPS if any(r["type"] == t and r["op"] == o for r in rows)]
    if not keys:
        return False
    types = [t for t in TYPES if any(k[0] == t for k in keys)]
    ops = [o for o in OPS if any(k[1] == o for k in keys)]
    names = [n for n in impl_order(r["impl"] for r in rows)]
    fig, axes = plt.subplots(len(types), len(ops), figsize=(4.2 * len(ops), 3.0 * len(types)), squeeze=False)
    for i, t in enumerate(types):
        for j, o in enumerate(ops):
            ax = axes[i][j]
            for name in names:
                pts = sorted((int(r["log2n"]), num(r["efficiency"])) for r in rows
                             if r["type"] == t and r["op"] == o and r["impl"] == name)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], label=name, **style(name))
            ax.axhline(1.0, color="0.3", linewidth=0.8)
            ax.axhline(EFF_TARGET, color="tab:red", linewidth=0.8, linestyle="--")
            ax.set_title(f"{t} {o}", fontsize=10)
            ax.set_xlabel("log2 n")
            ax.set_ylabel("read kernel / time")
            ax.grid(True, alpha=0.3)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def efficiency_markdown(rows, out):
    """pclreduce's efficiency per type/op and size, the smallest at n >= 2^14, and graph replay times."""
    mine = [r for r in rows if ok(r) and r["impl"] == "pclreduce" and not math.isnan(num(r.get("efficiency", "nan")))]
    if not mine:
        return
    lgs = sorted({int(r["log2n"]) for r in mine})
    by = {(r["type"], r["op"], int(r["log2n"])): r for r in mine}
    out.append(f"### Efficiency: read-kernel time / pclreduce time (pipelined; target >= {EFF_TARGET:.2f} at n >= 2^{EFF_FROM_LOG2})\n")
    out.append("| type | op | " + " | ".join(f"2^{lg}" for lg in lgs) + f" | min at n >= 2^{EFF_FROM_LOG2} |")
    out.append("|" + " --- |" * (3 + len(lgs)))
    worst = []
    for t in TYPES:
        for o in OPS:
            if not any((t, o, lg) in by for lg in lgs):
                continue
            effs = {lg: num(by[(t, o, lg)]["efficiency"]) for lg in lgs if (t, o, lg) in by}
            big = [v for lg, v in effs.items() if lg >= EFF_FROM_LOG2]
            low = min(big) if big else float("nan")
            worst.append(low)
            out.append(f"| {t} | {o} | " + " | ".join(fmt(effs.get(lg, float("nan"))) for lg in lgs) +
                       f" | {'**' + fmt(low) + '**' if low < EFF_TARGET else fmt(low)} |")
    if worst:
        out.append(f"\nSmallest efficiency at n >= 2^{EFF_FROM_LOG2}: **{fmt(min(worst))}** "
                   f"({'met' if min(worst) >= EFF_TARGET else 'missed'}: target {EFF_TARGET:.2f}).\n")
    graphs = [r for r in rows if ok(r) and not math.isnan(num(r.get("graph_us", "nan")))]
    if graphs:
        names = [n for n in impl_order(r["impl"] for r in graphs)]
        gby = {(r["type"], r["op"], int(r["log2n"]), r["impl"]): r for r in graphs}
        out.append("### Launched vs replayed from a CUDA graph (us per call, pipelined / graph), float sum\n")
        out.append("| n | " + " | ".join(names) + " |")
        out.append("|" + " --- |" * (1 + len(names)))
        for lg in lgs:
            cells = []
            for n in names:
                r = gby.get(("float", "sum", lg, n))
                cells.append(f"{fmt(num(r['pipelined_us']))} / {fmt(num(r['graph_us']))}" if r else "-")
            out.append(f"| 2^{lg} | " + " | ".join(cells) + " |")
        out.append("")


def csv_sets(folder, prefix):
    """(backend, rows) of each non-empty <prefix>_<backend>.csv in folder, by name."""
    for path in sorted(glob.glob(os.path.join(folder, f"{prefix}_*.csv"))):
        rows = read_csv(path)
        if rows:
            yield os.path.basename(path)[len(prefix) + 1:-4], rows


def link_plot(md, made, png, drawn):
    """The README's link to png, where its plot was drawn."""
    if drawn:
        md.append(f"![{png}]({png})\n")
        made.append(png)


def process(folder, ref_rows):
    name = os.path.basename(os.path.normpath(folder))
    device = read_device(folder)
    md = [f"# Benchmark results: {name}\n"]
    md.append("Generated by `bench/plot.py` from the CSV files in this folder (`bash bench/run.sh` writes them).\n")
    md.append("Timings (see bench/bench_common.h): **kernel** = one call between two device timestamps "
              "(CUDA events / OpenCL profiling), **pipelined** = a batch of calls back to back, per call, "
              "**blocking** = host clock around enqueue + result in host memory + synchronize. "
              "Medians of many repetitions; inputs rotate over buffers spanning more than 3x the last-level cache; "
              "every implementation is checked against the CPU reference before it is timed.\n")
    for backend, text in device.items():
        md.append(f"## Device ({backend})\n\n```\n{text}\n```\n")
    made = []
    for path in sorted(glob.glob(os.path.join(folder, "bench_*.csv"))):
        backend = os.path.basename(path)[len("bench_"):-4]
        rows = read_csv(path)
        impls = {r["impl"] for r in rows}
        baseline = "cub" if "cub" in impls else "omp" if "omp" in impls else None
        if ref_rows:
            keys = {(r["type"], r["op"], r["log2n"]) for r in rows}
            rows = rows + [r for r in ref_rows if (r["type"], r["op"], r["log2n"]) in keys]
            if baseline is None and any(r["impl"].startswith("cub") for r in ref_rows):
                baseline = next(r["impl"] for r in ref_rows if r["impl"].startswith("cub"))
        title = f"{name} ({backend})"
        for col, label, lat in (("kernel_us", "kernel", False), ("pipelined_us", "pipelined", False), ("blocking_us", "blocking", True)):
            png = f"bench_{backend}_{label}.png"
            what = "blocking latency" if lat else f"throughput from the {label} time"
            if sweep_plot(rows, backend, f"{title}: {what}", os.path.join(folder, png), col, lat):
                made.append(png)
        png = f"bench_{backend}_efficiency.png"
        if efficiency_plot([r for r in rows if r.get("backend") == backend], f"{title}: read-kernel time / time, pipelined (dashed: {EFF_TARGET:.2f})", os.path.join(folder, png)):
            made.append(png)
        png = f"bench_{backend}_ratio.png"
        if ratio_plot(rows, baseline, f"{title}: {baseline} time / pclreduce time (above 1 = faster)", os.path.join(folder, png)):
            made.append(png)
        md.append(f"## Sweep ({backend})\n")
        for png in [m for m in made if m.startswith(f"bench_{backend}_")]:
            md.append(f"![{png}]({png})\n")
        if baseline:
            md.append(f"Baseline: **{baseline}**.\n")
        sweep_markdown(rows, baseline, md)
        efficiency_markdown([r for r in rows if r.get("backend") == backend], md)
    for backend, rows in csv_sets(folder, "vocab"):
        md.append(f"## Vocabulary ({backend}): every type, op and accumulator vs its anchors\n")
        md.append("pclreduce against the read kernel over the same bytes (the streaming-read limit; on CPU devices an "
                  "OpenMP read loop), and where there is one against CUB (argmin/argmax: DeviceReduce::ArgMin/ArgMax; "
                  "stats: Sum + Min + Max, three passes; uint8 sums: TransformReduce into uint32 / uint64) or the OpenMP "
                  "stats loop (CPU devices). Ratios from the kernel time.\n")
        png = f"vocab_{backend}.png"
        link_plot(md, made, png, vocab_plot(rows, f"{name} ({backend}): % of the read kernel at the largest n", os.path.join(folder, png)))
        vocab_markdown(rows, backend, md)
    for backend, rows in csv_sets(folder, "study"):
        png = f"study_{backend}.png"
        desc = f"{rows[0]['type']} {rows[0]['op']}, n = {rows[0]['n']}"
        md.append(f"## PCL-Reduction study ({backend}): {desc}\n")
        md.append("granularity: stride global vs local over the unroll depth; ingroup: in-group variants (scalar loads, "
                  "largest grid, so the in-group step weighs the most); gso: global-stride-only (unroll 1, scalar loads) "
                  "vs the full kernel on the same grid.\n")
        link_plot(md, made, png, study_plot(rows, f"{name} ({backend}): {desc}", os.path.join(folder, png)))
        study_markdown(rows, md)
    for backend, rows in csv_sets(folder, "rows"):
        png = f"rows_{backend}.png"
        md.append(f"## Rows and columns ({backend}): 2^28 floats as every shape (bench_rows)\n")
        md.append("Per-call time, pipelined, median of 15 batches, against the read kernel over the same bytes and CUB's "
                  "DeviceSegmentedReduce (offsets form) for rows. Rows of 2 and 4 write half and a quarter of what they "
                  "read: their ceilings are 67 % and 80 % of the read kernel.\n")
        link_plot(md, made, png, rows_plot(rows, f"{name} ({backend}): rows and columns", os.path.join(folder, png)))
        rows_markdown(rows, md)
    with open(os.path.join(folder, "README.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"plot.py: {folder}: README.md " + " ".join(made))


def rows_plot(rows, title, path):
    """bench_rows' shape sweep: bandwidth (% of the read kernel) against the length of what is reduced
    (a row's cols, a column's rows), both axes; beside it pclreduce's time / CUB's for rows."""
    sums = [r for r in rows if r["row"] == "sum"]
    if not sums:
        return False
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    for axis, label, marker in (("row", "along rows", "o"), ("col", "along columns", "s")):
        sel = sorted((r for r in sums if r["axis"] == axis), key=lambda r: num(r["cols"] if axis == "row" else r["rows"]))
        if not sel:
            continue
        xs = [math.log2(num(r["cols"] if axis == "row" else r["rows"])) for r in sel]
        a.plot(xs, [100 * num(r["of_read"]) for r in sel], marker=marker, label=label)
        cub = [(x, num(r["of_cub"])) for x, r in zip(xs, sel) if num(r["of_cub"]) > 0]
        if cub:
            b.plot([c[0] for c in cub], [c[1] for c in cub], marker=marker, label=f"{label}: pclreduce / CUB segmented")
    a.axhline(80, color="grey", linestyle=":", linewidth=1)
    a.set_xlabel("log2 of the elements reduced per result (2^28 floats in all)")
    a.set_ylabel("% of the read kernel")
    a.set_ylim(0, 110)
    a.legend()
    b.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    b.axhline(0.2, color="grey", linestyle="--", linewidth=1)
    b.set_yscale("log")
    b.set_xlabel("log2 of the row length")
    b.set_ylabel("time / CUB's time (lower is faster)")
    b.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def rows_markdown(rows, md):
    md.append("| op | axis | rows | cols | lanes | split | us | % of read | x CUB's time |")
    md.append("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        lg = lambda v: f"2^{int(math.log2(num(v)))}" if num(v) > 0 else "0"
        md.append(f"| {r['row']} | {r['axis']} | {lg(r['rows'])} | {lg(r['cols'])} | {r['lanes']} | {r['split']} | "
                  f"{num(r['pclr_us']):.1f} | {100 * num(r['of_read']):.1f} | {fmt(num(r['of_cub']), 3) if num(r['of_cub']) > 0 else '-'} |")
    md.append("")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--ref", help="folder whose CUB/pclreduce rows join the plots and serve as baseline")
    args = ap.parse_args()
    ref_rows = load_ref(args.ref) if args.ref and os.path.isdir(args.ref) else []
    status = 0
    for folder in args.folders:
        if not glob.glob(os.path.join(folder, "*.csv")):
            print(f"plot.py: no CSV in {folder}", file=sys.stderr)
            status = 1
            continue
        same = args.ref and os.path.isdir(args.ref) and os.path.samefile(folder, args.ref)
        process(folder, [] if same else ref_rows)
    return status


if __name__ == "__main__":
    sys.exit(main())
