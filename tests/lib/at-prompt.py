#!/usr/bin/env python3
"""Answer a partalign prompt on a real terminal, after something else ran.

    at-prompt.py OUT ANSWER 'SHELL COMMAND' -- PROGRAM ARGS...

Runs PROGRAM on a new pseudo-terminal of 80x24 (its stdin, stdout and
stderr), waits (30 s at most) until it prints "[y/N]", then runs SHELL
COMMAND with sh and waits for it, and only then types ANSWER and a newline.
Everything PROGRAM printed goes to OUT; the exit status is PROGRAM's (1
more than 255 never happens: a signal gives 128 + its number).  A failing
SHELL COMMAND or a prompt that never comes exits 125.  What runs between the
prompt and the answer is the only thing that can change the disk meanwhile,
so the race it makes is certain, not timed.
"""
import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time


def main():
    out, answer, between = sys.argv[1], sys.argv[2], sys.argv[3]
    if sys.argv[4] != '--':
        sys.exit("usage: at-prompt.py OUT ANSWER 'CMD' -- PROGRAM ARGS...")
    argv = sys.argv[5:]
    pid, fd = pty.fork()
    if pid == 0:
        # an 80x24 terminal, as an admin's window
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 24, 80, 0, 0))
        os.execvp(argv[0], argv)
    buf = b''
    deadline = time.monotonic() + 30
    while b'[y/N]' not in buf:
        left = deadline - time.monotonic()
        r = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
        if not r:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            open(out, 'wb').write(buf)
            sys.exit(125)
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            chunk = b''
        if not chunk:
            break
        buf += chunk
    if b'[y/N]' in buf:
        rc = subprocess.run(['sh', '-c', between]).returncode
        if rc != 0:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            open(out, 'wb').write(buf + b'\nat-prompt: the command between failed\n')
            sys.exit(125)
        os.write(fd, answer.encode() + b'\n')
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
    _, status = os.waitpid(pid, 0)
    open(out, 'wb').write(buf.replace(b'\r\n', b'\n'))
    if os.WIFSIGNALED(status):
        sys.exit(128 + os.WTERMSIG(status))
    sys.exit(os.WEXITSTATUS(status))


main()
