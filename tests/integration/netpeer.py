#!/usr/bin/env python3
"""A misbehaving client of tr listen, for t1210-listen.sh (loopback only).

    netpeer.py PORT MODE [SOURCE_ADDR]

MODE: hold (connect and say nothing until stdin closes), holdcpus:N (the
set-up of a client of N CPUs, then nothing until stdin closes), garbage (bytes that
are no handshake), truncated (a good set-up, then half a message and
close), bigmsg (a good set-up, then a message header of 100000 bytes),
cut:FILE (the metadata of the v6 FILE, then the pages of its last buffer,
the last page of each CPU cut in half, and gone without CLOSE: a client
that died mid-stream), tgids:FILE:TEXT (the metadata of the v6 FILE, no
pages, then TEXT as its saved_tgids, backslash-n a newline, and CLOSE),
pages:FILE:BYTES[:FLAGS] (the metadata of the v6 FILE, then BYTES of pages,
its first CPU's pages of its last buffer over and over, on one CPU, then
CLOSE; FLAGS p: print "meta" after the metadata and wait for a line on
stdin before the pages, h: print "sent" after them and wait for stdin to
close before CLOSE, cN: the metadata's saved cmdlines grown by N MB of
lines, for a writer to run out of memory on).
Each waits (at most 20 s) for the listener to close, and prints what it
was told last.

drip:KIND:SECONDS sends one byte every SECONDS and never finishes: KIND tls
(a TLS record a byte at a time: to tr listen or tr agent with --psk), msg
(a good set-up, then a SEND_DATA message), data (a good set-up and
metadata, then a sub-buffer on the data connection), tlsdata (as data
with tr listen --psk: the set-up and metadata over TLS with KEY, then on
the data connection a TLS record a byte at a time; it prints "data port P"
first), agent (a request to tr agent).  drip:tlsdata:SECONDS:KEY names the
key file.  It prints "closed after S" (seconds from its connect) when the
server closes, or "open after S" at 40 s; it prints "connected" once the
bytes start.

proxy:listen:KIND and proxy:agent:KIND stand between a tr client and the
server at PORT (tr listen; tr agent for record -A): they print "proxy P",
take one client on P and pass its bytes both ways; when the server's
answer names its data ports (RINIT; TRACE_RESP and its time sync port),
a forger connects to each of them first, and only then is the answer
passed on.  KIND forge: the forger sends 16 bytes that are not the
session's token and a page; hold: it sends nothing.  At the end each
forger prints "forger PORT: closed, got N bytes" (N: what the server sent
it; "open" if not closed within 20 s).

mute (PORT unused) is a server: a listener or agent that takes
connections and never answers, for tr record -N and -A.  slow:SECONDS
(PORT unused) is one that answers each connection a byte every SECONDS:
trace-cmd's greeting, then a message header of 200 bytes and zeros, which
never make a whole answer, for 75 s at most; it prints "closed after S"
per connection as drip does."""
import atexit
import hashlib
import hmac
import os
import re
import select
import socket
import struct
import subprocess
import sys
import time

port, mode = int(sys.argv[1]), sys.argv[2]

if mode == 'mute':
    # A listener or an agent gone silent: it takes connections on a port
    # of its own (printed as "port P") and never says a word; 40 s at most.
    srv = socket.socket()
    srv.bind(('127.0.0.1', 0))
    srv.listen(4)
    print('port %d' % srv.getsockname()[1], flush=True)
    held = []
    end = time.monotonic() + 40
    while time.monotonic() < end:
        ready, _, _ = select.select([srv], [], [], end - time.monotonic())
        if ready:
            held.append(srv.accept()[0])
            print('accepted', flush=True)
    sys.exit(0)

if mode.startswith('slow:'):
    every = float(mode[5:])
    srv = socket.socket()
    srv.bind(('127.0.0.1', 0))
    srv.listen(4)
    print('port %d' % srv.getsockname()[1], flush=True)
    stream = b'tracecmd' + struct.pack('>III', 200, 1, 0) + b'\x00' * 188
    # One byte to each open connection per tick, 75 s at most.
    conns, end = {}, time.monotonic() + 75
    while time.monotonic() < end:
        ready, _, _ = select.select([srv] + list(conns), [], [], every)
        for r in ready:
            if r is srv:
                c = srv.accept()[0]
                conns[c] = [time.monotonic(), 0]
                print('accepted', flush=True)
            elif not r.recv(4096):
                print('closed after %.1f' % (time.monotonic() - conns.pop(r)[0]), flush=True)
        if not ready:
            for c, st in list(conns.items()):
                if st[1] < len(stream):
                    c.sendall(stream[st[1]:st[1] + 1])
                    st[1] += 1
    sys.exit(0)


