#!/usr/bin/env python3
"""Seeds for fuzz-graph: function_graph records as fuzz-graph.c decodes them
(a head of 4 bytes: the options' bits, the CPU count, the prefix; then 24
bytes a record), a call graph as a kernel writes it and the same at hostile
depths (issue 36): 0, 1, 1024 and past it, 2^30 (2 GB of indentation
before), INT_MAX (a signed overflow), 2^31 and UINT32_MAX (negative as an
int), alternating, one CPU or several, under every option.
Usage: make-graph-seeds.py DIR"""
import os
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
ENTRY, EXIT, OTHER = 1, 2, 0
KSYS, VFS, RW, IRQ = 1, 2, 3, 4
ALL = (0xff, 0x1f)       # every option on
DEFAULT = (0x39, 0x10)   # cpu, overhead, duration, irqs; the older "= 0x0"


def rec(kind, depth, func=KSYS, cpu=0, pid=77, flags=0, ns=2500, val=0, over=0):
    return struct.pack('<BBBBIHIQH', kind, cpu, pid - 76, flags, depth & 0xffffffff, func,
                       ns, val, over)


def call(d, cpu=0, flags=0):
    """ksys_read at d: a comment, vfs_read nested at d + 1, a leaf, the exits."""
    d1 = (d + 1) & 0xffffffff
    return [rec(ENTRY, d, KSYS, cpu, flags=flags), rec(OTHER, d, cpu=cpu, over=40),
            rec(ENTRY, d1, VFS, cpu, flags=flags | 8), rec(OTHER, d1, cpu=cpu, over=20),
            rec(EXIT, d1, VFS, cpu, flags=flags, val=0xfffffff2),
            rec(ENTRY, d1, RW, cpu, flags=flags), rec(EXIT, d1, RW, cpu, flags=flags, ns=90),
            rec(ENTRY, d1, IRQ, cpu), rec(EXIT, d1, IRQ, cpu, ns=12000000),
            rec(EXIT, d, KSYS, cpu, flags=flags, ns=1500000000, val=0x340, over=3)]


def put(name, opts, recs, ncpus=1, prefix=0):
    with open(os.path.join(out, name), 'wb') as f:
        f.write(bytes([opts[0], opts[1], ncpus - 1, prefix]) + b''.join(recs))


HOSTILE = (0, 1, 49, 50, 1023, 1024, 1025, 0x3fffffff, 0x40000000, 0x7ffffffe, 0x7fffffff,
           0x80000000, 0xfffffffe, 0xffffffff)
put('sane-default', DEFAULT, call(0) + call(1) + call(3))
put('sane-all-options', ALL, call(0, flags=6) + call(2, flags=7), prefix=1)
for d in HOSTILE:
    put('depth-%x' % d, DEFAULT, call(d))
    put('depth-%x-all-options' % d, ALL, call(d, flags=6), prefix=1)
    put('depth-%x-noirqs' % d, (DEFAULT[0] & ~32, DEFAULT[1]), call(d))
put('depth-alternating', DEFAULT,
    sum((call(d) for d in (0, 0x7fffffff, 1, 0xffffffff, 0, 0x80000000, 2, 0x3fffffff)), []))
put('depth-alternating-4cpus', ALL,
    sum((call(d, cpu=i % 4, flags=i & 7) for i, d in enumerate(HOSTILE * 2)), []), ncpus=4)
# 4096 records at 2^30: 4096 lines of 2 GB each before.
put('depth-40000000-many', DEFAULT, [rec(ENTRY, 0x3fffffff + (i & 1)) for i in range(4096)])
print('make-graph-seeds.py: %d files in %s' % (len(os.listdir(out)), out))
