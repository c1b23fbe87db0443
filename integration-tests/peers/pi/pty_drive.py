"""Drives an interactive terminal program (Pi's TUI) in a pseudo-terminal, as a person would.

Usage: pty_drive.py SCRIPT.json

SCRIPT.json: {"argv": [...], "cwd": "...", "rows": 50, "cols": 200, "raw": "screen.raw",
"timeout": 120, "steps": [{"wait": "text", "send": "keys"}, ...]}. The program runs with this
process's environment (TERM set to xterm-256color) on a pty of that size. For each step the
driver waits until `wait` appears in what the program has written since the previous step's
keys were sent (escape sequences removed, any run of white space matching any other: the program
wraps and pads its lines), then types `send` (one key at a time, as a terminal
delivers typing). After the last step it waits for the program to exit.

Writes everything the program wrote to `raw`, prints it with the escape sequences removed, and
exits with the program's exit code; when a `wait` is not seen within `timeout` seconds (the
whole run), or the program does not exit in that time, it names the step on stderr, kills the
program and exits 124.
"""

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

ESCAPES = re.compile(
    rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC … BEL / ST
    rb"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    rb"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC … ST
    rb"|\x1b[@-Z\\-_]"  # other two-byte escapes
    rb"|\x1b[()][0-9A-Za-z]"  # character set selection
)


def plain(raw):
    text = ESCAPES.sub(b"", raw).decode("utf-8", "replace")
    return text.replace("\r", "")


def seen(wait, raw):
    """True when `wait` is in `raw`'s text, every run of white space taken as one space (the
    program wraps long lines and pads them)."""
    return " ".join(wait.split()) in " ".join(plain(raw).split())


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        script = json.load(f)
    env = dict(os.environ, TERM="xterm-256color")
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(script["cwd"])
        os.execvpe(script["argv"][0], script["argv"], env)
    size = struct.pack("HHHH", script.get("rows", 50), script.get("cols", 200), 0, 0)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, size)
    os.kill(pid, signal.SIGWINCH)
    deadline = time.monotonic() + script.get("timeout", 120)
    raw = bytearray()
    status = None

    def pump(wait_s):
        nonlocal status
        ready, _, _ = select.select([fd], [], [], wait_s)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            raw.extend(chunk)
            if chunk:
                return
        if status is None:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = code

    def fail(what):
        sys.stderr.write(f"pty_drive: {what}\n")
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        finish()
        sys.exit(124)

    def finish():
        with open(script["raw"], "wb") as out:
            out.write(raw)
        sys.stdout.write(plain(bytes(raw)))
        sys.stdout.flush()

    def drain():
        while select.select([fd], [], [], 0)[0]:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            raw.extend(chunk)

    since = 0
    for i, step in enumerate(script["steps"]):
        while not seen(step["wait"], bytes(raw[since:])):
            if status is not None:
                drain()
                if seen(step["wait"], bytes(raw[since:])):
                    break
                fail(f"the program exited before step {i} saw {step['wait']!r}")
            if time.monotonic() > deadline:
                fail(f"step {i}: {step['wait']!r} not seen in time")
            pump(0.1)
        since = len(raw)
        for key in split_keys(step["send"]):
            os.write(fd, key.encode())
            time.sleep(0.01)
    while status is None:
        if time.monotonic() > deadline:
            fail("the program did not exit in time")
        pump(0.1)
    drain()  # whatever it wrote last
    finish()
    sys.exit(os.waitstatus_to_exitcode(status))


def split_keys(text):
    """One key per write; an escape sequence (`\\x1b[…`) stays one key."""
    keys, i = [], 0
    while i < len(text):
        m = re.match(r"\x1b\[[0-9;]*[A-Za-z~]", text[i:])
        key = m.group(0) if m else text[i]
        keys.append(key)
        i += len(key)
    return keys


if __name__ == "__main__":
    main()
