#!/usr/bin/env python3
# Rewrite a trace.dat file (version 6, or version 7 without compression) so
# tests can have inputs trace-cmd on this machine cannot write:
#
#   rewrite-dat.py IN OUT [--zip none|zlib|zstd] [--no-kallsyms] [--no-printk]
#                  [--keep-pids PID,...] [--chunk PAGES] [--trace-id ID]
#                  [--time-shift 'PEER FLAGS CPU...'] [--guest 'NAME ID PID,...']
#                  [--option ID=HEX]...
#
# --zip zlib|zstd (v7 only) compresses every metadata section and the trace
# data in chunks of --chunk pages, as trace-cmd does; zstd needs the zstd
# program.  --no-kallsyms and --no-printk drop the kallsyms and the printk
# formats, which are most of a small file; --keep-pids keeps only those
# pids' saved_cmdlines.  Written from trace-cmd.dat.v6(5) and v7(5).
#
# The several-machine options, added after the others (as trace-cmd's
# lib/trace-cmd/trace-input.c reads them): --trace-id ID (TRACEID);
# --time-shift 'PEER FLAGS CPU0 CPU1 ...' (TIME_SHIFT: the host's trace id,
# 1 to interpolate, and per guest CPU its samples "TIME:OFFSET[:SCALING[:FRAC]]"
# joined by ',', or '-' for none; --no-frac leaves the fraction bits out, as
# trace-cmd 2.9 did); --guest 'NAME ID PID0,PID1,...' (GUEST: a guest's name,
# its file's trace id and the host task of each vCPU); --option ID=HEX any
# option as raw bytes, for hostile inputs.  Numbers take 0x.
import struct
import subprocess
import sys
import zlib

MAGIC = b'\x17\x08Dtracing'


def zstd_compress(data):
    return subprocess.run(['zstd', '-q', '-19', '-c'], input=data, stdout=subprocess.PIPE,
                          check=True).stdout


class Reader:
    def __init__(self, data, end='<'):
        self.d, self.e = data, end

    def u(self, off, n):
        return struct.unpack_from(self.e + {2: 'H', 4: 'I', 8: 'Q'}[n], self.d, off)[0]

    def cstr(self, off):
        n = self.d.index(b'\0', off)
        return self.d[off:n], n + 1


def rewrite_v6(d, r, pos, args):
    """v6: everything in a fixed order; only kallsyms can be dropped."""
    e = r.e
    out = bytearray(d[:pos])
    p = pos
    # header_page, header_event
    for name in (b'header_page\0', b'header_event\0'):
        n = r.u(p + len(name), 8)
        out += d[p:p + len(name) + 8 + n]
        p += len(name) + 8 + n
    # ftrace formats
    cnt = r.u(p, 4)
    q = p + 4
    for _ in range(cnt):
        q += 8 + r.u(q, 8)
    out += d[p:q]
    p = q
    # event formats
    nsys = r.u(p, 4)
    q = p + 4
    for _ in range(nsys):
        _, q = r.cstr(q)
        cnt = r.u(q, 4)
        q += 4
        for _ in range(cnt):
            q += 8 + r.u(q, 8)
    out += d[p:q]
    p = q
    # kallsyms
    n = r.u(p, 4)
    if args['no_kallsyms']:
        out += struct.pack(e + 'I', 0)
    else:
        out += d[p:p + 4 + n]
    p += 4 + n
    # printk, cmdlines
    n = r.u(p, 4)
    if args['no_printk']:
        out += struct.pack(e + 'I', 0)
    else:
        out += d[p:p + 4 + n]
    p += 4 + n
    n = r.u(p, 8)
    text = trim_cmdlines(d[p + 8:p + 8 + n], args['keep'])
    out += struct.pack(e + 'Q', len(text)) + text
    p += 8 + n
    cpus = r.u(p, 4)
    out += d[p:p + 4]
    p += 4
    page = r.u(len(MAGIC) + 4, 4)
    # options and the flyrecord tables: copy, remembering where offsets go
    fixups = []          # (position in out, old data offset) of u64 offsets
    buffers = []         # old offsets of "flyrecord" tables of instances
    tag = d[p:p + 10]
    out += tag
    p += 10
    if tag == b'options  \0':
        while True:
            oid = r.u(p, 2)
            if oid == 0:
                for xid, body in extra_options(args, e):
                    out += struct.pack(e + 'HI', xid, len(body)) + body
            out += d[p:p + 2]
            p += 2
            if oid == 0:
                break
            n = r.u(p, 4)
            if oid == 3:
                buffers.append((len(out) + 4, r.u(p + 4, 8)))
            out += d[p:p + 4 + n]
            p += 4 + n
        tag = d[p:p + 10]
        out += tag
        p += 10
    elif extra_options(args, e):
        sys.exit('rewrite-dat: this v6 file has no options to add to')
    if tag != b'flyrecord\0':
        sys.exit('rewrite-dat: only flyrecord v6 files')
    tables = [(None, p)] + buffers
    # The top table sits right here; instance tables are elsewhere: rebuild all.
    blobs = []
    top_table_at = len(out)
    out += b'\0' * (16 * cpus)
    for i, (optpos, old) in enumerate(tables):
        if optpos is None:
            continue
        # instance tables go after the top one, each "flyrecord\0" + pairs
        new = len(out)
        struct.pack_into(e + 'Q', out, optpos, new)
        out += b'flyrecord\0' + b'\0' * (16 * cpus)
        tables[i] = (new + 10, old + 10)
    tables[0] = (top_table_at, p)
    for new_at, old_at in tables:
        for c in range(cpus):
            off, size = r.u(old_at + 16 * c, 8), r.u(old_at + 16 * c + 8, 8)
            blobs.append((new_at + 16 * c, d[off:off + size]))
    for at, blob in blobs:
        if len(out) % page:
            out += b'\0' * (page - len(out) % page)
        struct.pack_into(e + 'QQ', out, at, len(out) if blob else len(out), len(blob))
        out += blob
    return bytes(out)


