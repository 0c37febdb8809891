"""The log benchmark's program: prints N lines of exactly 80 bytes (newline included), fast.

    python3 -m trainer.lines [--lines N] [--out FILE]

Line i is its number on 10 digits and filler; line 0 also carries the wall-clock time at which
the module started running, and the last line ends in "last". Lines are written in blocks of
1,000 with one write each, to stdout (a trainyard replica: every line becomes a log entry) or to
FILE (the floor: the same program, the same writes, to a file).
"""

import argparse
import sys
import time

STARTED = time.time()
WIDTH = 80
BLOCK = 1000


def line(i, count):
    if i == 0:
        text = f"{i:010d} started {STARTED:.6f} "
    elif i == count - 1:
        text = f"{i:010d} last "
    else:
        text = f"{i:010d} "
    return text.ljust(WIDTH - 1, "x").encode() + b"\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--out", default="")
    parser.add_argument("--job-dir", default="")  # appended by trainyard and gcloud; unused
    args = parser.parse_args()
    count = args.lines
    filler = b"x" * (WIDTH - 12) + b"\n"
    out = open(args.out, "wb") if args.out else sys.stdout.buffer
    with out:
        for start in range(0, count, BLOCK):
            stop = min(start + BLOCK, count)
            block = [b"%010d %s" % (i, filler) for i in range(start, stop)]
            if start == 0:
                block[0] = line(0, count)
            if stop == count:
                block[-1] = line(count - 1, count)
            out.write(b"".join(block))
    return 0


if __name__ == "__main__":
    sys.exit(main())
