#!/usr/bin/env python3
"""A misbehaving host of tr agent, for t1211-agent.sh (loopback only).

    agentpeer.py PORT MODE

MODE: garbage (bytes that are no message), bigmsg (a header of 9000 bytes),
option (a TRACE_REQ asking for -p function), manyargs (65 arguments),
cut (half a TRACE_REQ, then gone), quiet (connect and close at once),
breakout (a TRACE_REQ whose -f closes its parentheses early, "1) || (1",
to cancel the clause the agent adds for its own pids).
Each waits (at most 20 s) for the agent to close and prints the type of
the message it answered with, if any."""
import socket
import struct
import sys

port, mode = int(sys.argv[1]), sys.argv[2]


def msg(cmd, body=b'', data=b''):
    return struct.pack('>III', 12 + len(body) + len(data), cmd, len(body)) + body + data


def req(*args):
    a = struct.pack('>I', len(args)) + b''.join(x + b'\0' for x in args)
    return msg(6, struct.pack('>IIQ', 0, 0, 1), struct.pack('>II', 0, len(a)) + a)


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