def extra_options(args, e):
    """The options asked for on the command line: [(id, bytes)]."""
    out = []
    num = lambda t: int(t, 0)
    if args['trace_id'] is not None:
        out.append((11, struct.pack(e + 'Q', args['trace_id'] & (2**64 - 1))))
    if args['time_shift'] is not None:
        f = args['time_shift'].split()
        cpus = [[] if c == '-' else [[num(v) for v in smp.split(':')] for smp in c.split(',')]
                for c in f[2:]]
        body = struct.pack(e + 'QII', num(f[0]) & (2**64 - 1), num(f[1]), len(cpus))
        for smps in cpus:
            body += struct.pack(e + 'I', len(smps))
            for k, dflt in ((0, 0), (1, 0), (2, 1)):
                for smp in smps:
                    body += struct.pack(e + 'q', smp[k] if len(smp) > k else dflt)
        if not args['no_frac']:
            for smps in cpus:
                for smp in smps:
                    body += struct.pack(e + 'q', smp[3] if len(smp) > 3 else 0)
        out.append((12, body))
    for g in args['guests']:
        name, gid, pids = g.split()
        pids = [num(p) for p in pids.split(',')]
        body = name.encode() + b'\0' + struct.pack(e + 'QI', num(gid), len(pids))
        for i, pid in enumerate(pids):
            body += struct.pack(e + 'II', i, pid)
        out.append((13, body))
    for o in args['raw']:
        oid, hexdata = o.split('=', 1)
        out.append((num(oid), bytes.fromhex(hexdata)))
    return out


def trim_cmdlines(text, keep):
    """Only the saved_cmdlines lines of the pids in keep (None: all)."""
    if keep is None:
        return text
    lines = [l for l in text.split(b'\n') if l.split(b' ', 1)[0] in keep]
    return b'\n'.join(lines) + (b'\n' if lines else b'')


def section(sid, flags, string, payload, e):
    return struct.pack(e + 'HHIQ', sid, flags, string, len(payload)) + payload


def zip_meta(kind, data, e):
    if kind == 'zlib':
        c = zlib.compress(data, 9)
    else:
        c = zstd_compress(data)
    return struct.pack(e + 'II', len(c), len(data)) + c