def forge(forgers, kind, cmd, body, data):
    """A forger at each port the answer names, before the client has it."""
    if cmd == 2:
        n = struct.unpack('>I', body[:4])[0]
    else:
        n = struct.unpack('>I', body[4:8])[0]
    ports = [int(x) for x in data.split(b'\0')[:n]]
    if cmd == 7 and body[20:21] != b'\0':
        ports.append(struct.unpack('>I', body[36:40])[0])
    for p in ports:
        f = socket.create_connection(('127.0.0.1', p), timeout=20)
        if kind == 'forge':
            f.sendall(b'F' * 16 + b'P' * 4096)
        forgers.append((p, f))


def proxy(server, kind):
    """The bytes of one client, passed on; forgers at the data ports first."""
    ls = socket.socket()
    ls.bind(('127.0.0.1', 0))
    ls.listen(1)
    ls.settimeout(20)
    print('proxy %d' % ls.getsockname()[1], flush=True)
    cl, _ = ls.accept()
    sv = socket.create_connection(('127.0.0.1', port), timeout=20)
    # The listener's handshake comes before its messages: greeting, "V3", "OK".
    skip = 8 + 3 + 2 if server == 'listen' else 0
    st, forgers = [skip, b'', False], []
    deadline = time.monotonic() + 60
    open_ = [cl, sv]
    while open_ and time.monotonic() < deadline:
        try:
            relay(open_, cl, sv, forgers, kind, st)
        except OSError:
            # A reset on either side ends the relay: what the forgers got is the result.
            break
    report(forgers)


def relay(open_, cl, sv, forgers, kind, st):
    """One pass of the proxy: st is [bytes to pass unparsed, bytes held, forged yet]."""
    skip, held, done = st
    r, _, _ = select.select(open_, [], [], 1)
    for a in r:
        b = a.recv(65536)
        other = sv if a is cl else cl
        if not b:
            open_.remove(a)
            try:
                other.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            continue
        if a is cl or done:
            other.sendall(b)
            continue
        held += b
        out = b''
        while not done:
            if skip:
                take = min(skip, len(held))
                out, held, skip = out + held[:take], held[take:], skip - take
                if skip:
                    break
                continue
            if len(held) < 12:
                break
            size, cmd, csize = struct.unpack('>III', held[:12])
            if len(held) < size:
                break
            msg, held = held[:size], held[size:]
            body, data = msg[12:12 + csize], msg[12 + csize:]
            if cmd in (2, 7):
                forge(forgers, kind, cmd, body, data)
                done = True
            out += msg
        if done:
            out, held = out + held, b''
        other.sendall(out)
    st[:] = [skip, held, done]


def report(forgers):
    """What each forger was sent, and whether the server closed it."""
    for p, f in forgers:
        got, state = 0, 'open'
        try:
            while True:
                b = f.recv(65536)
                if not b:
                    state = 'closed'
                    break
                got += len(b)
        except ConnectionResetError:
            state = 'closed'
        except OSError:
            pass
        print('forger %d: %s, got %d bytes' % (p, state, got), flush=True)


if mode.startswith('proxy:'):
    proxy(*mode[6:].split(':'))
    sys.exit(0)



