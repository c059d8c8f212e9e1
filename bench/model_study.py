#!/usr/bin/env python3
"""model_study: issue 39's model form checked offline against committed measurements.

For one device's CSV (bench_cuda / bench_cl / vocab output: rows of impl 'read-limit' and 'pclreduce'), the model is

    predicted(n) = floor + max(bytes / bandwidth, n * c[type, op, accumulate])

with three kinds of figure, each taken from other points than those it predicts:
  - bandwidth and the read kernel's floor: a least-squares line t = a + bytes / bw through the read-limit rows;
  - floor: pclreduce's own (launch, finish), the median of its sums' pipelined time less their memory time at the two
    smallest sizes;
  - c: per (type, op, accumulate), the in-thread cost per element, from the largest size only (0 where that point is
    within 10 % of the memory time: memory-bound).
It prints, per row, the measured and predicted pipelined time, the bound the model names (floor, memory, instructions)
and the error, then the share of points within +-25 % (the issue's target: 90 %), the calibration points left out.

    python3 bench/model_study.py bench/results/h100-cuda/bench_cuda.csv [more.csv ...] [--quiet]
"""
import csv
import statistics
import sys


def fit_read(rows):
    """least squares t = a + bytes / bw over the read-limit rows: (a us, bw bytes/us)"""
    pts = [(float(r['bytes']), float(r['pipelined_us'])) for r in rows]
    if len(pts) < 2:
        return None
    mx = statistics.mean(p[0] for p in pts)
    my = statistics.mean(p[1] for p in pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    sxy = sum((x - mx) * (y - my) for x, y in pts)
    slope = sxy / sxx if sxx else 0
    if slope <= 0:
        return None
    return my - slope * mx, 1.0 / slope


def study(path, quiet):
    rows = [r for r in csv.DictReader(open(path)) if r.get('status', 'ok') == 'ok']
    read = [r for r in rows if r['impl'] == 'read-limit']
    mine = [r for r in rows if r['impl'] == 'pclreduce']
    fit = fit_read(read)
    if not mine or not fit:
        print(f'{path}: no read-limit line or no pclreduce rows: skipped')
        return 0, 0
    a_read, bw = fit
    key = lambda r: (r['type'], r['op'], r.get('accumulate', 'native'))
    sums = sorted((int(r['log2n']), float(r['pipelined_us']) - float(r['bytes']) / bw) for r in mine if r['op'] == 'sum')
    small = sorted(set(l for l, _ in sums))[:2]
    floor = max(0.0, statistics.median(t for l, t in sums if l in small))
    calib, cost = set(), {}
    for k in sorted(set(map(key, mine))):
        pts = [r for r in mine if key(r) == k]
        top = max(pts, key=lambda r: int(r['n']))
        n, t, mem = float(top['n']), float(top['pipelined_us']), float(top['bytes']) / bw
        cost[k] = (t - floor) / n if t - floor > 1.1 * mem else 0.0
        calib.add(id(top))
    within = total = 0
    device = rows[0].get('device', '?')
    print(f'# {path}: {device}; read line: {a_read:.2f} us + bytes / {bw / 1e3:.0f} GB/s; pclreduce floor {floor:.2f} us')
    if not quiet:
        print('| type | op | accumulate | n | measured us | predicted us | bound | error |')
        print('| --- | --- | --- | --- | --- | --- | --- | --- |')
    by_bound = {}
    for r in sorted(mine, key=lambda r: (key(r), int(r['n']))):
        if id(r) in calib:
            continue
        k, n, t = key(r), float(r['n']), float(r['pipelined_us'])
        mem, ins = float(r['bytes']) / bw, n * cost[k]
        body = max(mem, ins)
        pred = floor + body
        bound = 'floor' if floor > body else 'memory' if mem >= ins else 'instructions'
        err = pred / t - 1
        ok = abs(err) <= 0.25
        within += ok
        total += 1
        b = by_bound.setdefault(bound, [0, 0])
        b[0] += ok
        b[1] += 1
        if not quiet:
            print(f'| {k[0]} | {k[1]} | {k[2]} | 2^{r["log2n"]} | {t:.2f} | {pred:.2f} | {bound} | {100 * err:+.0f} % |')
    print(f'{path}: {within} of {total} points within +-25 % ({100 * within / max(total, 1):.0f} %; target 90 %), '
          + ', '.join(f'{b}: {v[0]}/{v[1]}' for b, v in sorted(by_bound.items())) + f'; {len(calib)} calibration points left out')
    return within, total


def main():
    quiet = '--quiet' in sys.argv
    paths = [a for a in sys.argv[1:] if a != '--quiet']
    if not paths:
        print(__doc__)
        return 2
    w = t = 0
    for p in paths:
        a, b = study(p, quiet)
        w, t = w + a, t + b
    print(f'all: {w} of {t} within +-25 % ({100 * w / max(t, 1):.0f} %)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
