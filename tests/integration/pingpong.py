#!/usr/bin/env python3
"""Round trips between a host and a guest, each end marking its side in a
trace_marker file, for the clock-sync causality check (t1212).

  pingpong.py serve PORT TRACEFS   (guest) listen on 0.0.0.0:PORT; a
        connection names the buffer to mark in ("B NAME" for the instance
        NAME, "B -" for the top level), then for each line "I" received
        the server writes "guest recv I" to that buffer's trace_marker and
        answers "I".  A connection that sends "q" ends the server.  Prints
        "pingpong ready".
  pingpong.py ping PORT N MARKER [PAUSE_MS [BUFFER]]  (host) connect to
        127.0.0.1:PORT, name the guest's BUFFER (default "-"); N times:
        write "host send I" to MARKER, send "I", wait for the answer, write
        "host reply I", then pause (default 0), so that the round trips
        span several clock-sync measurements.
  pingpong.py quit PORT           (host) tell the server to end.

Each marker is written before the byte that another side's marker depends
on is sent, so with correct clocks the merged timeline reads send < recv <
reply for every I.  Every wait is bounded (30 s).
"""
import os
import socket
import sys
import time

WAIT = 30


def mark(fd, text):
    os.write(fd, text.encode())


def connect(port):
    end = time.monotonic() + WAIT
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return s
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.1)


def open_marker(path):
    """The agent makes its instance when the host's request comes, which
    under emulation can be after the host's command has connected here."""
    end = time.monotonic() + WAIT
    while True:
        try:
            return os.open(path, os.O_WRONLY)
        except FileNotFoundError:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


def readline(f):
    line = f.readline()
    if not line.endswith(b"\n"):
        sys.exit("pingpong: the other side closed")
    return line.strip().decode()


def serve(port, tracefs):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(4)
    print("pingpong ready", flush=True)
    while True:
        c, _ = ls.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c.settimeout(WAIT * 4)
        f = c.makefile("rb")
        try:
            first = readline(f)
            if first == "q":
                return
            buf = first[2:]
            if not first.startswith("B ") or "/" in buf or buf.startswith("."):
                raise OSError("bad first line %r" % first)
            # An agent's instance exists only while it records: open it
            # once the host, which runs under tr record -A, is here.
            fd = open_marker(os.path.join(tracefs, "" if buf == "-" else "instances/" + buf,
                                          "trace_marker"))
            i = readline(f)
            while True:
                mark(fd, "guest recv %s" % i)
                c.sendall(("%s\n" % i).encode())
                i = f.readline().strip().decode()
                if not i:
                    break
            os.close(fd)
        except (OSError, SystemExit) as e:
            print("pingpong: %s" % e, file=sys.stderr, flush=True)
        finally:
            c.close()


def ping(port, n, marker, pause, buf):
    fd = os.open(marker, os.O_WRONLY)
    s = connect(port)
    f = s.makefile("rb")
    s.sendall(("B %s\n" % buf).encode())
    for i in range(1, n + 1):
        mark(fd, "host send %d" % i)
        s.sendall(("%d\n" % i).encode())
        if readline(f) != str(i):
            sys.exit("pingpong: answer out of order at %d" % i)
        mark(fd, "host reply %d" % i)
        time.sleep(pause)
    s.close()


def main():
    what = sys.argv[1]
    if what == "serve":
        serve(int(sys.argv[2]), sys.argv[3])
    elif what == "ping":
        pause = int(sys.argv[5]) / 1000 if len(sys.argv) > 5 else 0
        buf = sys.argv[6] if len(sys.argv) > 6 else "-"
        ping(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], pause, buf)
    elif what == "quit":
        s = connect(int(sys.argv[2]))
        s.sendall(b"q\n")
        s.close()
    else:
        sys.exit("usage: pingpong.py serve|ping|quit ...")


if __name__ == "__main__":
    main()
