#!/usr/bin/env python3
# A function_graph recording of a 6.15 kernel, made by hand (no kernel here
# has funcgraph-args or funcgraph-retaddr): the ftrace formats as that
# kernel's events/ftrace/*/format give them (kernel/trace/trace_entries.h,
# x86_64), tr's stored options with funcgraph-retaddr, -retval and -args on,
# and four records: ksys_read entered through fgraph_retaddr_entry (6.13's
# retaddr field), vfs_read through funcgraph_entry with its six argument
# words, vfs_read's exit (-14) and ksys_read's (0x340).
#
#   graphdat.py FILE
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuzz'))
import hostile as h  # noqa: E402

EXIT_ID, ENTRY_ID, RETADDR_ID = 10, 11, 14

ENTRY_FMT = h.fmt(b'funcgraph_entry', ENTRY_ID,
                  b'\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n'
                  b'\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n'
                  b'\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n',
                  b'"--> %ps (%u)", (void *)REC->func, REC->depth')
RETADDR_FMT = h.fmt(b'fgraph_retaddr_entry', RETADDR_ID,
                    b'\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n'
                    b'\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n'
                    b'\tfield:unsigned long retaddr;\toffset:20;\tsize:8;\tsigned:0;\n',
                    b'"--> %ps (%u) <- %ps", (void *)REC->func, REC->depth, '
                    b'(void *)REC->retaddr')
EXIT_FMT = h.fmt(b'funcgraph_exit', EXIT_ID,
                 b'\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n'
                 b'\tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n'
                 b'\tfield:unsigned int depth;\toffset:24;\tsize:4;\tsigned:0;\n'
                 b'\tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n'
                 b'\tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n'
                 b'\tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n',
                 b'"<-- %ps (%u) (start: %llx  end: %llx) over: %u retval: %lx", '
                 b'(void *)REC->func, REC->depth, REC->calltime, REC->rettime, '
                 b'REC->depth, REC->retval')

K = 0xffffffff81000000
VFS_READ, KSYS_READ, SYSCALL = K + 0x100, K + 0x200, K + 0x300


def main():
    pid = 77
    recs = [
        h.record(RETADDR_ID, pid, struct.pack('<QIQ', KSYS_READ, 0, SYSCALL + 0x1c)),
        h.record(ENTRY_ID, pid, struct.pack('<QII', VFS_READ, 1, 0) +
                 struct.pack('<6Q', 3, 0xffff888100a0b000, 0x80, 0, 0, 0)),
        h.record(EXIT_ID, pid, struct.pack('<QQIIQQ', VFS_READ, 0xfffffff2, 1, 0,
                                           1000, 3500)),
        h.record(EXIT_ID, pid, struct.pack('<QQIIQQ', KSYS_READ, 0x340, 0, 0, 500, 12500)),
    ]
    data = h.page(1000000, [h.event(10 * (i + 1), r) for i, r in enumerate(recs)])
    opts = [(5, 'UNAME', [b'Linux vm 6.15.0 #1 SMP PREEMPT_DYNAMIC x86_64\0']),
            (9, 'VERSION', [b'tr 0.1.0\0funcgraph-retaddr\nfuncgraph-retval\n'
                            b'funcgraph-args\ntracer:function_graph\n\0'])]
    o = h.base(ftrace=[h.PRINT_FMT, EXIT_FMT, ENTRY_FMT, RETADDR_FMT], cpus=1, data=[data],
               kallsyms=b'ffffffff81000100 T vfs_read\nffffffff81000200 T ksys_read\n'
                        b'ffffffff81000300 T x64_sys_call\nffffffff81000400 T _etext\n',
               cmdlines=b'77 cat\n', opts=opts)
    with open(sys.argv[1], 'wb') as f:
        f.write(h.v6(o).b)


main()