def rewrite_v7(d, r, pos, args):
    e = r.e
    zname, q = r.cstr(pos)
    zver, q = r.cstr(q)
    if zname != b'none':
        sys.exit('rewrite-dat: the input must be an uncompressed v7 file')
    first = r.u(q, 8)
    page = r.u(len(MAGIC) + 4, 4)
    kind = args['zip']
    flags = 0 if kind == 'none' else 1
    version = {'none': b'', 'zlib': zlib.ZLIB_VERSION.encode(), 'zstd': b'1.5.4'}[kind]
    out = bytearray(d[:pos]) + kind.encode() + b'\0' + version + b'\0'
    first_at = len(out)
    out += b'\0' * 8

    # Read every options section of the input.
    options = []
    nxt = first
    while nxt:
        sid, sfl, sstr, size = struct.unpack_from(e + 'HHIQ', d, nxt)
        p, end = nxt + 16, nxt + 16 + size
        nxt = 0
        while p < end:
            oid, n = r.u(p, 2), r.u(p + 2, 4)
            body = d[p + 6:p + 6 + n]
            p += 6 + n
            if oid == 0:
                nxt = struct.unpack_from(e + 'Q', body)[0]
                break
            options.append((oid, body))

    def old_section(off):
        sid, sfl, sstr, size = struct.unpack_from(e + 'HHIQ', d, off)
        return sid, sstr, d[off + 16:off + 16 + size]

    new_opts = []
    for oid, body in options:
        if 16 <= oid <= 21:
            if (oid == 19 and args['no_kallsyms']) or (oid == 20 and args['no_printk']):
                continue
            sid, sstr, payload = old_section(struct.unpack_from(e + 'Q', body)[0])
            if oid == 21:
                text = trim_cmdlines(payload[8:8 + struct.unpack_from(e + 'Q', payload)[0]],
                                     args['keep'])
                payload = struct.pack(e + 'Q', len(text)) + text
            at = len(out)
            if flags:
                payload = zip_meta(kind, payload, e)
            out += section(sid, flags, sstr, payload, e)
            new_opts.append((oid, struct.pack(e + 'Q', at)))
        elif oid == 3:
            boff = struct.unpack_from(e + 'Q', body)[0]
            rb = Reader(body, e)
            name, p = rb.cstr(8)
            clock, p = rb.cstr(p)
            psize, ncpu = rb.u(p, 4), rb.u(p + 4, 4)
            p += 8
            cpus = []
            for _ in range(ncpu):
                cpus.append((rb.u(p, 4), rb.u(p + 4, 8), rb.u(p + 12, 8)))
                p += 20
            sid, sstr, _ = old_section(boff)
            sect_at = len(out)
            out += b'\0' * 16            # the section header, filled below
            if len(out) % psize:
                out += b'\0' * (psize - len(out) % psize)
            newcpus = []
            for cpu, off, size in cpus:
                raw = d[off:off + size]
                at = len(out)
                if flags and size:
                    chunk = args['chunk'] * psize
                    parts = [raw[i:i + chunk] for i in range(0, len(raw), chunk)]
                    blob = struct.pack(e + 'I', len(parts))
                    for part in parts:
                        c = zlib.compress(part, 9) if kind == 'zlib' else zstd_compress(part)
                        blob += struct.pack(e + 'II', len(c), len(part)) + c
                    out += blob
                    # trace-cmd's recorded size leaves the chunk count out
                    newcpus.append((cpu, at, len(blob) - 4))
                else:
                    out += raw
                    newcpus.append((cpu, at, size))
            struct.pack_into(e + 'HHIQ', out, sect_at, sid, flags, sstr, len(out) - sect_at - 16)
            nb = struct.pack(e + 'Q', sect_at) + name + b'\0' + clock + b'\0'
            nb += struct.pack(e + 'II', psize, len(newcpus))
            for cpu, off, size in newcpus:
                nb += struct.pack(e + 'IQQ', cpu, off, size)
            new_opts.append((3, nb))
        elif oid in (15, 22):
            continue                    # strings and latency text: not copied
        else:
            new_opts.append((oid, body))
    new_opts += extra_options(args, e)
    opt_at = len(out)
    payload = b''
    for oid, body in new_opts:
        payload += struct.pack(e + 'HI', oid, len(body)) + body
    payload += struct.pack(e + 'HIQ', 0, 8, 0)
    out += section(0, 0, 0, payload, e)
    struct.pack_into(e + 'Q', out, first_at, opt_at)
    return bytes(out)


def main():
    argv = sys.argv[1:]
    args = {'zip': 'none', 'no_kallsyms': False, 'no_printk': False, 'chunk': 4, 'keep': None,
            'trace_id': None, 'time_shift': None, 'no_frac': False, 'guests': [], 'raw': []}
    files = []
    while argv:
        a = argv.pop(0)
        if a == '--zip':
            args['zip'] = argv.pop(0)
        elif a == '--no-kallsyms':
            args['no_kallsyms'] = True
        elif a == '--no-printk':
            args['no_printk'] = True
        elif a == '--keep-pids':
            args['keep'] = set(x.encode() for x in argv.pop(0).split(','))
        elif a == '--chunk':
            args['chunk'] = int(argv.pop(0))
        elif a == '--trace-id':
            args['trace_id'] = int(argv.pop(0), 0)
        elif a == '--time-shift':
            args['time_shift'] = argv.pop(0)
        elif a == '--no-frac':
            args['no_frac'] = True
        elif a == '--guest':
            args['guests'].append(argv.pop(0))
        elif a == '--option':
            args['raw'].append(argv.pop(0))
        else:
            files.append(a)
    if len(files) != 2 or args['zip'] not in ('none', 'zlib', 'zstd'):
        sys.exit(__doc__ or 'usage: rewrite-dat.py IN OUT [--zip none|zlib|zstd] [--no-kallsyms]')
    d = open(files[0], 'rb').read()
    if d[:10] != MAGIC:
        sys.exit('rewrite-dat: not a trace.dat file')
    ver, pos = Reader(d).cstr(10)
    e = '>' if d[pos] else '<'
    r = Reader(d, e)
    pos += 2 + 4
    if ver == b'6':
        if args['zip'] != 'none':
            sys.exit('rewrite-dat: v6 files have no compression')
        out = rewrite_v6(d, r, pos, args)
    elif ver == b'7':
        out = rewrite_v7(d, r, pos, args)
    else:
        sys.exit('rewrite-dat: unknown version')
    open(files[1], 'wb').write(out)


main()
