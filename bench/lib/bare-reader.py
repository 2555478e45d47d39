"""The pty's own ceiling: a bare blocking read loop, no JS, no screen model.

Runs a command on a new pty (80x24), reads the master until end of file and
prints {"bytes": n, "ms": t, "reads": r, "cpuMs": c} as JSON, timed from just
before the spawn to the last read (`cpuMs`: the CPU time of this process over
the same span, the program it reads from not included). Used by bench/cases/throughput.js as the informative
"bare reader" row.

    python3 bench/lib/bare-reader.py <command> [args...]
"""

import fcntl
import json
import os
import struct
import subprocess
import sys
import termios
import time


def main():
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    t0 = time.perf_counter()
    c0 = time.process_time()
    child = subprocess.Popen(
        sys.argv[1:], stdin=slave, stdout=slave, stderr=slave, start_new_session=True
    )
    os.close(slave)
    total = reads = 0
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # EIO: every holder of the terminal closed it
            break
        if not chunk:
            break
        total += len(chunk)
        reads += 1
    ms = (time.perf_counter() - t0) * 1000
    cpu_ms = (time.process_time() - c0) * 1000
    child.wait()
    os.close(master)
    print(json.dumps({"bytes": total, "ms": ms, "reads": reads, "cpuMs": cpu_ms}))


main()
