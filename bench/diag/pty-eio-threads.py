# Diagnostic, not part of `npm run bench`: does a plain reader lose the end of
# a pty's output, with no ptypilot involved? 100 ptys at once, each `cat` of
# a file, one thread per pty reading the master (poll + non-blocking read)
# until EIO, as a ptypilot session thread did before it confirmed the end;
# prints every pty whose total is short at the first EIO, with what the
# terminal's read buffer held right after it (FIONREAD) and what reads after
# it got (after short sleeps). See BENCHMARKS.md, "Lost tails".
#
#   python3 bench/diag/pty-eio-threads.py FILE EXPECTED_BYTES ROUNDS
import os, sys, subprocess, threading, select, time, fcntl, termios, struct
path = sys.argv[1]; expected = int(sys.argv[2]); rounds = int(sys.argv[3]); n = 100
lost = 0; total = 0; recovered = 0
SLEEPS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1]
def pending(m):
    try:
        return struct.unpack('i', fcntl.ioctl(m, termios.FIONREAD, b'\0\0\0\0'))[0]
    except OSError:
        return -1
def reader(m, out):
    got = 0
    p = select.poll(); p.register(m, select.POLLIN)
    while True:
        p.poll()
        end = False
        while True:
            try:
                b = os.read(m, 65536)
            except BlockingIOError:
                break
            except OSError:
                end = True; break
            if not b:
                end = True; break
            got += len(b)
        if end: break
    at_eio = got; waiting = pending(m); after = []
    for d in SLEEPS:
        time.sleep(d)
        while True:
            try:
                b = os.read(m, 65536)
            except OSError:
                break
            if not b: break
            got += len(b); after.append((d, len(b)))
    os.close(m); out.append((at_eio, waiting, after, got))
for r in range(rounds):
    ts = []; outs = []; ps = []
    for i in range(n):
        m, s = os.openpty()
        ps.append(subprocess.Popen(['cat', path], stdin=s, stdout=s, stderr=s, start_new_session=True, close_fds=True))
        os.close(s); os.set_blocking(m, False)
        o = []; outs.append(o)
        t = threading.Thread(target=reader, args=(m, o)); t.start(); ts.append(t)
    for t in ts: t.join()
    for p in ps: p.wait()
    for o in outs:
        total += 1
        at_eio, waiting, after, got = o[0]
        if at_eio != expected:
            lost += 1; recovered += got == expected
            print(f"round {r}: {at_eio} of {expected} at the first EIO; FIONREAD then {waiting}; "
                  f"read after it (sleep s, bytes) {after}; in all {got}", flush=True)
        elif after:
            print(f"round {r}: all at the first EIO, yet more after it {after}", flush=True)
    if r % 10 == 0: print(f"round {r}: short at the first EIO {lost}/{total}, complete after it {recovered}", flush=True)
print(f"short at the first EIO {lost}/{total}, complete after it {recovered}")
