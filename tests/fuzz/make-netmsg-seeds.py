#!/usr/bin/env python3
"""Seeds for fuzz-netmsg: a client's control stream (trace-cmd's protocol v3)
carrying the metadata of tests/data's files, and hostile variants: cut short,
sizes out of range, counts past the data.  Usage: make-netmsg-seeds.py DIR"""
import os
import struct
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def msg(cmd, body=b'', data=b''):
    return struct.pack('>III', 12 + len(body) + len(data), cmd, len(body)) + body + data


def tinit(cpus=2, page=4096, opts=(b'tcp',)):
    return msg(1, struct.pack('>III', cpus, page, len(opts)), b''.join(o + b'\0' for o in opts))


def stream(meta, cpus=2, tgids=None):
    s = b'-1V3\0' + b'766679\0\0' + tinit(cpus)
    for i in range(0, len(meta), 8180):
        s += msg(3, data=meta[i:i + 8180])
    s += msg(4)
    # tr's saved_tgids after the pages (netmsg.h): SEND_DATA... FIN_DATA again.
    if tgids is not None:
        for i in range(0, len(tgids), 8180):
            s += msg(3, data=tgids[i:i + 8180])
        s += msg(4)
    return s + msg(0)


def prefix(name):
    d = open(os.path.join(root, 'tests', 'data', name), 'rb').read()
    if d[10:11] == b'6':
        return d[:d.index(b'flyrecord\0')]
    return d


