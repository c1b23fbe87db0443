"""Drives an interactive terminal program (Pi's or OpenCode's TUI) in a pseudo-terminal, as a
person would.

Usage: pty_drive.py SCRIPT.json

SCRIPT.json: {"argv": [...], "cwd": "...", "rows": 50, "cols": 200, "raw": "screen.raw",
"timeout": 120, "screen": false, "steps": [{"wait": "text", "send": "keys"}, ...]}. The program
runs with this process's environment (TERM set to xterm-256color) on a pty of that size. For each
step the driver waits until `wait` appears in what the program has written since the previous
step's keys were sent (escape sequences removed, any run of white space matching any other: the
program wraps and pads its lines), then types `send` (one key at a time, as a terminal delivers
typing). After the last step it waits for the program to exit.

With `"screen": true` (a program that draws a full-screen picture by moving the cursor and
redrawing only the cells that changed, as OpenCode's TUI does, so its output read in order is
not its text) the driver keeps the screen as a terminal would (`Screen`: cursor movement,
erasing, scrolling, the alternate screen; colours and other attributes ignored) and a step waits
until `wait` is on the screen as it now is (its rows joined by spaces, any run of white space
matching any other, box-drawing characters taken as white space). It answers the two queries a
terminal answers and a program may wait for: the cursor position (`CSI 6 n`) and the device
attributes (`CSI c`).

Writes everything the program wrote to `raw`, prints it with the escape sequences removed (with
`screen`: the screen as it was when each step's `wait` was seen, each after a line `--- step N
---`, and as it was last before the program left the alternate screen, after `--- last ---`),
and exits with the program's exit code; when a `wait` is not seen within `timeout` seconds (the
whole run), or the program does not exit in that time, it names the step on stderr, kills the
program and exits 124.
"""

import codecs
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
import unicodedata

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


# One escape sequence, or one control character, at the start of what is left.
SEQUENCE = re.compile(
    r"\x1b\[([0-?]*)([ -/]*)([@-~])"  # CSI: parameters, intermediates, final
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC … BEL / ST
    r"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC … ST
    r"|\x1b[ #%()*+\-./][0-~]"  # character sets and the like
    r"|\x1b([0-~])"  # other two-byte escapes (7, 8, c, D, E, M, =, >, …)
    r"|[\x00-\x1a\x1c-\x1f\x7f]"  # a control character
)
# What the end of a chunk may hold of a sequence whose rest has not arrived yet.
UNFINISHED = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[PX^_][^\x1b]*\x1b?|[ #%()*+\-./])?"
)
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
BOX = re.compile(r"[\u2500-\u259f]")


