#!/usr/bin/env python3
# The hostile-input set: trace.dat files built from scratch to break a
# reader, one file per case, in the classes of issue 13:
#
#   hostile.py OUTDIR
#   hostile.py --big BYTES FILE     a well-formed file that large (memory tests)
#
#   trunc-*     a good file (v6; v7 plain, zstd, zlib) cut at every section
#               boundary and one byte either side of it
#   absurd-*    every number the writer put in a header, an option or a
#               section (sizes, counts, offsets, page size, CPU count, ...)
#               set to 0, 2^31-1, 2^31, 2^32-1 and, for 64-bit ones, 2^64-1
#   fmt-*       event formats: print fmts that crash, hang or over-read
#               libtraceevent (fields that do not exist, division by zero,
#               unbounded __print_hex/__print_array, huge widths, deep
#               nesting...), absurd field lines, odd header_page layouts
#   zip-*       compressed chunks: corrupt bytes, wrong sizes, a count of
#               2^32-1, and a decompression bomb (many CPUs, one chunk that
#               inflates to 256 MB)
#   text-*      saved cmdlines, printk formats and kallsyms at their edges
#               (200,000 empty lines, numbers out of range, no separators)
#   gap-*       timestamps 5 s and 2^62 ns apart
#   tsync-*     the several-machine options (TRACEID, TIME_SHIFT, GUEST): good
#               ones (v6, v7), the v7 one cut at every field and each number
#               in it absurd; sample counts past the option, fraction bits of
#               64, times that overflow the interpolation
#   procmaps-*  user stacks under sym-userobj with the processes' memory maps
#               (PROCMAPS): a good one, and maps without their NUL, counts past
#               their lines or of 2^32-1, lines out of order, overlapping, too
#               long, not hex, bounds at 2^64, and 20,000 mappings
#   btf-*, modules-*  trace-cmd 3.4's BTF_FILE and MODULES_FILE sections, damaged
#   lastboot-*  a persistent buffer's previous boot (LAST_BOOT_INFO): deltas that
#               wrap, 5000 modules, names past the kernel's length, no _text
#               to measure from, not last_boot_info at all
#
# Each file is small (the bomb is 17 KB).  tests/fuzz/replay runs every one
# through both fuzz targets; tr must give a clean error or a clean report
# for each: no crash, no sanitizer finding, no hang, no memory blow-up.
import os
import struct
import subprocess
import sys
import zlib

MAGIC = b'\x17\x08Dtracing'
PAGE = 4096

HEADER_PAGE = (b'\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n'
               b'\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n'
               b'\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n'
               b'\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n')
HEADER_EVENT = (b'# compressed entry header\n\ttype_len    :    5 bits\n'
                b'\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n'
                b'\tpadding     : type == 29\n\ttime_extend : type == 30\n'
                b'\ttime_stamp : type == 31\n\tdata max type_len  == 28\n')
COMMON = (b'\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n'
          b'\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n'
          b'\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n'
          b'\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n')
SWITCH_FIELDS = (b'\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n'
                 b'\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n'
                 b'\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n'
                 b'\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n'
                 b'\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n'
                 b'\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n'
                 b'\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n')
SWITCH_PRINT = (b'"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s '
                b'next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, '
                b'(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002) + 1) << 1) - 1)) '
                b'? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002) + '
                b'1) << 1) - 1), "|", { 0x00000001, "S" }, { 0x00000002, "D" }) : "R", '
                b'REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002) + 1) << 1) ? "+" : '
                b'"", REC->next_comm, REC->next_pid, REC->next_prio')
PRINT_FIELDS = (b'\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n'
                b'\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n')
SWITCH_ID, PRINT_ID, WAKE_ID = 316, 5, 320


USTACK_ID = 12
USTACK_FIELDS = (b'\tfield:unsigned int tgid;\toffset:8;\tsize:4;\tsigned:0;\n'
                 b'\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n')


def fmt(name, eid, fields, print_fmt):
    return (b'name: ' + name + b'\nID: ' + str(eid).encode() + b'\nformat:\n' + COMMON +
            fields + b'\nprint fmt: ' + print_fmt + b'\n')


def switch_fmt(fields=SWITCH_FIELDS, print_fmt=SWITCH_PRINT):
    return fmt(b'sched_switch', SWITCH_ID, fields, print_fmt)


PRINT_FMT = fmt(b'print', PRINT_ID, PRINT_FIELDS, b'"%ps: %s", (void *)REC->ip, REC->buf')
WAKE_FMT = fmt(b'sched_wakeup', WAKE_ID,
               b'\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n'
               b'\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n'
               b'\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n'
               b'\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n'
               b'\tfield:__data_loc char[] name;\toffset:36;\tsize:4;\tsigned:0;\n',
               b'"comm=%s pid=%d prio=%d target_cpu=%03d %s", REC->comm, REC->pid, REC->prio, '
               b'REC->target_cpu, __get_str(name)')


# function_graph's records as a 6.15 kernel's events/ftrace/*/format give them
# (kernel/trace/trace_entries.h, x86_64): tests/integration/graphdat.py's file
# and the hostile depths below.
FG_EXIT_ID, FG_ENTRY_ID, FG_RETADDR_ID = 10, 11, 14
FG_ENTRY_FMT = fmt(b'funcgraph_entry', FG_ENTRY_ID,
                   b'\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n'
                   b'\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n'
                   b'\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n',
                   b'"--> %ps (%u)", (void *)REC->func, REC->depth')
FG_RETADDR_FMT = fmt(b'fgraph_retaddr_entry', FG_RETADDR_ID,
                     b'\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n'
                     b'\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n'
                     b'\tfield:unsigned long retaddr;\toffset:20;\tsize:8;\tsigned:0;\n',
                     b'"--> %ps (%u) <- %ps", (void *)REC->func, REC->depth, '
                     b'(void *)REC->retaddr')
FG_EXIT_FMT = fmt(b'funcgraph_exit', FG_EXIT_ID,
                  b'\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n'
                  b'\tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n'
                  b'\tfield:unsigned int depth;\toffset:24;\tsize:4;\tsigned:0;\n'
                  b'\tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n'
                  b'\tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n'
                  b'\tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n',
                  b'"<-- %ps (%u) (start: %llx  end: %llx) over: %u retval: %lx", '
                  b'(void *)REC->func, REC->depth, REC->calltime, REC->rettime, '
                  b'REC->depth, REC->retval')
FG_K = 0xffffffff81000000
FG_VFS_READ, FG_KSYS_READ, FG_SYSCALL = FG_K + 0x100, FG_K + 0x200, FG_K + 0x300
FG_KALLSYMS = (b'ffffffff81000100 T vfs_read\nffffffff81000200 T ksys_read\n'
               b'ffffffff81000300 T x64_sys_call\nffffffff81000400 T _etext\n')

