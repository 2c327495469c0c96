#!/usr/bin/env python3
"""A misbehaving host of tr agent, for t1211-agent.sh (loopback only).

    agentpeer.py PORT MODE

MODE: garbage (bytes that are no message), bigmsg (a header of 9000 bytes),
option (a TRACE_REQ asking for -p function), manyargs (65 arguments),
cut (half a TRACE_REQ, then gone), quiet (connect and close at once),
breakout (a TRACE_REQ whose -f closes its parentheses early, "1) || (1",
to cancel the clause the agent adds for its own pids).
Each waits (at most 20 s) for the agent to close and prints the type of
the message it answered with, if any.

    agentpeer.py 0 agent:CPUS:BYTES

is a misbehaving agent for tr record -A instead: it listens on a free
loopback port (printing "port N"), answers one host's request with CPUS
CPUs and no time sync, sends BYTES of metadata and waits (at most 20 s)
for the host to close."""
import socket
import struct
import sys

port, mode = int(sys.argv[1]), sys.argv[2]


def msg(cmd, body=b'', data=b''):
    return struct.pack('>III', 12 + len(body) + len(data), cmd, len(body)) + body + data


def req(*args):
    a = struct.pack('>I', len(args)) + b''.join(x + b'\0' for x in args)
    return msg(6, struct.pack('>IIQ', 0, 0, 1), struct.pack('>II', 0, len(a)) + a)


if mode.startswith('agent:'):
    cpus, size = (int(x) for x in mode[6:].split(':'))
    ls = socket.socket()
    ls.bind(('127.0.0.1', 0))
    ls.listen(1)
    ls.settimeout(20)
    print('port', ls.getsockname()[1], flush=True)
    s, _ = ls.accept()
    s.settimeout(20)
    head = s.recv(12)
    size_req = struct.unpack('>I', head[:4])[0]
    left = size_req - len(head)
    while left > 0:
        left -= len(s.recv(left))
    ports = b'1\0' * cpus
    body = struct.pack('>IIIQ16sI', 0, cpus, 4096, 7, b'', 0)
    try:
        s.sendall(msg(7, body, ports))
        chunk = b'm' * 8180
        while size > 0:
            s.sendall(msg(3, b'', chunk[:size]))
            size -= len(chunk)
        s.sendall(msg(4))
        while s.recv(4096):
            pass
    except OSError:
        pass
    print('closed')
    sys.exit(0)
s = socket.create_connection(('127.0.0.1', port), timeout=20)
if mode == 'garbage':
    s.sendall(bytes(range(256)) * 4)
elif mode == 'bigmsg':
    s.sendall(struct.pack('>III', 9000, 6, 16))
elif mode == 'option':
    s.sendall(req(b'-e', b'sched:sched_switch', b'-p', b'function'))
elif mode == 'manyargs':
    s.sendall(req(*([b'-e'] * 65)))
elif mode == 'breakout':
    s.sendall(req(b'-e', b'sched:sched_process_exit', b'-f', b'1) || (1'))
elif mode == 'cut':
    s.sendall(req(b'-e', b'sched:sched_switch')[:20])
    s.shutdown(socket.SHUT_WR)
elif mode != 'quiet':
    sys.exit('unknown mode ' + mode)
if mode == 'quiet':
    s.close()
    sys.exit(0)
got = b''
try:
    while True:
        b = s.recv(4096)
        if not b:
            break
        got += b
except (ConnectionResetError, socket.timeout):
    pass
if len(got) >= 12:
    print('answer', struct.unpack('>I', got[4:8])[0])
