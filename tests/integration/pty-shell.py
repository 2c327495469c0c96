#!/usr/bin/env python3
"""Drive a real interactive shell on a pseudo-terminal, as a user would.

    pty-shell.py SHELL RCDIR KEYS...

SHELL is bash or zsh; RCDIR holds its start-up file (bashrc, or .zshrc for
zsh), which must bind Ctrl-T to print the line being edited as
"[LINE:...]" (and "[END]" after it).  For each KEYS argument (Python
escapes allowed: "\\t" is Tab), the keys are typed, then Ctrl-T, and the
driver prints:

    === KEYS
    what the terminal showed in between (escape sequences removed)
    LINE: the line as the shell's editor holds it now

then clears the line (Ctrl-U) for the next one.  Completion runs the real
programs, so each step waits (up to TIMEOUT seconds) for the marker.
"""
import os
import pty
import re
import select
import sys
import time

TIMEOUT = float(os.environ.get("PTY_TIMEOUT", "30"))
ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x07|\r")


def read_until(fd, marker, timeout=TIMEOUT):
    buf = b""
    end = time.monotonic() + timeout
    while marker not in buf:
        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError("no %r after %ss; got %r" % (marker, timeout, buf[-400:]))
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                raise EOFError("the shell went away; got %r" % buf[-400:])
            if not data:
                raise EOFError("the shell went away; got %r" % buf[-400:])
            buf += data
    return buf


def settle(fd, quiet=0.3, timeout=TIMEOUT):
    """Read until the shell has printed nothing for `quiet` seconds."""
    buf = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], quiet)
        if not r:
            return buf
        try:
            data = os.read(fd, 65536)
        except OSError:  # the shell exited
            return buf
        if not data:
            return buf
        buf += data
    return buf


def main():
    shell, rcdir, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
    env = dict(os.environ, TERM="dumb", COLUMNS="200", LINES="50", HISTFILE="/dev/null")
    if shell == "bash":
        argv = ["bash", "--noprofile", "--rcfile", os.path.join(rcdir, "bashrc"), "-i"]
    elif shell == "zsh":
        env["ZDOTDIR"] = rcdir
        argv = ["zsh", "-i"]
    else:
        sys.exit("pty-shell.py: unknown shell %r" % shell)
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(argv[0], argv, env)
    try:
        os.write(fd, b"echo __READY__\n")
        read_until(fd, b"__READY__\r\n")
        settle(fd)
        for k in keys:
            typed = k.encode().decode("unicode_escape").encode()
            os.write(fd, typed)
            # The shell reads keys in order: Ctrl-T runs after the completion.
            os.write(fd, b"\x14")
            out = read_until(fd, b"[END]")
            text = ANSI.sub(b"", out).decode(errors="replace")
            m = re.search(r"\[LINE:(.*?)\]\n?\[END\]", text, re.S)
            line = m.group(1) if m else "?"
            shown = text[: m.start()] if m else text
            print("=== " + k)
            print(shown.rstrip("\n"))
            print("LINE: " + line)
            os.write(fd, b"\x15")
            settle(fd)
        os.write(fd, b"exit\n")
        settle(fd, timeout=5)
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
