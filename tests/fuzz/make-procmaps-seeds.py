#!/usr/bin/env python3
"""Seeds for fuzz-procmaps: logs of PROCMAPS options as the spool's procmaps
holds them (one NUL-terminated option after another, tfile-procmaps.c has
the text's layout), from this process's own maps, and hostile variants:
cut short, out of order, overlapping, counts past the lines, 17 hex digits,
many pids.  Usage: make-procmaps-seeds.py DIR"""
import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def opt(pid, vmas, exe='/usr/bin/prog', count=None):
    n = len(vmas) if count is None else count
    s = '%x %x %s\n' % (pid, n, exe) + ''.join('%x %x %s\n' % v for v in vmas)
    return s.encode() + b'\0'


def own():
    vmas = []
    with open('/proc/self/maps') as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6:
                a, b = parts[0].split('-')
                vmas.append((int(a, 16), int(b, 16), parts[5].rstrip('\n')))
    return vmas


mine = own()
small = [(0x400000, 0x401000, '/bin/sh'), (0x401000, 0x402000, '/bin/sh'),
         (0x7f0000000000, 0x7f0000021000, '/usr/lib/x86_64-linux-gnu/libc.so.6')]
seeds = {
    'own': opt(os.getpid(), mine, os.readlink('/proc/self/exe')),
    'log': opt(10, small) + opt(11, small[:1], '/usr/bin/w') + opt(10, small[1:], '/usr/bin/python3'),
    'log-cut': (opt(10, small) + opt(11, small))[:-9],
    'one-no-nul': opt(10, small)[:-1],
    'none-named': opt(7, []),
    'out-of-order': opt(10, [small[1], small[0]]),
    'overlap': opt(10, [(0x1000, 0x3000, 'a'), (0x2000, 0x4000, 'b')]),
    'empty-range': opt(10, [(0x1000, 0x1000, 'a')]),
    'count-past-lines': opt(10, small, count=0xfffff),
    'count-huge': opt(10, small, count=0xffffffff),
    'hex-17': b'1 1 /x\n10000000000000000 10000000000000001 /y\n\0',
    'top-of-space': b'1 1 /x\nffffffffffff0000 ffffffffffffffff /y\n\0',
    'pid-zero': opt(0, small),
    'pid-huge': b'80000000 1 /x\n1000 2000 /y\n\0',
    'blank-names': b'1 2  /x y\n1000 2000  [heap] \n3000 4000 \t\n\0',
    'text-after': opt(10, small)[:-1] + b'5000 6000 /z\n\0',
    'upper-hex': b'A 1 /X\nABC ABD /Y\n\0',
    'many-pids': b''.join(opt(p, small[:1]) for p in range(1, 400)),
    'long-line': opt(10, [(0x1000, 0x2000, '/' + 'n' * 5000)]),
    'nuls-only': b'\0' * 64,
}
for name, data in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