# ---- records and pages ----

def record(eid, pid, payload):
    return struct.pack('<HBBi', eid, 1, 0, pid) + payload


def switch_rec(prev, nxt):
    return record(SWITCH_ID, prev, struct.pack('<16siiq16sii', b'bash', prev, 120, 1, b'sleep',
                                              nxt, 120))


def wake_rec(pid):
    name = b'tr-hostile\0'
    return record(WAKE_ID, pid, struct.pack('<16siiiI', b'sleep', pid, 120, 1,
                                           (len(name) << 16) | 40) + name)


def print_rec(text):
    return record(PRINT_ID, 42, struct.pack('<Q', 0xffffffff81000000) + text + b'\0')


def event(delta, data):
    data += b'\0' * (-len(data) % 4)
    if len(data) <= 28 * 4:
        return struct.pack('<I', (len(data) // 4) | (delta << 5)) + data
    return struct.pack('<II', delta << 5, len(data) + 4) + data


def page(ts, events, lost=None):
    body = b''.join(events)
    commit = len(body)
    tail = b''
    if lost is not None:
        commit |= (1 << 31) | (1 << 30)
        tail = struct.pack('<Q', lost)
    out = struct.pack('<QQ', ts, commit) + body + tail
    return out + b'\0' * (PAGE - len(out))


def cpu_pages(cpu):
    recs = [switch_rec(100 + cpu, 200 + cpu), wake_rec(300 + cpu), print_rec(b'hello'),
            switch_rec(200 + cpu, 0)]
    p1 = page(1000000 + cpu, [event(10 * (i + 1), r) for i, r in enumerate(recs)])
    p2 = page(2000000 + cpu, [event(5, switch_rec(1, 2)), event(7, print_rec(b'x' * 200))],
              lost=3 if cpu else None)
    return p1 + p2


# ---- the writer: remembers where every number and section boundary went ----

class W:
    def __init__(self):
        self.b = bytearray()
        self.nums = []       # (offset, size, what)
        self.cuts = []       # (offset, what)

    def raw(self, data):
        self.b += data

    def num(self, v, size, what):
        self.nums.append((len(self.b), size, what))
        self.b += struct.pack('<' + {2: 'H', 4: 'I', 8: 'Q'}[size], v)

    def cut(self, what):
        self.cuts.append((len(self.b), what))

    def pad(self):
        self.b += b'\0' * (-len(self.b) % PAGE)


def meta_parts(w, o):
    """header info, ftrace formats, event formats, kallsyms, printk, cmdlines (v6 order)."""
    w.cut('header_page')
    w.raw(b'header_page\0')
    w.num(len(o['header_page']), 8, 'header_page size')
    w.raw(o['header_page'])
    w.raw(b'header_event\0')
    w.num(len(HEADER_EVENT), 8, 'header_event size')
    w.raw(HEADER_EVENT)


def machine_opts(w, o):
    """o['opts']: (id, name, parts), each part bytes or (value, size, what)."""
    for oid, name, parts in o.get('opts', ()):
        w.cut(name + ' option')
        w.num(oid, 2, name + ' option id')
        w.num(sum(len(p) if isinstance(p, bytes) else p[1] for p in parts), 4,
              name + ' option size')
        for p in parts:
            if isinstance(p, bytes):
                w.raw(p)
            else:
                w.cut(name + ' ' + p[2])
                w.num(p[0], p[1], name + ' ' + p[2])


def tsync_opts(samples=((1000, -500, 1, 0), (2000, -700, 1, 0), (9000, 100, 3, 1)),
               flags=1, peer=0x99):
    """TRACEID, a TIME_SHIFT with CPU 0's samples and one for CPU 1, a GUEST."""
    ts = [(peer, 8, 'peer'), (flags, 4, 'flags'), (2, 4, 'cpus'),
          (len(samples), 4, 'cpu 0 count')]
    for k, what in enumerate(('time', 'offset', 'scaling')):
        ts += [(s[k] & (2**64 - 1), 8, 'cpu 0 %s %d' % (what, i)) for i, s in enumerate(samples)]
    ts += [(1, 4, 'cpu 1 count'), (500, 8, 'cpu 1 time'), (7, 8, 'cpu 1 offset'),
           (1, 8, 'cpu 1 scaling')]
    ts += [(s[3] & (2**64 - 1), 8, 'cpu 0 fraction %d' % i) for i, s in enumerate(samples)]
    ts += [(0, 8, 'cpu 1 fraction')]
    guest = [b'vm\0', (0x1234, 8, 'trace id'), (2, 4, 'vcpus'), (0, 4, 'vcpu 0'),
             (300, 4, 'pid 0'), (1, 4, 'vcpu 1'), (301, 4, 'pid 1')]
    return [(11, 'TRACEID', [(0x1234, 8, 'id')]), (12, 'TIME_SHIFT', ts),
            (13, 'GUEST', guest)]


def v6(o):
    w = W()
    w.raw(MAGIC + b'6\0' + bytes([0, 8]))
    w.num(PAGE, 4, 'page size')
    meta_parts(w, o)
    w.cut('ftrace formats')
    w.num(len(o['ftrace']), 4, 'ftrace format count')
    for i, f in enumerate(o['ftrace']):
        w.num(len(f), 8, 'ftrace format %d size' % i)
        w.raw(f)
    w.cut('event formats')
    w.num(len(o['systems']), 4, 'system count')
    for sname, fmts in o['systems']:
        w.raw(sname + b'\0')
        w.num(len(fmts), 4, 'format count of ' + sname.decode())
        for i, f in enumerate(fmts):
            w.num(len(f), 8, 'format %d size' % i)
            w.raw(f)
    w.cut('kallsyms')
    w.num(len(o['kallsyms']), 4, 'kallsyms size')
    w.raw(o['kallsyms'])
    w.cut('printk')
    w.num(len(o['printk']), 4, 'printk size')
    w.raw(o['printk'])
    w.cut('cmdlines')
    w.num(len(o['cmdlines']), 8, 'cmdlines size')
    w.raw(o['cmdlines'])
    w.cut('cpu count')
    w.num(o['cpus'], 4, 'cpu count')
    w.cut('options')
    w.raw(b'options  \0')
    w.num(8, 2, 'CPUCOUNT option id')
    w.num(4, 4, 'CPUCOUNT option size')
    w.num(o['cpus'], 4, 'CPUCOUNT')
    machine_opts(w, o)
    w.num(0, 2, 'options end')
    w.cut('flyrecord')
    w.raw(b'flyrecord\0')
    table = []
    for c in range(o['cpus']):
        table.append(len(w.b))
        w.num(0, 8, 'cpu %d offset' % c)
        w.num(0, 8, 'cpu %d size' % c)
    for c, data in enumerate(o['data']):
        w.pad()
        w.cut('cpu %d data' % c)
        struct.pack_into('<QQ', w.b, table[c], len(w.b), len(data))
        w.raw(data)
    return w


def zip_data(kind, data):
    if kind == 'zlib':
        return zlib.compress(data, 9)
    return subprocess.run(['zstd', '-q', '-19', '-c'], input=data, stdout=subprocess.PIPE,
                          check=True).stdout


def v7(o, kind='none', chunk_pages=1, chunks=None, instances=()):
    """chunks: per CPU, a list of (csize, usize, bytes) to write as they are.
    instances: names of more buffers, each with the same data."""
    w = W()
    w.raw(MAGIC + b'7\0' + bytes([0, 8]))
    w.num(PAGE, 4, 'page size')
    w.raw(kind.encode() + b'\0' + (b'' if kind == 'none' else b'1.5') + b'\0')
    first_at = len(w.b)
    w.num(0, 8, 'first options offset')
    flags = 0 if kind == 'none' else 1
    sect = {}

    def section(sid, payload, what):
        w.cut(what)
        sect[sid] = len(w.b)
        w.num(sid, 2, what + ' section id')
        w.num(flags, 2, what + ' section flags')
        w.num(0, 4, what + ' section string')
        if flags:
            c = zip_data(kind, payload)
            w.num(8 + len(c), 8, what + ' section size')
            w.num(len(c), 4, what + ' compressed size')
            w.num(len(payload), 4, what + ' decompressed size')
            w.raw(c)
        else:
            w.num(len(payload), 8, what + ' section size')
            w.raw(payload)

    hw = W()
    meta_parts(hw, o)
    section(16, bytes(hw.b), 'header info')
    p = struct.pack('<I', len(o['ftrace'])) + b''.join(struct.pack('<Q', len(f)) + f
                                                       for f in o['ftrace'])
    section(17, p, 'ftrace formats')
    p = struct.pack('<I', len(o['systems']))
    for sname, fmts in o['systems']:
        p += sname + b'\0' + struct.pack('<I', len(fmts))
        p += b''.join(struct.pack('<Q', len(f)) + f for f in fmts)
    section(18, p, 'event formats')
    section(19, struct.pack('<I', len(o['kallsyms'])) + o['kallsyms'], 'kallsyms')
    section(20, struct.pack('<I', len(o['printk'])) + o['printk'], 'printk')
    section(21, struct.pack('<Q', len(o['cmdlines'])) + o['cmdlines'], 'cmdlines')
    # trace-cmd 3.4's: BTF_FILE (23), MODULES_FILE (25), the bytes as they are.
    for sid, payload, what in o.get('sections', ()):
        section(sid, payload, what)
    # The trace data: one buffer section with every CPU's pages (or chunks).
    w.pad()
    w.cut('buffer section')
    bsect = len(w.b)
    w.num(3, 2, 'buffer section id')
    w.num(flags, 2, 'buffer section flags')
    w.num(0, 4, 'buffer section string')
    size_at = len(w.b)
    w.num(0, 8, 'buffer section size')
    cpus = []
    for c, data in enumerate(o['data']):
        w.cut('cpu %d data' % c)
        at = len(w.b)
        if flags:
            parts = chunks[c] if chunks else None
            if parts is None:
                step = chunk_pages * PAGE
                parts = []
                for i in range(0, len(data), step):
                    z = zip_data(kind, data[i:i + step])
                    parts.append((len(z), len(data[i:i + step]), z))
            w.num(len(parts), 4, 'cpu %d chunk count' % c)
            for i, (cs, us, z) in enumerate(parts):
                w.cut('cpu %d chunk %d' % (c, i))
                w.num(cs, 4, 'cpu %d chunk %d size' % (c, i))
                w.num(us, 4, 'cpu %d chunk %d decompressed size' % (c, i))
                w.raw(z)
            cpus.append((c, at, len(w.b) - at - 4))
        else:
            w.raw(data)
            cpus.append((c, at, len(data)))
    struct.pack_into('<Q', w.b, size_at, len(w.b) - size_at - 8)
    # The options section, last, pointing at everything.
    w.cut('options')
    struct.pack_into('<Q', w.b, first_at, len(w.b))
    w.num(0, 2, 'options section id')
    w.num(0, 2, 'options section flags')
    w.num(0, 4, 'options section string')
    osize_at = len(w.b)
    w.num(0, 8, 'options section size')
    start = len(w.b)
    for sid, what in ((16, 'header info'), (17, 'ftrace formats'), (18, 'event formats'),
                      (19, 'kallsyms'), (20, 'printk'), (21, 'cmdlines')):
        w.num(sid, 2, what + ' option id')
        w.num(8, 4, what + ' option size')
        w.num(sect[sid], 8, what + ' option offset')
    for sid, _, what in o.get('sections', ()):
        w.num(sid, 2, what + ' option id')
        w.num(8, 4, what + ' option size')
        w.num(sect[sid], 8, what + ' option offset')
    w.num(8, 2, 'CPUCOUNT option id')
    w.num(4, 4, 'CPUCOUNT option size')
    w.num(o['cpus'], 4, 'CPUCOUNT')
    machine_opts(w, o)
    body = b''
    for name in (b'',) + tuple(instances):
        what = 'BUFFER' if not name else 'BUFFER ' + name.decode()
        w.num(3, 2, what + ' option id')
        blen_at = len(w.b)
        w.num(0, 4, what + ' option size')
        bstart = len(w.b)
        w.num(bsect, 8, what + ' offset')
        w.raw(name + b'\0local\0')
        w.num(PAGE, 4, what + ' page size')
        w.num(len(cpus), 4, what + ' cpu count')
        for c, off, size in cpus:
            w.num(c, 4, what + ' cpu %d' % c)
            w.num(off, 8, what + ' cpu %d offset' % c)
            w.num(size, 8, what + ' cpu %d size' % c)
        struct.pack_into('<I', w.b, blen_at, len(w.b) - bstart)
    w.num(0, 2, 'DONE option id')
    w.num(8, 4, 'DONE option size')
    w.num(0, 8, 'next options offset')
    struct.pack_into('<Q', w.b, osize_at, len(w.b) - start)
    del body
    w.cut('end')
    return w


def btf_blob():
    """
    A small BTF (include/uapi/linux/btf.h): vfs_read's and ksys_read's
    prototypes as a 6.15 kernel declares them, through typedefs, pointers
    to a struct and to const char.
    """
    names = [b'', b'long unsigned int', b'size_t', b'file', b'char', b'long long int',
             b'loff_t', b'long int', b'ssize_t', b'vfs_read', b'buf', b'count', b'pos',
             b'unsigned int', b'fd', b'ksys_read']
    strs, off = b'', {}
    for n in names:
        off[n] = len(strs)
        strs += n + b'\0'

    def t(name, kind, vlen, size_or_type, *extra):
        return struct.pack('<III', off[name], kind << 24 | vlen, size_or_type) + \
            b''.join(struct.pack('<I', x) for x in extra)

    types = b''.join([
        t(b'long unsigned int', 1, 0, 8, 64),          # 1 INT
        t(b'size_t', 8, 0, 1),                         # 2 TYPEDEF -> 1
        t(b'file', 4, 0, 232),                         # 3 STRUCT file, no members kept
        t(b'', 2, 0, 3),                               # 4 PTR -> 3
        t(b'char', 1, 0, 1, 1 << 24 | 8),              # 5 INT signed char
        t(b'', 10, 0, 5),                              # 6 CONST -> 5
        t(b'', 2, 0, 6),                               # 7 PTR -> 6
        t(b'long long int', 1, 0, 8, 1 << 24 | 64),    # 8 INT
        t(b'loff_t', 8, 0, 8),                         # 9 TYPEDEF -> 8
        t(b'', 2, 0, 9),                               # 10 PTR -> 9
        t(b'long int', 1, 0, 8, 1 << 24 | 64),         # 11 INT
        t(b'ssize_t', 8, 0, 11),                       # 12 TYPEDEF -> 11
        t(b'', 13, 4, 12, off[b'file'], 4, off[b'buf'], 7, off[b'count'], 2,
          off[b'pos'], 10),                            # 13 FUNC_PROTO
        t(b'vfs_read', 12, 1, 13),                     # 14 FUNC (global)
        t(b'unsigned int', 1, 0, 4, 32),               # 15 INT
        t(b'', 13, 3, 12, off[b'fd'], 15, off[b'buf'], 7, off[b'count'], 2),  # 16
        t(b'ksys_read', 12, 1, 16),                    # 17 FUNC
    ])
    return struct.pack('<HBBIIIII', 0xeb9f, 1, 0, 24, 0, len(types), len(types),
                       len(strs)) + types + strs


def base(**kw):
    o = {
        'header_page': HEADER_PAGE,
        'ftrace': [PRINT_FMT],
        'systems': [(b'sched', [switch_fmt(), WAKE_FMT])],
        'kallsyms': b'ffffffff81000000 T _stext\nffffffff81000100 t do_thing [mod]\n',
        'printk': b'0xffffffff81000000 : "hello %d\\n"\n',
        'cmdlines': b'100 bash\n200 sleep\n',
        'cpus': 2,
    }
    o.update(kw)
    if 'data' not in o:
        o['data'] = [cpu_pages(c) for c in range(o['cpus'])]
    return o


def fg_entry(pid, func, depth):
    return record(FG_ENTRY_ID, pid, struct.pack('<QII', func, depth & 0xffffffff, 0))


def fg_exit(pid, func, depth, retval=0, calltime=1000, rettime=3500):
    return record(FG_EXIT_ID, pid, struct.pack('<QQIIQQ', func, retval, depth & 0xffffffff, 0,
                                               calltime, rettime))


def fg_print(text):
    return record(PRINT_ID, 77, struct.pack('<Q', FG_K) + text + b'\0')


def graph_base(recs, tr_opts=b'', kernel=b'6.15.0'):
    """A one-CPU function_graph recording of recs, tr_opts the funcgraph words tr stored."""
    data = page(1000000, [event(10 * (i + 1), r) for i, r in enumerate(recs)])
    opts = [(5, 'UNAME', [b'Linux vm ' + kernel + b' #1 SMP PREEMPT_DYNAMIC x86_64\0']),
            (9, 'VERSION', [b'tr 0.1.0\0' + tr_opts + b'tracer:function_graph\n\0'])]
    return base(ftrace=[PRINT_FMT, FG_EXIT_FMT, FG_ENTRY_FMT, FG_RETADDR_FMT], cpus=1,
                data=[data], kallsyms=FG_KALLSYMS, cmdlines=b'77 cat\n', opts=opts)


def graph_depth_recs(depths):
    """
    For each depth D (any 32-bit value): ksys_read entered at D, a nested
    vfs_read at D + 1 with a comment inside, a leaf at D + 1, a comment, and
    the exits: the entry, leaf, brace and comment lines each indent by D.
    """
    recs = []
    for d in depths:
        recs += [fg_entry(77, FG_KSYS_READ, d), fg_entry(77, FG_VFS_READ, d + 1),
                 fg_print(b'in vfs_read'), fg_exit(77, FG_VFS_READ, d + 1),
                 fg_entry(77, FG_SYSCALL, d + 1), fg_exit(77, FG_SYSCALL, d + 1),
                 fg_print(b'after the leaf'), fg_exit(77, FG_KSYS_READ, d)]
    return recs

def ustack_opts(maps):
    """tr's VERSION with sym-userobj on, then a PROCMAPS option of each text in maps."""
    opts = [(9, 'VERSION', [b'tr 0.1.0\0userstacktrace\nsym-userobj\n\0'])]
    return opts + [(10, 'PROCMAPS', [m]) for m in maps]


def ustack_base(maps):
    """User stacks of pid 100 (its tgid) and 101 (tgid 7): inside, between and past the map."""
    ustack = fmt(b'user_stack', USTACK_ID, USTACK_FIELDS,
                 b'"\\t=> %ps\\n", (void *)REC->caller[0]')
    stacks = [(100, 100, [0x400123, 0x7f0000001000, 0x10, 0x1000000, 0xffffffffffffffff, 0]),
              (101, 7, [0x400000, 0x7f00000fffff, 0, 0, 0, 0, 0, 0]),
              (100, 100, [0x7f0000400000 + i for i in range(8)])]
    recs = [record(USTACK_ID, pid, struct.pack('<II', tgid, 0) +
                   b''.join(struct.pack('<Q', a) for a in (ips + [0] * 8)[:8]))
            for pid, tgid, ips in stacks]
    data = page(1000000, [event(10 * (i + 1), r) for i, r in enumerate(recs)])
    return base(ftrace=[PRINT_FMT, ustack], cpus=1, data=[data], opts=ustack_opts(maps))


GOOD_MAPS = (b'64 4 /usr/bin/prog\n400000 401000 /usr/bin/prog\n1000000 1021000 [heap]\n'
             b'7f0000000000 7f0000028000 /usr/lib/libc.so.6\n'
             b'7f0000028000 7f00001bd000 /usr/lib/libc.so.6\n\0')


def procmaps_cases(put):
    put('procmaps-good-v6.dat', v6(ustack_base([GOOD_MAPS])).b)
    put('procmaps-good-v7.dat', v7(ustack_base([GOOD_MAPS]), 'zstd').b)
    many = b'64 4e20 /p\n' + b''.join(b'%x %x /lib%d.so\n' % (0x10000 + 0x2000 * i,
                                                                0x11000 + 0x2000 * i, i % 7)
                                          for i in range(20000)) + b'\0'
    bad = {
        'no-nul': GOOD_MAPS[:-1],
        'empty': b'',
        'nul-only': b'\0',
        'count-past': GOOD_MAPS.replace(b'64 4 ', b'64 5 '),
        'count-huge': GOOD_MAPS.replace(b'64 4 ', b'64 ffffffff '),
        'count-short': GOOD_MAPS.replace(b'64 4 ', b'64 3 '),
        'pid-zero': GOOD_MAPS.replace(b'64 4 ', b'0 4 '),
        'pid-huge': GOOD_MAPS.replace(b'64 4 ', b'ffffffffffffffff 4 '),
        'out-of-order': (b'64 2 /p\n7f0000000000 7f0000028000 /a\n400000 401000 /b\n\0'),
        'overlap': b'64 2 /p\n400000 402000 /a\n401000 403000 /b\n\0',
        'start-end': b'64 1 /p\n402000 401000 /a\n\0',
        'top-of-space': b'64 1 /p\nfffffffffffff000 ffffffffffffffff /a\n\0',
        'seventeen-digits': b'64 1 /p\n10000000000000000 20000000000000000 /a\n\0',
        'not-hex': b'64 1 /p\n40z000 401000 /a\n\0',
        'no-name': b'64 1 /p\n400000 401000\n\0',
        'long-name': b'64 1 /p\n400000 401000 /' + b'a' * 70000 + b'\n\0',
        'crlf': GOOD_MAPS.replace(b'\n', b'\r\n'),
        'nul-inside': GOOD_MAPS.replace(b'[heap]', b'[he\0ap]'),
        'many': many,
    }
    for label, text in bad.items():
        put('procmaps-%s-v6.dat' % label, v6(ustack_base([text])).b)
    # Two processes' maps, the same pid twice, and a bad one between good ones.
    put('procmaps-two-v6.dat', v6(ustack_base([GOOD_MAPS, GOOD_MAPS.replace(b'64 4', b'7 4')])).b)
    put('procmaps-mixed-v6.dat', v6(ustack_base([GOOD_MAPS, bad['overlap'], GOOD_MAPS])).b)


# ---- the cases ----

def big(out, size, kind='none'):
    """A well-formed file of about size bytes (2 CPUs of repeated pages), for memory tests."""
    pages = max(2, size // (2 * PAGE))
    o = base(cpus=2, data=[b'', b''])
    # Full pages of short records, as a busy trace has.
    blob = []
    for c in range(2):
        evs, used = [], 0
        while used + 48 < PAGE - 16:
            e = event(3, switch_rec(100 + c, 200 + c) if len(evs) % 4 else print_rec(b'm'))
            evs.append(e)
            used += len(e)
        blob.append(page(1000 + c, evs) + page(2000 + c, evs))
    w = v6(o) if kind == 'none' else None
    # The CPU table's offsets are patched as the data is streamed out.
    head = bytearray(w.b)
    table = head.index(b'flyrecord\0') + 10
    at = len(head) + (-len(head) % PAGE)
    with open(out, 'wb') as f:
        for c in range(2):
            struct.pack_into('<QQ', head, table + 16 * c, at + c * pages * PAGE, pages * PAGE)
        f.write(head + b'\0' * (-len(head) % PAGE))
        for c in range(2):
            reps = pages // 2
            for _ in range(reps // 64):
                f.write(blob[c] * 64)
            f.write(blob[c] * (reps % 64))
            if pages % 2:
                f.write(blob[c][:PAGE])


def main():
    if sys.argv[1] == '--big':
        big(sys.argv[3], int(sys.argv[2]))
        return
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0

    def put(name, data):
        nonlocal n
        with open(os.path.join(out, name), 'wb') as f:
            f.write(bytes(data))
        n += 1

    good = {'v6': v6(base()), 'v7': v7(base()), 'v7zstd': v7(base(), 'zstd'),
            'v7zlib': v7(base(), 'zlib')}
    for name, w in good.items():
        put('good-%s.dat' % name, w.b)

    # Truncations at every section boundary, and a byte either side.
    for name, w in good.items():
        seen = set()
        for off, what in w.cuts:
            for d in (-1, 0, 1):
                at = off + d
                if 0 < at < len(w.b) and at not in seen:
                    seen.add(at)
                    put('trunc-%s-%d.dat' % (name, at), w.b[:at])

    # Absurd numbers everywhere the writer put one.
    for name in ('v6', 'v7zstd'):
        w = good[name]
        for i, (off, size, what) in enumerate(w.nums):
            vals = [0, 0x7fffffff, 0x80000000, 0xffffffff] if size >= 4 else [0, 0x7fff, 0xffff]
            if size == 8:
                vals.append(0xffffffffffffffff)
            for v in vals:
                b = bytearray(w.b)
                struct.pack_into('<' + {2: 'H', 4: 'I', 8: 'Q'}[size], b, off, v)
                put('absurd-%s-%03d-%x.dat' % (name, i, v), b)
    # The several-machine options: every field cut short and every number absurd.
    put('tsync-good-v6.dat', v6(base(opts=tsync_opts())).b)
    for name, w in (('v7', v7(base(opts=tsync_opts()))),):
        put('tsync-good-%s.dat' % name, w.b)
        opt_at = min(off for off, what in w.cuts if what == 'TRACEID option')
        for off, what in w.cuts:
            if off > opt_at and off < len(w.b):
                # The option's size still says the whole: a cut option runs
                # into what follows; also one whose size says the cut.
                put('tsync-cut-%s-%d.dat' % (name, off), w.b[:off])
        for i, (off, size, what) in enumerate(w.nums):
            if not what.startswith(('TRACEID', 'TIME_SHIFT', 'GUEST')):
                continue
            vals = [0, 0x7fffffff, 0xffffffff] if size == 4 else [0, 0xffff]
            if size == 8:
                vals = [0, 0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff]
            for v in vals:
                b = bytearray(w.b)
                struct.pack_into('<' + {2: 'H', 4: 'I', 8: 'Q'}[size], b, off, v)
                put('tsync-absurd-%s-%03d-%x.dat' % (name, i, v), b)
    procmaps_cases(put)
    # Times and offsets at the ends of 64 bits: the interpolation wraps, no trap.
    i64max = 2**63 - 1
    for label, smp in (('ends', ((-i64max - 1, -i64max - 1, -1, 0), (i64max, i64max, -1, 63))),
                       ('minus1', ((-i64max - 1, 0, 1, 0), (i64max, i64max, 1, 0))),
                       ('frac64', ((0, 0, 1, 64), (10, 0, 1, 0)))):
        put('tsync-%s-v7.dat' % label, v7(base(opts=tsync_opts(samples=smp))).b)
    # The CPU count option alone: v6 refuses more than 65,536; v7 must too (defect 10).
    for v in (0xffffffff, 1000000000, 65537):
        w = v7(base(cpus=2))
        off = [o for o, s, what in w.nums if what == 'CPUCOUNT'][0]
        b = bytearray(w.b)
        struct.pack_into('<I', b, off, v)
        put('absurd-cpucount-%d.dat' % v, b)

    # header_page layouts (defect 1: an offset of 2^31-1 overflowed an int).
    for label, hp in (
            ('commit-intmax', HEADER_PAGE.replace(b'offset:8;\tsize:8', b'offset:2147483647;\tsize:8')),
            ('data-intmax', HEADER_PAGE.replace(b'offset:16', b'offset:2147483647')),
            ('ts-negative', HEADER_PAGE.replace(b'offset:0', b'offset:-8')),
            ('commit-size3', HEADER_PAGE.replace(b'offset:8;\tsize:8', b'offset:8;\tsize:3')),
            ('data-past-page', HEADER_PAGE.replace(b'offset:16', b'offset:4096')),
            ('no-fields', b'nothing here\n'),
            ('huge-numbers', HEADER_PAGE.replace(b'offset:8;', b'offset:99999999999999999999;')),
            ('empty', b'')):
        put('fmt-header-page-%s-v6.dat' % label, v6(base(header_page=hp)).b)
        put('fmt-header-page-%s-v7.dat' % label, v7(base(header_page=hp)).b)

    # Print fmts libtraceevent cannot take (defect 4), and more of their kind.
    prints = {
        'flags-nonexistent': b'"%s", __print_flags(REC->nonexistent, "|", { 1, "A" })',
        'symbolic-nonexistent': b'"%s", __print_symbolic(REC->nosuch, { 1, "A" })',
        'div-zero-const': b'"%d", REC->prev_pid / 0',
        'mod-zero-const': b'"%d", REC->prev_pid % 0',
        'div-zero-flag': b'"%s", __print_symbolic(REC->prev_pid, { 1/0, "A" })',
        'div-intmin': b'"%s", __print_symbolic(REC->prev_pid, { (-9223372036854775807-1)/-1, "A" })',
        'div-field': b'"%d", REC->prev_pid / REC->next_pid',
        'div-paren-zero': b'"%d", REC->prev_pid / (1 - 1)',
        'hex-intmax': b'"%s", __print_hex(REC->common_pid, 2147483647)',
        'hex-field-len': b'"%s", __print_hex(REC->prev_comm, REC->common_pid)',
        'hex-neg-len': b'"%s", __print_hex(REC->prev_comm, -1)',
        'hex-str-big': b'"%s", __print_hex_str(REC->prev_comm, 70000)',
        'hex-not-field': b'"%s", __print_hex(1, 2)',
        'array-huge': b'"%s", __print_array(REC->prev_comm, 100000, 8)',
        'array-elsize': b'"%s", __print_array(REC->prev_comm, 2, 3)',
        'array-field-count': b'"%s", __print_array(REC->prev_comm, REC->prev_pid, 8)',
        'get-str-nonexistent': b'"%s", __get_str(nosuch)',
        'cpumask-nonexistent': b'"%s", __get_cpumask(nosuch)',
        'bitmask-nonexistent': b'"%s", __get_bitmask(nosuch)',
        'dynarray-len-nonexistent': b'"%d", __get_dynamic_array_len(nosuch)',
        'width-huge': b'"%999999999d", REC->prev_pid',
        'star-width': b'"%*d", REC->prev_pid, REC->next_pid',
        'star-width-const': b'"%*d", 2147483647, REC->next_pid',
        'percent-n': b'"%n", REC->prev_pid',
        'too-few-args': b'"%d %d %d %s %s"',
        'unknown-conv': b'"%Q", REC->prev_pid',
        'deep-parens': b'"%d", ' + b'(' * 20000 + b'REC->prev_pid' + b')' * 20000,
        'long-chain': b'"%d", REC->prev_pid' + b' + REC->prev_pid' * 20000,
        'deep-ternary': b'"%d", ' + b'REC->prev_pid ? ' * 5000 + b'1' + b' : 0' * 5000,
        'unterminated': b'"%d, REC->prev_pid',
        'unterminated-call': b'"%s", __print_flags(REC->prev_pid, "|", { 1, "A" ',
        'nul-byte': b'"%d\0%s", REC->prev_pid, REC->prev_comm',
        'high-bytes': b'"\xff\xfe%d", REC->prev_pid',
        'empty': b'',
        'no-string': b'REC->prev_pid',
        'rec-alone': b'"%d", REC',
        'unknown-helper': b'"%s", __print_nothing(REC->prev_pid)',
        'statement-expr': b'"%d", ({ int x = REC->prev_pid; x; })',
        'many-args': b'"%d", ' + b', '.join([b'REC->prev_pid'] * 3000),
        'shift-huge': b'"%d", REC->prev_pid << 100',
        'func-unknown': b'"%d", jiffies_to_usecs(REC->prev_pid, REC->nosuch)',
        'sizeof-unbalanced': b'"%d", sizeof((int)',
        'long-format': b'"' + b'%d' * 30000 + b'", REC->prev_pid',
        # Names and conversions the one helper list and conversion reader must refuse.
        'get-rex-str': b'"%s", __get_rex_str(prev_comm)',
        'get-rel-bare': b'"%s", __get_rel_(prev_comm)',
        'print-dynamic-array': b'"%s", __print_dynamic_array(REC->prev_comm, 4)',
        'width-past-int': b'"%99999999999999999999d", REC->prev_pid',
        'conv-quote': b'"%" "d", REC->prev_pid',
        'conv-escape': b'"%\\x64", REC->prev_pid',
    }
    for label, p in prints.items():
        put('fmt-print-%s.dat' % label, v6(base(systems=[(b'sched', [switch_fmt(print_fmt=p),
                                                                    WAKE_FMT])])).b)
    # Field lines (defects 2 and 3 are the first two, with hist's key on prev_comm).
    fields = {
        'comm-4096': SWITCH_FIELDS.replace(b'char prev_comm[16];\toffset:8;\tsize:16',
                                           b'char prev_comm[4096];\toffset:8;\tsize:4096'),
        'comm-intmax': SWITCH_FIELDS.replace(b'char prev_comm[16];\toffset:8;\tsize:16',
                                             b'char prev_comm[4096];\toffset:8;\tsize:2147483647'),
        'offset-intmax': SWITCH_FIELDS.replace(b'offset:24;', b'offset:2147483647;'),
        'offset-negative': SWITCH_FIELDS.replace(b'offset:24;', b'offset:-24;'),
        'size-negative': SWITCH_FIELDS.replace(b'size:16;', b'size:-16;', 1),
        'size-zero': SWITCH_FIELDS.replace(b'size:16;', b'size:0;', 1),
        'array-zero': SWITCH_FIELDS.replace(b'prev_comm[16]', b'prev_comm[0]'),
        'array-huge': SWITCH_FIELDS.replace(b'prev_comm[16]', b'prev_comm[99999999999]'),
        'array-garbage': SWITCH_FIELDS.replace(b'prev_comm[16]', b'prev_comm[1'),
        'dup-field': SWITCH_FIELDS + b'\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n',
        'many-fields': b''.join(b'\tfield:int f%d;\toffset:%d;\tsize:4;\tsigned:1;\n' % (i, 8 + 4 * (i % 100))
                                for i in range(3000)),
        'long-name': SWITCH_FIELDS.replace(b'prev_pid;', b'p' * 10000 + b';'),
        'no-offset': SWITCH_FIELDS.replace(b'offset:24;', b''),
        'data-loc-past': SWITCH_FIELDS + b'\tfield:__data_loc char[] s;\toffset:65534;\tsize:4;\tsigned:0;\n',
        'zero-size-past': SWITCH_FIELDS + b'\tfield:char tail[];\toffset:60000;\tsize:0;\tsigned:0;\n',
    }
    for label, f in fields.items():
        p = SWITCH_PRINT if label != 'zero-size-past' else b'"%s", REC->tail'
        put('fmt-field-%s.dat' % label, v6(base(systems=[(b'sched', [switch_fmt(f, p), WAKE_FMT])])).b)
    # Whole formats at their edges.
    for label, f in (('no-name', b'ID: 316\nformat:\n' + COMMON),
                     ('id-huge', switch_fmt().replace(b'ID: 316', b'ID: 99999999999')),
                     ('id-negative', switch_fmt().replace(b'ID: 316', b'ID: -5')),
                     ('no-print', switch_fmt().split(b'print fmt')[0]),
                     ('garbage', b'\x00\xff' * 500)):
        put('fmt-whole-%s.dat' % label, v6(base(systems=[(b'sched', [f, WAKE_FMT])])).b)

    # Compressed chunks: corruption, wrong sizes, a bomb (defect 6).
    w = good['v7zstd']
    chunk0 = [o for o, wh in w.cuts if wh == 'cpu 0 chunk 0'][0]
    for label, mutate in (
            ('flip', lambda b: b.__setitem__(slice(chunk0 + 12, chunk0 + 16), b'\xde\xad\xbe\xef')),
            ('usize-big', lambda b: struct.pack_into('<I', b, chunk0 + 4, 200 << 20)),
            ('usize-small', lambda b: struct.pack_into('<I', b, chunk0 + 4, 100)),
            ('csize-past', lambda b: struct.pack_into('<I', b, chunk0, 1 << 30))):
        b = bytearray(w.b)
        mutate(b)
        put('zip-zstd-%s.dat' % label, b)
    bomb = zip_data('zstd', bytes(256 << 20))
    for cpus in (1, 8, 64):
        o = base(cpus=cpus)
        put('zip-bomb-%dcpus.dat' % cpus,
            v7(o, 'zstd', chunks=[[(len(bomb), 256 << 20, bomb)]] * cpus).b)
    # Chunks at the size limit, full of events: all CPUs hold one at once while merging.
    full = cpu_pages(0) * ((16 << 20) // (2 * PAGE))
    mid = zip_data('zstd', full)
    put('zip-16m-chunks-8cpus.dat',
        v7(base(cpus=8), 'zstd', chunks=[[(len(mid), len(full), mid)] * 2] * 8).b)
    zb = zlib.compress(bytes(64 << 20), 9)
    put('zip-zlib-bomb-8cpus.dat', v7(base(cpus=8), 'zlib', chunks=[[(len(zb), 64 << 20, zb)]] * 8).b)

    # Issue 29's numbers: a CPU id far past the CPU count (convert and split sized tables
    # by it), an event id past what common_type holds (top sized its tables by it), and
    # timestamps 2^62 ns apart (top's replay went through every interval between).
    for v in (65536000, 0x7fffffff):
        w = v7(base())
        off = [o for o, s, what in w.nums if what == 'BUFFER cpu 1'][0]
        b = bytearray(w.b)
        struct.pack_into('<I', b, off, v)
        put('absurd-v7-cpuid-%d.dat' % v, b)
    # 65,536 CPUs declared for 257 buffers: 16.8 million CPU tables for convert to write.
    w = v7(base(), instances=[b'i%d' % i for i in range(256)])
    off = [o for o, s, what in w.nums if what == 'CPUCOUNT'][0]
    b = bytearray(w.b)
    struct.pack_into('<I', b, off, 65536)
    put('absurd-v7-cpucount-65536-257buffers.dat', b)
    huge = fmt(b'sched_switch', 2000000000, SWITCH_FIELDS, SWITCH_PRINT)
    put('fmt-id-huge-v7.dat', v7(base(systems=[(b'sched', [huge, WAKE_FMT])])).b)
    gap = [page(1000000 + c, [event(10, switch_rec(100 + c, 200 + c))]) +
           page((1 << 62) + c, [event(5, switch_rec(200 + c, 100 + c))]) for c in range(2)]
    put('gap-2e62-v7.dat', v7(base(data=gap)).b)
    gap = [page(1000000 + c, [event(10, switch_rec(100 + c, 200 + c))]) +
           page(5001000000 + c, [event(5, switch_rec(200 + c, 100 + c))]) for c in range(2)]
    put('gap-5s-v7.dat', v7(base(data=gap)).b)

    # function_graph depths past any kernel's (issue 36): the printer indented by
    # the depth, 2 GB of blanks at 2^30 and a signed overflow at 2^31 - 1.
    for v in (0, 1, 1023, 1024, 1025, 0x3fffffff, 0x40000000, 0x7fffffff, 0x80000000,
              0xfffffffe, 0xffffffff):
        put('absurd-graph-depth-%x-v6.dat' % v, v6(graph_base(graph_depth_recs([v]))).b)
    put('absurd-graph-depth-alternating-v7.dat',
        v7(graph_base(graph_depth_recs([0, 0x7fffffff, 1, 0xffffffff, 0, 0x3fffffff, 2]),
                      b'funcgraph-proc\nfuncgraph-abstime\n'), 'zstd').b)

    # trace-cmd 3.4's BTF_FILE and MODULES_FILE (issue 38): a BTF read from
    # the file with function arguments to print, damaged every way a
    # header, a type or a string can be; module lists that are not lists.
    fg_args = [fg_entry(77, FG_KSYS_READ, 0),
               record(FG_ENTRY_ID, 77, struct.pack('<QII', FG_VFS_READ, 1, 0) +
                      struct.pack('<6Q', 3, 0xffff888100a0b000, 0x80, 0, 0, 0)),
               fg_exit(77, FG_VFS_READ, 1, 0xfffffff2), fg_exit(77, FG_KSYS_READ, 0, 0x340)]
    good = btf_blob()
    hdr, body = good[:24], good[24:]
    tlen, slen = struct.unpack_from('<II', good, 12)[0], struct.unpack_from('<I', good, 20)[0]

    def with_hdr(**f):
        v = dict(zip(('magic', 'ver', 'flags', 'hlen', 'toff', 'tlen', 'soff', 'slen'),
                     struct.unpack('<HBBIIIII', hdr)))
        v.update(f)
        return struct.pack('<HBBIIIII', *v.values()) + body

    def retyped(i, word, value):
        """Word 'word' of the types section's i-th 32-bit word set to value."""
        b = bytearray(good)
        struct.pack_into('<I', b, 24 + 4 * (i + word), value & 0xffffffff)
        return bytes(b)

    btfs = {
        'good': good,
        'empty': b'',
        'header-only': hdr,
        'cut-half': good[:len(good) // 2],
        'bad-magic': with_hdr(magic=0xbeef),
        'hdr-len-huge': with_hdr(hlen=0xffffffff),
        'types-past-end': with_hdr(tlen=0xfffffff0),
        'strings-past-end': with_hdr(slen=0xfffffff0),
        'strings-overlap-types': with_hdr(soff=0),
        'types-wrap': with_hdr(toff=0xfffffff0, tlen=0x20),
        'no-nul-strings': good[:-1] + b'x',
        # The typedef size_t (type 2) to itself, and to a type past the table.
        'typedef-loop': retyped(4, 2, 2),
        'typedef-past': retyped(4, 2, 0x7fffffff),
        # vfs_read's FUNC (type 14) to a prototype that is not one, past the end.
        'func-to-int': retyped(sum((3, 3, 3, 3, 4, 3, 3, 4, 3, 3, 4, 3, 11)), 2, 1),
        'func-proto-vlen-huge': retyped(sum((3, 3, 3, 3, 4, 3, 3, 4, 3, 3, 4, 3)), 1,
                                        13 << 24 | 0xffff),
        'name-off-past': retyped(0, 0, 0xfffffff0),
        'pointer-cycle': retyped(3 + 3 + 3, 2, 4),
    }
    for label, blob in btfs.items():
        o = graph_base(fg_args, b'funcgraph-args\n')
        o['sections'] = [(23, blob, 'BTF')]
        put('btf-%s-v7.dat' % label, v7(o, 'zstd').b)
    o = graph_base(fg_args, b'funcgraph-args\n')
    o['sections'] = [(23, good, 'BTF')]
    put('btf-good-plain-v7.dat', v7(o).b)
    mods = {
        'odd': b'\n\nx\next4 abc 1 - Live zz\n' + b'm' * 5000 + b'\nnone\x00 1 2\n',
        'no-newline': b'ext4 1056768 1 - Live 0xffffffffc0400000',
        'many': b''.join(b'mod%d 4096 0 - Live 0x%x\n' % (i, 0xffffffffc0000000 + i * 4096)
                         for i in range(20000)),
    }
    for label, text in mods.items():
        o = base()
        o['sections'] = [(25, text, 'modules')]
        put('modules-%s-v7.dat' % label, v7(o, 'zstd').b)
    # A persistent buffer's previous boot (LAST_BOOT_INFO, 24): deltas that
    # wrap, module lists past the cap, text that is not last_boot_info.
    lb_ks = (b'ffffffff9a000000 T _text\nffffffff9a001000 T vfs_read\n'
             b'ffffffffc0001000 t m_fn\t[m]\n0000000000000010 A percpu_thing\n')
    lastboot = {
        'good': b'trp:ffffffff81000000\t[kernel]\nffffffffc0a00000\tm\n\0',
        'current': b'trp:# Current\n\0',
        'wraps': b'trp:ffffffffffffffff\t[kernel]\n0\tm\n\0',
        'zero': b'trp:0\t[kernel]\n\0',
        'no-colon': b'ffffffff81000000\t[kernel]\n\0',
        'no-nul': b'trp:ffffffff81000000\t[kernel]',
        'garbage': b'trp:\xff\xfe\t[kernel]\n\x00\x01\n',
        'many-mods': b'trp:ffffffff81000000\t[kernel]\n' + b''.join(
            b'%x\tm%d\n' % (0xffffffffc0000000 + i * 4096, i) for i in range(5000)) + b'\0',
        'long-name': b'trp:ffffffff81000000\t[kernel]\nffffffffc0000000\t' + b'n' * 300 + b'\n\0',
    }
    for label, text in lastboot.items():
        o = base(kallsyms=lb_ks, opts=[(24, 'LAST_BOOT_INFO', [text])])
        put('lastboot-%s-v6.dat' % label, v6(o).b)
    o = base(kallsyms=lb_ks, opts=[(24, 'LAST_BOOT_INFO', [lastboot['good']])])
    o['sections'] = [(25, b'm 4096 0 - Live 0xffffffffc0001000\nm 1 0 - Live 0x1\n', 'modules')]
    put('lastboot-modules-v7.dat', v7(o, 'zstd').b)
    o = base(opts=[(24, 'LAST_BOOT_INFO', [lastboot['good']])])
    put('lastboot-no-text-v6.dat', v6(o).b)
    del tlen, slen

    # Text sections at their edges (defects 8 and 9).
    texts = {
        'cmdlines-empty-lines': {'cmdlines': b'\n' * 200000},
        'cmdlines-odd': {'cmdlines': b'abc def\n-1 x\n99999999999999999999 y\n123\n123 \n 5 z\n'
                                     b'7 ' + b'c' * 5000 + b'\n0 zero\n\n\n8\tTAB\n'},
        'cmdlines-no-newline': {'cmdlines': b'100 ' + b'x' * 100000},
        'cmdlines-many': {'cmdlines': b''.join(b'%d comm%d\n' % (i, i) for i in range(1, 100000))},
        'printk-odd': {'printk': b'0x1 : "\n0x2 :\n: "x"\nzz : "abc"\n0x3 : ""\n0x4 : "a"\n'
                                 b'0x5 : "ab\n0x6 "abc"\n'},
        'kallsyms-odd': {'kallsyms': b'zz\n\n0 T\nffffffffffffffffffff T big\nffffffff81000000\n'
                                     b'ffffffff81000000 T ' + b'n' * 5000 + b'\n'},
        'kallsyms-many': {'kallsyms': b''.join(b'%016x t f%d\n' % (0xffffffff81000000 + i * 16, i)
                                               for i in range(50000))},
    }
    for label, kw in texts.items():
        put('text-%s-v6.dat' % label, v6(base(**kw)).b)
        put('text-%s-v7.dat' % label, v7(base(**kw)).b)
    print('hostile.py: %d files in %s' % (n, out))


if __name__ == '__main__':
    main()