class Tunnel:
    """The control connection as TLS with tr's PSK, through openssl s_client
    (Python's ssl has no external PSK): the key file's bytes, HKDF-SHA-256
    with no salt and the info "tr tls-psk v1", as net-tls.c derives it."""

    def __init__(self, key_file):
        secret = open(key_file, 'rb').read().rstrip(b'\r\n')
        prk = hmac.new(b'\0' * 32, secret, hashlib.sha256).digest()
        psk = hmac.new(prk, b'tr tls-psk v1\x01', hashlib.sha256).digest()
        self.p = subprocess.Popen(
            ['openssl', 's_client', '-quiet', '-nocommands', '-connect',
             '127.0.0.1:%d' % port, '-tls1_3', '-ciphersuites',
             'TLS_AES_128_GCM_SHA256', '-psk_identity', 'tr', '-psk', psk.hex()],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            bufsize=0)
        atexit.register(self.close)

    def sendall(self, b):
        self.p.stdin.write(b)
        self.p.stdin.flush()

    def recv(self, n):
        r, _, _ = select.select([self.p.stdout], [], [], 20)
        if not r:
            raise socket.timeout('nothing through the tunnel in 20 s')
        return os.read(self.p.stdout.fileno(), n)

    def close(self):
        # s_client -quiet outlives its stdin: it is ended here, not left behind.
        self.p.kill()
        self.p.wait()


if mode.startswith('drip:tlsdata:'):
    s = Tunnel(mode.split(':', 3)[3])
else:
    s = socket.socket()
    s.settimeout(20)
    if len(sys.argv) > 3:
        s.bind((sys.argv[3], 0))
    s.connect(('127.0.0.1', port))


def grow_cmdlines(meta, mb):
    """meta (a little-endian v6 file's metadata) with mb MB more of saved
    cmdlines: walked section by section, as the v6 format lays them out."""
    u32 = lambda at: struct.unpack('<I', meta[at:at + 4])[0]
    u64 = lambda at: struct.unpack('<Q', meta[at:at + 8])[0]
    p = meta.index(b'\0', 10) + 1 + 2 + 4
    for name in (b'header_page\0', b'header_event\0'):
        assert meta[p:p + len(name)] == name
        p += len(name)
        p += 8 + u64(p)
    n, p = u32(p), p + 4
    for _ in range(n):
        p += 8 + u64(p)
    n, p = u32(p), p + 4
    for _ in range(n):
        p = meta.index(b'\0', p) + 1
        k, p = u32(p), p + 4
        for _ in range(k):
            p += 8 + u64(p)
    for _ in range(2):
        p += 4 + u32(p)
    old = meta[p + 8:p + 8 + u64(p)]
    more = b'1 x\n' * (mb << 18)
    return meta[:p] + struct.pack('<Q', len(old) + len(more)) + old + more + \
        meta[p + 8 + len(old):]


def read(n):
    b = b''
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise SystemExit('closed after %r' % b)
        b += c
    return b


def setup(cpus=1):
    assert read(8) == b'tracecmd'
    s.sendall(b'-1V3\0')
    assert read(3) == b'V3\0'
    s.sendall(b'766679\0\0')
    assert read(2) == b'OK'
    s.sendall(struct.pack('>IIIIII', 28, 1, 12, cpus, 4096, 1) + b'tcp\0')
    size = struct.unpack('>I', read(4))[0]
    return [int(p) for p in read(size - 4)[12:].split(b'\0')[:cpus]]




def drip(kind, every):
    start = time.monotonic()
    watch = [s]
    if kind == 'tls':
        stream, out = b'\x16\x03\x01\x02\x00' + b'\x01' * 512, s
    elif kind == 'agent':
        stream, out = struct.pack('>III', 200, 1, 0) + b'\x00' * 188, s
    elif kind == 'msg':
        setup(1)
        stream, out = struct.pack('>III', 8000, 3, 0) + b'x' * 7988, s
    else:
        ports = setup(1)
        s.sendall(struct.pack('>III', 16, 3, 0) + b'meta')
        s.sendall(struct.pack('>III', 12, 4, 0))
        out = socket.create_connection(('127.0.0.1', ports[0]), timeout=20)
        stream = b'p' * 4096
        if kind == 'tlsdata':
            # The tunnel is not a socket: only the data connection is watched.
            print('data port %d' % ports[0], flush=True)
            stream, watch = b'\x16\x03\x01\x02\x00' + b'\x01' * 512, []
        watch.append(out)
    print('connected', flush=True)
    for b in stream:
        if time.monotonic() - start > 40:
            break
        r, _, _ = select.select(watch, [], [], every)
        try:
            if r and not r[0].recv(4096):
                print('closed after %.1f' % (time.monotonic() - start))
                return
            if not r:
                out.sendall(bytes([b]))
        except OSError:
            print('closed after %.1f' % (time.monotonic() - start))
            return
    print('open after %.1f' % (time.monotonic() - start))


