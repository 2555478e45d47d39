# A program that asks again and again, for the input-wait case: each round it
# works silently for a moment, prints a prompt, stamps CLOCK_MONOTONIC (ns,
# the clock of Node's process.hrtime) into the stamp file right before it
# reads, then reads.
#
#   python3 prompter.py KIND ROUNDS STAMP_FILE
#
# KIND: line (input(): canonical mode with echo, read(2)), password
# (getpass: echo off, reads /dev/tty), key (raw mode, select(2) on the
# terminal, then one byte), silent-key (the same without a prompt: the
# program starts waiting without printing anything first).
import getpass
import os
import random
import select
import sys
import termios
import time
import tty

kind, rounds, stamps = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = os.open(stamps, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
rng = random.Random(29)


def stamp(i):
    os.write(out, f'{i} {time.monotonic_ns()}\n'.encode())


fd = sys.stdin.fileno()
raw = kind in ('key', 'silent-key')
saved = termios.tcgetattr(fd)
if raw:
    tty.setraw(fd)
try:
    for i in range(rounds):
        # Work: 5 to 40 ms without output.
        time.sleep(rng.uniform(0.005, 0.04))
        if kind == 'line':
            sys.stdout.write(f'line {i}? ')
            sys.stdout.flush()
            stamp(i)
            input()
        elif kind == 'password':
            # getpass prints its prompt, turns echo off, then reads: the stamp
            # comes before the prompt here, so the time to print it counts.
            stamp(i)
            getpass.getpass(f'password {i}: ')
        else:
            if kind == 'key':
                os.write(1, f'key {i}? '.encode())
            stamp(i)
            select.select([fd], [], [])
            os.read(fd, 1)
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, saved)