seeds = {
    'v6-meta': stream(prefix('report-v6.dat')),
    'v7-meta': stream(prefix('report-v7.dat')),
    'v7-zlib-meta': stream(prefix('report-v7-zlib.dat'), cpus=4),
    'no-tcp': b'-1V3\0766679\0\0' + tinit(opts=()),
    'v1-client': b'2\0' + b'4096\0' + b'0\0',
    'rinit': b'-1V3\0766679\0\0' + msg(2, struct.pack('>I', 2), b'40000\0' + b'40001\0'),
    'rinit-tgids': b'-1V3\0766679\0\0' + msg(2, struct.pack('>I', 1), b'40000\0tr-saved-tgids\0'),
    'tgids': stream(prefix('report-v6.dat'), tgids=b'100 100\n101 100\n'),
    'tgids-v7-long': stream(prefix('report-v7.dat'),
                            tgids=b''.join(b'%d %d\n' % (i, i & ~7) for i in range(1, 2000))),
    'tgids-bad': stream(prefix('report-v6.dat'), tgids=b'100 100\n101 -1\n'),
    'tgids-no-end': stream(prefix('report-v6.dat'), tgids=b'100 100\n101')[:-24],
}
full = seeds['v6-meta']
for cut in (5, 13, 20, 40, len(full) // 2, len(full) - 13):
    seeds['cut-%d' % cut] = full[:cut]
hostile = b'-1V3\0766679\0\0'
seeds['size-over-8192'] = hostile + struct.pack('>III', 8193, 3, 0)
seeds['size-under-12'] = hostile + struct.pack('>III', 11, 3, 0)
seeds['cmd-unknown'] = hostile + struct.pack('>III', 12, 77, 0)
seeds['cmd-size-past-end'] = hostile + struct.pack('>III', 12, 1, 12)
seeds['tinit-cpus-huge'] = hostile + tinit(cpus=0xffffffff)
seeds['tinit-page-odd'] = hostile + tinit(page=4097)
seeds['tinit-opts-past-data'] = hostile + msg(1, struct.pack('>III', 2, 4096, 1000), b'tcp\0')
seeds['tinit-opt-no-nul'] = hostile + msg(1, struct.pack('>III', 2, 4096, 1), b'tcp')
seeds['rinit-bad-port'] = hostile + msg(2, struct.pack('>I', 1), b'99999\0')
seeds['meta-garbage'] = hostile + tinit() + msg(3, data=b'\x17\x08\x44tracing6\0' + b'\xff' * 64) + msg(4)
seeds['meta-v7-garbage'] = hostile + tinit() + msg(3, data=b'\x17\x08\x44tracing7\0' + b'\x00' * 64) + msg(4)
seeds['garbage'] = bytes(range(256)) * 4
# tr's session token (netmsg.h): named after TINIT's counted options, announced after RINIT's ports.
tok = b'tr-session=' + bytes(range(16)).hex().encode() + b'\0'
seeds['tinit-session'] = hostile + msg(1, struct.pack('>III', 2, 4096, 1), b'tcp\0tr-session\0')
seeds['rinit-token'] = hostile + msg(2, struct.pack('>I', 2), b'40000\0' + b'40001\0' +
                                     b'tr-saved-tgids\0' + tok)
seeds['rinit-token-short'] = hostile + msg(2, struct.pack('>I', 1), b'40000\0tr-session=00ff\0')
seeds['rinit-token-bad-hex'] = hostile + msg(2, struct.pack('>I', 1),
                                             b'40000\0tr-session=' + b'g' * 32 + b'\0')
seeds['rinit-token-no-nul'] = hostile + msg(2, struct.pack('>I', 1), b'40000\0' + tok[:-1])


# The agent's messages (tr agent, tr record -A): requests, answers, time sync.
def params(*ps):
    return b''.join(struct.pack('>II', i, len(d)) + d for i, d in ps)


def args(*a):
    return struct.pack('>I', len(a)) + b''.join(x + b'\0' for x in a)


def req(ps):
    return msg(6, struct.pack('>IIQ', 0, 0, 0x1234), ps)


def tsync(proto, mid, payload=b''):
    return msg(9, proto.ljust(16, b'\0') + struct.pack('>I', mid), payload)


good = params((0, args(b'-e', b'sched:sched_switch', b'-f', b'prev_pid==1', b'-C', b'mono')),
              (1, b'ptp\0\0'))
seeds['agent-req'] = req(good)
seeds['agent-req-bad-option'] = req(params((0, args(b'-p', b'function'))))
seeds['agent-req-65-args'] = req(params((0, args(*([b'-e'] * 65)))))
seeds['agent-req-arg-no-nul'] = req(params((0, struct.pack('>I', 1) + b'-e')))
seeds['agent-req-param-past-end'] = req(struct.pack('>II', 0, 4000) + b'abc')
seeds['agent-req-args-twice'] = req(params((0, args()), (0, args())))
resp = struct.pack('>IIIQ', 0, 2, 4096, 0x2d9ffa29c7d69b0e) + b'ptp'.ljust(16, b'\0') + \
    struct.pack('>I', 1502)
seeds['agent-resp'] = msg(7, resp, b'1500\0' + b'1501\0')
seeds['agent-req-session'] = req(good + params((0x74720001, b'')))
seeds['agent-resp-token'] = msg(7, resp, b'1500\0' + b'1501\0' + tok)
seeds['agent-resp-token-upper'] = msg(7, resp, b'1500\0' + b'1501\0' + b'tr-session=' + tok[11:].upper())
seeds['agent-resp-cpus-huge'] = msg(7, struct.pack('>IIIQ', 0, 99999, 4096, 1) +
                                    b'ptp'.ljust(16, b'\0') + struct.pack('>I', 1), b'1\0')
probes = struct.pack('>II', 7, 339) + b''.join(struct.pack('>qI', 1000 + i, i + 1)
                                               for i in range(339)) + bytes(339 * 12)
seeds['agent-tsync'] = (tsync(b'none', 1, b'\0\0') + tsync(b'ptp', 1, struct.pack('>II', 1, 3)) +
                        tsync(b'ptp', 2, struct.pack('>I', 1)) + tsync(b'ptp', 5) +
                        tsync(b'ptp', 3, probes) + tsync(b'ptp', 4, struct.pack('>qq', 5, 6)))
seeds['agent-probes-count-huge'] = tsync(b'ptp', 3, struct.pack('>II', 7, 0xffffffff))
seeds['agent-probes-ids-wild'] = tsync(b'ptp', 3, struct.pack('>II', 7, 3) +
                                       struct.pack('>qI', 1, 0) + struct.pack('>qI', 2, 340) +
                                       struct.pack('>qI', 3, 0xffffffff))
for name, data in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
