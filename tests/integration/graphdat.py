#!/usr/bin/env python3
# A function_graph recording of a 6.15 kernel, made by hand (no kernel here
# has funcgraph-args or funcgraph-retaddr): the ftrace formats as that
# kernel's events/ftrace/*/format give them (kernel/trace/trace_entries.h,
# x86_64, in hostile.py), tr's stored options with funcgraph-retaddr,
# -retval and -args on, and four records: ksys_read entered through
# fgraph_retaddr_entry (6.13's retaddr field), vfs_read through
# funcgraph_entry with its six argument words, vfs_read's exit (-14) and
# ksys_read's (0x340).  With depths, the records are instead hostile.py's
# graph_depth_recs() at each depth (any 32-bit value, as a file may hold).
# With --btf, the file is version 7 (compressed as KIND says) and carries
# hostile.py's btf_blob() in a BTF_FILE section and a MODULES_FILE, as
# trace-cmd 3.4 writes them.
#
#   graphdat.py FILE [DEPTH...]
#   graphdat.py FILE --btf none|zstd|zlib [--ibt]
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuzz'))
import hostile as h  # noqa: E402


def main():
    pid = 77
    # --ibt: vfs_read recorded 4 bytes into the function, past the endbr64
    # an IBT kernel puts first (what 7.x records on x86).
    ibt = '--ibt' in sys.argv
    if ibt:
        sys.argv.remove('--ibt')
    vfs_read = h.FG_VFS_READ + (4 if ibt else 0)
    btf = len(sys.argv) > 3 and sys.argv[2] == '--btf'
    if len(sys.argv) > 2 and not btf:
        depths = [int(d, 0) for d in sys.argv[2:]]
        with open(sys.argv[1], 'wb') as f:
            f.write(h.v6(h.graph_base(h.graph_depth_recs(depths))).b)
        return
    recs = [
        h.record(h.FG_RETADDR_ID, pid, struct.pack('<QIQ', h.FG_KSYS_READ, 0,
                                                   h.FG_SYSCALL + 0x1c)),
        h.record(h.FG_ENTRY_ID, pid, struct.pack('<QII', vfs_read, 1, 0) +
                 struct.pack('<6Q', 3, 0xffff888100a0b000, 0x80, 0, 0, 0)),
        h.fg_exit(pid, vfs_read, 1, 0xfffffff2, 1000, 3500),
        h.fg_exit(pid, h.FG_KSYS_READ, 0, 0x340, 500, 12500),
    ]
    o = h.graph_base(recs, b'funcgraph-retaddr\nfuncgraph-retval\nfuncgraph-args\n')
    if btf:
        o['sections'] = [(23, h.btf_blob(), 'BTF'),
                         (25, b'ext4 1056768 1 - Live 0xffffffffc0400000\n', 'modules')]
    with open(sys.argv[1], 'wb') as f:
        f.write(h.v7(o, sys.argv[3]).b if btf else h.v6(o).b)


main()
