#!/usr/bin/env python3
"""The accuracy table in markdown from bench_accuracy's output: python3 bench/accuracy_table.py BEFORE.tsv AFTER.tsv sum|stats.
One row per type, data set, size and quantity; the 10^k sets are folded into one row (per backend the k with the
largest error / bound). Columns: the error on each backend, the worst of them before, the bound, worst error / bound."""
import sys, collections
def load(f):
    rows=[]
    for line in open(f):
        p=line.rstrip('\n').split('\t')
        if len(p)!=9 or p[0]=='backend': continue
        rows.append(dict(backend=p[0],type=p[1],data=p[2],n=int(p[3]),q=p[4],err=float(p[5]),bound=float(p[6]),tp=p[7],ok=p[8]))
    return rows
b=load(sys.argv[1]); a=load(sys.argv[2]); what=sys.argv[3]
def key(r):
    d=r['data']
    if d.startswith('10^'): d='10^k+-0.5, k=0..7'
    return (r['type'],d,r['n'],r['q'])
def agg(rows):
    m=collections.OrderedDict()
    for r in rows:
        k=key(r); per=m.setdefault(k,{})
        e=per.get(r['backend'])
        if e is None or r['err']/r['bound']>e['err']/e['bound']: per[r['backend']]=r
    return m
A=agg(a); B=agg(b)
print('| type | data | n | quantity | CPU reference | PoCL | lavapipe | before: worst of the three | bound | worst error / bound |')
print('| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |')
for k,per in A.items():
    if not k[3].startswith(what): continue
    cells=['%.1e'%per[bk]['err'] if bk in per else '-' for bk in ('cpu','opencl','vulkan')]
    bef=B.get(k,{})
    bw=max(bef.values(), key=lambda r:r['err']/r['bound']) if bef else None
    worst=max(per.values(), key=lambda r:r['err']/r['bound'])
    bd = ('%.1e'%worst['bound']) if not k[1].startswith('10^k') else 'per k'
    ratio=worst['err']/worst['bound']
    print('| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |'%(k[0],k[1],k[2],k[3][6:] if what=='stats' else k[3][4:],cells[0],cells[1],cells[2],('%.1e'%bw['err']) if bw else '-',bd,('%.2f'%ratio)+('' if ratio<=1 else ' **over**')))