class Screen:
    """The screen of a terminal the program draws on: a grid of cells, the cursor, a scroll
    region, the main and the alternate screen. Attributes (colours, bold, …) are not kept."""

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.main = self.blank()
        self.grid = self.main
        self.r = self.c = 0
        self.saved = (0, 0)
        self.top, self.bottom = 0, rows - 1
        self.last = " "
        self.pending = ""
        self.replies = []  # what a terminal answers, for the driver to write back
        self.left_alternate = None  # the alternate screen's text when the program left it
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def blank(self):
        return [[" "] * self.cols for _ in range(self.rows)]

    def text(self):
        return "\n".join("".join(row).rstrip() for row in self.grid)

    def feed(self, data):
        buf = self.pending + self.decoder.decode(data)
        self.pending = ""
        i = 0
        while i < len(buf):
            m = CONTROL.search(buf, i)
            end = m.start() if m else len(buf)
            if end > i:
                self.put(buf[i:end])
            if not m:
                break
            i = end
            if buf[i] == "\x1b" and UNFINISHED.fullmatch(buf, i):
                self.pending = buf[i:]  # the rest of it comes with the next chunk
                return
            seq = SEQUENCE.match(buf, i)
            if seq is None:
                i += 1  # a lone ESC
                continue
            self.sequence(seq)
            i = seq.end()

    def put(self, run):
        for ch in run:
            if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
                continue
            width = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
            if self.c + width > self.cols:
                self.c = 0
                self.linefeed()
            self.grid[self.r][self.c] = ch
            if width == 2:
                self.grid[self.r][self.c + 1] = ""
            self.c += width
            self.last = ch

    def linefeed(self):
        if self.r == self.bottom:
            self.scroll_up(1)
        else:
            self.r = min(self.rows - 1, self.r + 1)

    def scroll_up(self, n, at=None):
        top = self.top if at is None else at
        for _ in range(n):
            del self.grid[top]
            self.grid.insert(self.bottom, [" "] * self.cols)

    def scroll_down(self, n, at=None):
        top = self.top if at is None else at
        for _ in range(n):
            del self.grid[self.bottom]
            self.grid.insert(top, [" "] * self.cols)

    def sequence(self, m):
        text = m.group(0)
        if m.group(3) is not None:
            self.csi(m.group(1), m.group(2), m.group(3))
        elif m.group(4) is not None:
            self.escape(m.group(4))
        elif len(text) == 1:
            self.control(text)

    def control(self, ch):
        if ch == "\r":
            self.c = 0
        elif ch in "\n\x0b\x0c":
            self.linefeed()
        elif ch == "\x08":
            self.c = max(0, min(self.c, self.cols - 1) - 1)
        elif ch == "\t":
            self.c = min(self.cols - 1, (self.c // 8 + 1) * 8)

    def escape(self, ch):
        if ch == "7":
            self.saved = (self.r, self.c)
        elif ch == "8":
            self.r, self.c = self.saved
        elif ch == "D":
            self.linefeed()
        elif ch == "E":
            self.c = 0
            self.linefeed()
        elif ch == "M":
            if self.r == self.top:
                self.scroll_down(1)
            else:
                self.r = max(0, self.r - 1)
        elif ch == "c":
            self.grid[:] = self.blank()
            self.r = self.c = 0
            self.top, self.bottom = 0, self.rows - 1

    def csi(self, params, inter, final):
        private = params[:1] if params[:1] in ("?", ">", "<", "=") else ""
        nums = [int(p) if p.isdigit() else 0 for p in params[len(private):].split(";")]
        n = max(1, nums[0])
        if private == "?" and final in "hl" and not inter:
            for mode in nums:
                if mode in (47, 1047, 1049):
                    self.alternate(final == "h", mode == 1049)
            return
        if private or inter:
            return
        rows, cols = self.rows, self.cols
        if final in "Hf":
            self.r = min(rows - 1, max(1, nums[0]) - 1)
            self.c = min(cols - 1, max(1, nums[1] if len(nums) > 1 else 1) - 1)
        elif final == "A":
            self.r = max(0, self.r - n)
        elif final in "Be":
            self.r = min(rows - 1, self.r + n)
        elif final in "Ca":
            self.c = min(cols - 1, self.c + n)
        elif final == "D":
            self.c = max(0, min(self.c, cols - 1) - n)
        elif final == "E":
            self.r, self.c = min(rows - 1, self.r + n), 0
        elif final == "F":
            self.r, self.c = max(0, self.r - n), 0
        elif final in "G`":
            self.c = min(cols - 1, n - 1)
        elif final == "d":
            self.r = min(rows - 1, n - 1)
        elif final == "J":
            self.erase_display(nums[0])
        elif final == "K":
            self.erase_line(nums[0])
        elif final == "X":
            c = min(self.c, cols)
            self.grid[self.r][c:c + n] = [" "] * len(self.grid[self.r][c:c + n])
        elif final == "P":
            row, c = self.grid[self.r], min(self.c, cols)
            del row[c:c + n]
            row.extend([" "] * (cols - len(row)))
        elif final == "@":
            row, c = self.grid[self.r], min(self.c, cols)
            row[c:c] = [" "] * n
            del row[cols:]
        elif final == "L" and self.top <= self.r <= self.bottom:
            self.scroll_down(n, self.r)
        elif final == "M" and self.top <= self.r <= self.bottom:
            self.scroll_up(n, self.r)
        elif final == "S":
            self.scroll_up(n)
        elif final == "T":
            self.scroll_down(n)
        elif final == "r":
            top = max(1, nums[0]) - 1
            bottom = (nums[1] if len(nums) > 1 and nums[1] else rows) - 1
            if top < bottom < rows:
                self.top, self.bottom = top, bottom
                self.r = self.c = 0
        elif final == "b":
            self.put(self.last * n)
        elif final == "s":
            self.saved = (self.r, self.c)
        elif final == "u":
            self.r, self.c = self.saved
        elif final == "n" and nums[0] == 6:
            self.replies.append(f"\x1b[{self.r + 1};{min(self.c, cols - 1) + 1}R")
        elif final == "c" and nums[0] == 0:
            self.replies.append("\x1b[?62;22c")

    def erase_display(self, how):
        if how == 0:
            self.erase_line(0)
            for row in self.grid[self.r + 1:]:
                row[:] = [" "] * self.cols
        elif how == 1:
            self.erase_line(1)
            for row in self.grid[:self.r]:
                row[:] = [" "] * self.cols
        else:
            for row in self.grid:
                row[:] = [" "] * self.cols

    def erase_line(self, how):
        row, c = self.grid[self.r], min(self.c, self.cols - 1)
        if how == 0:
            row[c:] = [" "] * (self.cols - c)
        elif how == 1:
            row[:c + 1] = [" "] * (c + 1)
        else:
            row[:] = [" "] * self.cols

    def alternate(self, on, cursor):
        if on and self.grid is self.main:
            if cursor:
                self.saved = (self.r, self.c)
            self.grid = self.blank()
        elif not on and self.grid is not self.main:
            self.left_alternate = self.text()
            self.grid = self.main
            if cursor:
                self.r, self.c = self.saved


def on_screen(wait, screen):
    """True when `wait` is on `screen` (its rows joined by spaces, box-drawing characters and
    every run of white space taken as one space)."""
    flat = " ".join(BOX.sub(" ", screen.text()).split())
    return " ".join(wait.split()) in flat


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        script = json.load(f)
    env = dict(os.environ, TERM="xterm-256color")
    rows, cols = script.get("rows", 50), script.get("cols", 200)
    screen = Screen(rows, cols) if script.get("screen") else None
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(script["cwd"])
        os.execvpe(script["argv"][0], script["argv"], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    deadline = time.monotonic() + script.get("timeout", 120)
    raw = bytearray()
    shots = []  # (label, screen text) with `screen`
    status = None

    def received(chunk):
        raw.extend(chunk)
        if screen is not None:
            screen.feed(chunk)
            for reply in screen.replies:
                os.write(fd, reply.encode())
            screen.replies.clear()

    def pump(wait_s):
        nonlocal status
        ready, _, _ = select.select([fd], [], [], wait_s)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            received(chunk)
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
        if screen is None:
            sys.stdout.write(plain(bytes(raw)))
        else:
            last = screen.left_alternate if screen.left_alternate is not None else screen.text()
            for label, text in shots + [("last", last)]:
                sys.stdout.write(f"--- {label} ---\n{text}\n")
        sys.stdout.flush()

    def drain():
        while select.select([fd], [], [], 0)[0]:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            received(chunk)

    since = 0

    def found(wait):
        if screen is not None:
            return on_screen(wait, screen)
        return seen(wait, bytes(raw[since:]))

    for i, step in enumerate(script["steps"]):
        while not found(step["wait"]):
            if status is not None:
                drain()
                if found(step["wait"]):
                    break
                fail(f"the program exited before step {i} saw {step['wait']!r}")
            if time.monotonic() > deadline:
                fail(f"step {i}: {step['wait']!r} not seen in time")
            pump(0.1)
        since = len(raw)
        if screen is not None:
            shots.append((f"step {i}", screen.text()))
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
