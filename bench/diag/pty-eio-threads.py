# Diagnostic, not part of `npm run bench`: does a plain reader lose the end of
# a pty's output, with no ptypilot involved? 100 ptys at once, each `cat` of
# a file, one thread per pty reading the master (poll + non-blocking read)
# until EIO, as a ptypilot session thread does; prints every pty whose
# total is short. See BENCHMARKS.md, "Lost tails".
#
#   python3 bench/diag/pty-eio-threads.py FILE EXPECTED_BYTES ROUNDS
import os, sys, subprocess, threading, select
path = sys.argv[1]; expected = int(sys.argv[2]); rounds = int(sys.argv[3]); n = 100
lost = 0; total = 0
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
    os.close(m); out.append(got)
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
        if o[0] != expected:
            lost += 1; print(f"round {r}: got {o[0]} of {expected}", flush=True)
    if r % 10 == 0: print(f"round {r} lost {lost}/{total}", flush=True)
print(f"lost {lost}/{total}")