if mode.startswith('drip:'):
    kind, every = mode[5:].split(':')[:2]
    drip(kind, float(every))
    sys.exit(0)
elif mode.startswith('holdcpus:'):
    setup(int(mode[9:]))
    print('set up', flush=True)
    sys.stdin.read()
    s.close()
    print('closed')
    sys.exit(0)
elif mode == 'hold':
    read(8)
    sys.stdin.read()
    s.close()
    print('closed')
    sys.exit(0)
elif mode == 'garbage':
    read(8)
    s.sendall(bytes(range(1, 200)))
elif mode == 'truncated':
    setup()
    s.sendall(struct.pack('>III', 8000, 3, 0) + b'x' * 100)
    s.shutdown(socket.SHUT_WR)
elif mode.startswith('cut:'):
    d = open(mode[4:], 'rb').read()
    first = d.index(b'flyrecord\0')
    last = d.rindex(b'flyrecord\0')
    ports = setup(2)
    meta = d[:first]
    for i in range(0, len(meta), 8180):
        part = meta[i:i + 8180]
        s.sendall(struct.pack('>III', 12 + len(part), 3, 0) + part)
    s.sendall(struct.pack('>III', 12, 4, 0))
    for cpu, port in enumerate(ports):
        off, size = struct.unpack('<QQ', d[last + 10 + 16 * cpu:last + 26 + 16 * cpu])
        c = socket.create_connection(('127.0.0.1', port), timeout=20)
        c.sendall(d[off:off + size - 2048])
        c.close()
    s.close()
    print('closed')
    sys.exit(0)
elif mode.startswith('tgids:'):
    name, text = mode[6:].split(':', 1)
    d = open(name, 'rb').read()
    ports = setup(1)
    meta = d[:d.index(b'flyrecord\0')]
    for i in range(0, len(meta), 8180):
        part = meta[i:i + 8180]
        s.sendall(struct.pack('>III', 12 + len(part), 3, 0) + part)
    s.sendall(struct.pack('>III', 12, 4, 0))
    socket.create_connection(('127.0.0.1', ports[0]), timeout=20).close()
    t = text.replace('\\n', '\n').encode()
    s.sendall(struct.pack('>III', 12 + len(t), 3, 0) + t)
    s.sendall(struct.pack('>III', 12, 4, 0))
    s.sendall(struct.pack('>III', 12, 0, 0))
elif mode.startswith('pages:'):
    args = mode[6:].split(':')
    d = open(args[0], 'rb').read()
    last = d.rindex(b'flyrecord\0')
    meta = d[:d.index(b'flyrecord\0')]
    grow = re.search(r'c(\d+)', args[2] if len(args) > 2 else '')
    if grow:
        meta = grow_cmdlines(meta, int(grow.group(1)))
    page = b''
    for cpu in range((len(d) - last) // 16):
        off, size = struct.unpack('<QQ', d[last + 10 + 16 * cpu:last + 26 + 16 * cpu])
        if size >= 4096 and off + size <= len(d):
            page = d[off:off + size // 4096 * 4096]
            break
    assert page, 'no pages in ' + args[0]
    ports = setup(1)
    for i in range(0, len(meta), 8180):
        part = meta[i:i + 8180]
        s.sendall(struct.pack('>III', 12 + len(part), 3, 0) + part)
    s.sendall(struct.pack('>III', 12, 4, 0))
    flags = args[2] if len(args) > 2 else ''
    if 'p' in flags:
        print('meta', flush=True)
        sys.stdin.readline()
    c = socket.create_connection(('127.0.0.1', ports[0]), timeout=20)
    left = int(args[1])
    try:
        while left > 0:
            c.sendall(page[:left])
            left -= len(page)
    except OSError:
        pass
    c.close()
    if 'h' in flags:
        print('sent', flush=True)
        sys.stdin.read()
    try:
        s.sendall(struct.pack('>III', 12, 0, 0))
    except OSError:
        pass
elif mode == 'bigmsg':
    setup()
    s.sendall(struct.pack('>III', 100000, 3, 0))
try:
    while s.recv(4096):
        pass
except OSError:
    pass
print('closed')
