// Process against real process trees: lookup, arguments, groups, children,
// killTree, terminate (grace, KILL, group, abort) and waitForExit.
import { describe, it, expect, vi, afterEach } from 'vitest'
import { copyFileSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { Process } from '../index.js'
import { alive, capMs, fdCount, procState, linuxOnly } from './helpers.js'

type Code = { code?: string; message: string }

const dir = mkdtempSync(join(tmpdir(), 'ptypilot-process-'))

// Runs a program as a child subreaper (PR_SET_CHILD_SUBREAPER): processes
// orphaned in its tree come back to it and are reaped, so a test can require
// that nothing is left at all, not even a zombie, on any init. The program
// runs in its own process group; the reaper prints its pid first.
const REAPER = join(dir, 'reaper.py')
writeFileSync(
  REAPER,
  `import ctypes, os, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    os.execvp(sys.argv[1], sys.argv[1:])
os.write(1, b"root %d\\n" % pid)
while True:
    try:
        os.wait()
    except ChildProcessError:
        time.sleep(0.01)
`,
)

// The tree: root shell -> background sleep, and a child shell -> a sleep in
// its own session (setsid) and a perl in its own process group. With
// "daemon", also a sleep started by a subshell that exits at once: it stays
// in the root's process group but leaves the root's tree.
writeFileSync(
  join(dir, 'root.sh'),
  `sleep 300 &
echo "bg $!"
sh "${join(dir, 'child.sh')}" &
echo "child $!"
if [ "$1" = daemon ]; then (sleep 304 & echo "daemon $!"); fi
wait
`,
)
writeFileSync(
  join(dir, 'child.sh'),
  `setsid sleep 301 &
echo "setsid $!"
perl -e '$| = 1; setpgrp(0, 0); print "pgrp $$\\n"; sleep 302' &
wait
`,
)

const spawned: ChildProcess[] = []

afterEach(() => {
  // Whatever a failed test left behind.
  for (const child of spawned.splice(0)) {
    if (child.pid !== undefined) Process.fromPid(child.pid)?.killTree('SIGKILL')
    child.kill('SIGKILL')
  }
})

function start(command: string, args: string[], options: { detached?: boolean } = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], ...options })
  spawned.push(child)
  let out = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  return { child, pid: child.pid!, exit, output: () => out }
}

/**
 * `/proc/<pid>/stat` fields: [ppid, pgid, sid], read from the main thread's
 * `/proc/<pid>/task/<pid>/stat` (the same fields): under qemu-user (`npm run
 * test:arm64`) this process's own `/proc/<pid>/stat` is qemu's made-up one,
 * with 0 for the group and the session.
 */
function ids(pid: number): [number, number, number] {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return [Number(f[1]), Number(f[2]), Number(f[3])]
}

/**
 * Waits for the line `<name> <pid>` in the output: up to 15 s (python3 and
 * perl start slowly on a loaded machine; vi.waitFor's own 1 s is too short there).
 */
async function pidFrom(output: () => string, name: string): Promise<number> {
  return vi.waitFor(
    () => {
      const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(output())
      if (!m) throw new Error(`no "${name}" line yet in ${JSON.stringify(output())}`)
      return Number(m[1])
    },
    { timeout: capMs(15_000), interval: 20 },
  )
}

/** Starts the tree under a subreaper and waits until every member is in place. */
async function startTree(withDaemon = false) {
  const reaper = start('python3', [REAPER, 'sh', join(dir, 'root.sh'), withDaemon ? 'daemon' : 'plain'])
  const root = await pidFrom(reaper.output, 'root')
  const pids = {
    root,
    bg: await pidFrom(reaper.output, 'bg'),
    child: await pidFrom(reaper.output, 'child'),
    setsid: await pidFrom(reaper.output, 'setsid'),
    pgrp: await pidFrom(reaper.output, 'pgrp'),
    ...(withDaemon ? { daemon: await pidFrom(reaper.output, 'daemon') } : {}),
  }
  // The setup really has members outside the root's group and session.
  await vi.waitFor(() => {
    expect(ids(pids.setsid)[2]).toBe(pids.setsid)
    expect(ids(pids.pgrp)[1]).toBe(pids.pgrp)
    expect(Process.fromPid(pids.setsid)!.args()).toEqual(['sleep', '301'])
    if (withDaemon) {
      const daemon = (pids as { daemon: number }).daemon
      expect(ids(daemon)[0]).toBe(reaper.pid)
      expect(ids(daemon)[1]).toBe(root)
    }
  })
  expect(ids(root)[1]).toBe(root)
  return { reaper, pids }
}

/** Every pid is gone: exited and reaped (not even a zombie left). */
async function allGone(pids: Record<string, number>) {
  await vi.waitFor(() => {
    const left = Object.entries(pids).filter(([, pid]) => Process.fromPid(pid) !== null)
    expect(left.map(([name, pid]) => `${name} ${pid} ${procState(pid)}`)).toEqual([])
  })
}

function expectCode(fn: () => unknown, code: string, text: string) {
  let caught: Code | undefined
  try {
    fn()
  } catch (err) {
    caught = err as Code
  }
  expect(caught?.code).toBe(code)
  expect(caught?.message).toContain(text)
}

async function rejection(promise: Promise<unknown>): Promise<Code> {
  return promise.then(
    () => {
      throw new Error('expected a rejection')
    },
    (err: Code) => err,
  )
}

describe('finding processes', () => {
  it('fromPid describes a running child: pid, ppid, argv, group, status', async (ctx) => {
    linuxOnly(ctx, 'reads /proc/PID/stat')
    const sh = start('sh', ['-c', 'sleep 30; :', 'name with spaces', '', 'ünï'])
    const p = Process.fromPid(sh.pid)!
    expect(p).toBeInstanceOf(Process)
    expect(p.pid).toBe(sh.pid)
    expect(p.ppid).toBe(process.pid)
    expect(p.args()).toEqual(['sh', '-c', 'sleep 30; :', 'name with spaces', '', 'ünï'])
    expect(p.groupId()).toBe(ids(process.pid)[1])
    expect(p.status()).toBe('running')
    const detached = start('sleep', ['30'], { detached: true })
    expect(Process.fromPid(detached.pid)!.groupId()).toBe(detached.pid)
  })

  it('fromPid is null for a pid that no longer exists, and the old handle reports exited', async () => {
    const t = start('sleep', ['0.05'])
    const p = Process.fromPid(t.pid)!
    await t.exit
    expect(Process.fromPid(t.pid)).toBeNull()
    expect(p.status()).toBe('exited')
    expect(p.args()).toEqual([])
    expect(p.groupId()).toBeNull()
    expect(p.children()).toEqual([])
    expect(await p.waitForExit({ timeoutMs: 0 })).toBe(true)
    expect(await p.terminate()).toBe(true)
  })

  it('rejects a pid that is not a positive integer, naming the value', () => {
    expectCode(() => Process.fromPid(-3), 'ERR_INVALID_ARG', 'pid must be a positive integer, got -3')
    expectCode(() => Process.fromPid(0), 'ERR_INVALID_ARG', 'got 0')
    expectCode(() => Process.fromPid(1.5), 'ERR_INVALID_ARG', 'got 1.5')
    expectCode(() => Process.fromPid(NaN), 'ERR_INVALID_ARG', 'got NaN')
    expectCode(() => Process.fromPid('42' as unknown as number), 'ERR_INVALID_ARG', 'got string "42"')
  })

  it('fromPath finds every process started from a binary, also through a symlink', async () => {
    const bin = join(dir, 'my-sleep')
    copyFileSync('/bin/sleep', bin)
    const { chmodSync } = await import('node:fs')
    chmodSync(bin, 0o755)
    const link = join(dir, 'my-sleep-link')
    symlinkSync(bin, link)
    const a = start(bin, ['30'])
    const b = start(bin, ['31'])
    start('sleep', ['32'])
    const want = [a.pid, b.pid].sort()
    await vi.waitFor(() => expect(Process.fromPath(bin).map((p) => p.pid).sort()).toEqual(want))
    const found = Process.fromPath(link)
    expect(found.map((p) => p.pid).sort()).toEqual(want)
    expect(found.every((p) => p instanceof Process)).toBe(true)
    expect(found.map((p) => p.args()[1]).sort()).toEqual(['30', '31'])
    expect(Process.fromPath(join(dir, 'no-such-binary'))).toEqual([])
    expectCode(() => Process.fromPath(42 as unknown as string), 'ERR_INVALID_ARG', 'got number 42')
    expectCode(() => Process.fromPath(''), 'ERR_INVALID_ARG', 'path must be a file path')
  })

  it('a zombie counts as exited', async () => {
    // A parent that never reaps its finished child.
    const parent = start('perl', ['-e', '$| = 1; my $pid = fork(); exit 0 if $pid == 0; print "zombie $pid\\n"; sleep 30'])
    const zombie = await pidFrom(parent.output, 'zombie')
    await vi.waitFor(() => expect(procState(zombie)).toBe('Z'))
    const p = Process.fromPid(zombie)!
    expect(p.status()).toBe('exited')
    expect(p.groupId()).toBeNull()
    expect(await p.waitForExit({ timeoutMs: 0 })).toBe(true)
    // The live parent does not list it among its children.
    expect(Process.fromPid(parent.pid)!.children()).toEqual([])
  })
})

describe('children', () => {
  it('lists the direct children only, as Process instances', async () => {
    const { pids } = await startTree()
    const root = Process.fromPid(pids.root)!
    const kids = root.children()
    expect(kids.every((k) => k instanceof Process)).toBe(true)
    expect(kids.map((k) => k.pid).sort()).toEqual([pids.bg, pids.child].sort())
    const child = kids.find((k) => k.pid === pids.child)!
    expect(child.ppid).toBe(pids.root)
    expect(child.children().map((k) => k.pid).sort()).toEqual([pids.setsid, pids.pgrp].sort())
    root.killTree('SIGKILL')
    await allGone(pids)
  })
})

describe('killTree', () => {
  it('ends the whole tree, including members in another session or process group, and leaves no zombie', async () => {
    const { pids } = await startTree()
    Process.fromPid(pids.root)!.killTree()
    await allGone(pids)
  })

  it('takes signal names and numbers; a TERM-ignoring tree needs KILL', async () => {
    const t = start('perl', ['-e', '$| = 1; $SIG{TERM} = "IGNORE"; print "ready\\n"; sleep 30'])
    await vi.waitFor(() => expect(t.output()).toContain('ready'))
    const p = Process.fromPid(t.pid)!
    p.killTree('TERM')
    expect(await p.waitForExit({ timeoutMs: 100 })).toBe(false)
    p.killTree(9)
    expect(await t.exit).toEqual({ code: null, signal: 'SIGKILL' })
    const u = start('sleep', ['30'])
    Process.fromPid(u.pid)!.killTree('sigint')
    expect((await u.exit).signal).toBe('SIGINT')
  })

  it('throws ERR_INVALID_ARG for an unknown signal and signals nothing', async () => {
    const t = start('sleep', ['30'])
    const p = Process.fromPid(t.pid)!
    expectCode(() => p.killTree('SIGNOPE'), 'ERR_INVALID_ARG', 'unknown signal "SIGNOPE"')
    expectCode(() => p.killTree(999), 'ERR_INVALID_ARG', 'unknown signal number 999')
    expectCode(() => p.killTree(2.5), 'ERR_INVALID_ARG', '2.5')
    expectCode(() => p.killTree({} as unknown as string), 'ERR_INVALID_ARG', 'got an object')
    expect(p.status()).toBe('running')
  })
})

describe('terminate', () => {
  it('ends the whole tree and resolves true once nothing is left', async () => {
    const { pids } = await startTree()
    expect(await Process.fromPid(pids.root)!.terminate()).toBe(true)
    await allGone(pids)
  })

  it('with group, also ends a member of the group that left the tree', async () => {
    const { pids } = await startTree(true)
    expect(await Process.fromPid(pids.root)!.terminate({ group: true })).toBe(true)
    await allGone(pids)
  })

  it("with group, never signals the caller's own process group", async (ctx) => {
    linuxOnly(ctx, 'reads /proc/PID/stat')
    // A child started without `detached` shares our group; signalling that
    // group would take this test process (and the runner) down.
    const t = start('sleep', ['30'])
    const p = Process.fromPid(t.pid)!
    expect(p.groupId()).toBe(ids(process.pid)[1])
    expect(await p.terminate({ group: true })).toBe(true)
    expect((await t.exit).signal).toBe('SIGTERM')
  })

  it('kills a process that ignores SIGTERM once the grace period is over', async () => {
    const t = start('perl', ['-e', '$| = 1; $SIG{TERM} = "IGNORE"; print "ready\\n"; sleep 30'])
    await vi.waitFor(() => expect(t.output()).toContain('ready'))
    expect(await Process.fromPid(t.pid)!.terminate({ gracefulMs: 200 })).toBe(true)
    expect(await t.exit).toEqual({ code: null, signal: 'SIGKILL' })
  })

  it('resolves as soon as a process that exits on SIGTERM is gone, well before the grace ends', async () => {
    const t = start('sleep', ['30'])
    const started = Date.now()
    expect(await Process.fromPid(t.pid)!.terminate({ gracefulMs: 20_000 })).toBe(true)
    expect(Date.now() - started).toBeLessThan(10_000)
    expect((await t.exit).signal).toBe('SIGTERM')
  })

  it('the process itself gets SIGTERM before its children, so it ends of the signal', async () => {
    // A shell waiting for its child would exit normally if the child died first.
    const t = start('sh', ['-c', 'sleep 30 & echo "child $!"; wait'])
    const child = await pidFrom(t.output, 'child')
    await vi.waitFor(() => expect(Process.fromPid(child)!.args()).toEqual(['sleep', '30']))
    expect(await Process.fromPid(t.pid)!.terminate()).toBe(true)
    expect(await t.exit).toEqual({ code: null, signal: 'SIGTERM' })
    expect(alive(child)).toBe(false)
  })

  it('a negative gracefulMs skips SIGTERM and kills at once', async () => {
    const t = start('sleep', ['30'])
    expect(await Process.fromPid(t.pid)!.terminate({ gracefulMs: -1 })).toBe(true)
    expect((await t.exit).signal).toBe('SIGKILL')
  })

  it('an AbortSignal stops the procedure with ERR_ABORTED, before KILL', async () => {
    const t = start('perl', ['-e', '$| = 1; $SIG{TERM} = "IGNORE"; print "ready\\n"; sleep 30'])
    await vi.waitFor(() => expect(t.output()).toContain('ready'))
    const p = Process.fromPid(t.pid)!
    const ac = new AbortController()
    const pending = p.terminate({ gracefulMs: 20_000, signal: ac.signal })
    ac.abort()
    const err = await rejection(pending)
    expect(err.code).toBe('ERR_ABORTED')
    expect(p.status()).toBe('running')
    // Already aborted: nothing is sent at all.
    const before = new AbortController()
    before.abort()
    expect((await rejection(p.terminate({ gracefulMs: -1, signal: before.signal }))).code).toBe('ERR_ABORTED')
    expect(p.status()).toBe('running')
  })

  it('rejects bad options with ERR_INVALID_ARG naming the option', async () => {
    const t = start('sleep', ['30'])
    const p = Process.fromPid(t.pid)!
    const cases: [unknown, string][] = [
      [{ graceMs: 10 }, 'unknown option options.graceMs'],
      [{ gracefulMs: '10' }, 'options.gracefulMs must be a number'],
      [{ timeoutMs: -1 }, 'timeoutMs must be a non-negative number of milliseconds, got -1'],
      [{ gracefulMs: NaN }, 'gracefulMs must be a finite number'],
      [{ group: 'yes' }, 'options.group must be a boolean'],
      [{ signal: 'abort' }, 'options.signal must be an AbortSignal'],
      ['fast', 'options must be an object'],
    ]
    for (const [options, text] of cases) {
      const err = await rejection(p.terminate(options as never))
      expect(err.code).toBe('ERR_INVALID_ARG')
      expect(err.message).toContain(text)
    }
    expect(p.status()).toBe('running')
  })
})

describe('waitForExit', () => {
  it('resolves true when the process ends, without blocking the event loop', async () => {
    const t = start('sleep', ['0.2'])
    let ticks = 0
    const timer = setInterval(() => ticks++, 10)
    const exited = await Process.fromPid(t.pid)!.waitForExit()
    clearInterval(timer)
    expect(exited).toBe(true)
    expect(ticks).toBeGreaterThan(0)
  })

  it('waits for a process that is not our child', async () => {
    const sh = start('sh', ['-c', 'sleep 0.2 & echo "grandchild $!"; wait'])
    const grandchild = Process.fromPid(await pidFrom(sh.output, 'grandchild'))!
    expect(grandchild.ppid).toBe(sh.pid)
    expect(await grandchild.waitForExit({ timeoutMs: 10_000 })).toBe(true)
    expect(alive(grandchild.pid)).toBe(false)
  })

  it('resolves false when the timeout runs out first', async () => {
    const t = start('sleep', ['30'])
    const p = Process.fromPid(t.pid)!
    expect(await p.waitForExit({ timeoutMs: 50 })).toBe(false)
    expect(p.status()).toBe('running')
  })

  it('rejects with ERR_ABORTED when its AbortSignal fires', async () => {
    const t = start('sleep', ['30'])
    const p = Process.fromPid(t.pid)!
    const ac = new AbortController()
    const pending = p.waitForExit({ signal: ac.signal })
    setTimeout(() => ac.abort(), 20)
    expect((await rejection(pending)).code).toBe('ERR_ABORTED')
    expect((await rejection(p.waitForExit({ signal: AbortSignal.abort() }))).code).toBe('ERR_ABORTED')
    expect(p.status()).toBe('running')
  })

  it('closes its pidfds: no descriptor is left after many waits', async () => {
    // No pipes: their closing after the exit would change the count.
    const child = spawn('sleep', ['30'], { stdio: 'ignore' })
    spawned.push(child)
    const p = Process.fromPid(child.pid!)!
    // The first wait starts the addon's runtime, which keeps its own descriptors.
    await p.waitForExit({ timeoutMs: 1 })
    const before = fdCount()
    const results = await Promise.all(Array.from({ length: 50 }, () => p.waitForExit({ timeoutMs: 20 })))
    expect(results.every((r) => r === false)).toBe(true)
    const ended = Promise.all(Array.from({ length: 20 }, () => p.waitForExit()))
    p.killTree('SIGKILL')
    expect((await ended).every((r) => r === true)).toBe(true)
    // Pipes of earlier tests' children may still be closing, so the count can only drop.
    expect(fdCount()).toBeLessThanOrEqual(before)
  })

  it('rejects bad options with ERR_INVALID_ARG', async () => {
    const p = Process.fromPid(start('sleep', ['30']).pid)!
    expect((await rejection(p.waitForExit({ timeoutMs: '1' } as never))).message).toContain(
      'options.timeoutMs must be a number',
    )
    expect((await rejection(p.waitForExit({ timeoutMs: -5 }))).message).toContain('got -5')
    expect((await rejection(p.waitForExit({ timeout: 5 } as never))).code).toBe('ERR_INVALID_ARG')
  })
})

describe('worker threads', () => {
  it('waits and terminates from several workers at once', async () => {
    const indexPath = fileURLToPath(new URL('../index.js', import.meta.url))
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      const { Process } = require(${JSON.stringify(indexPath)});
      (async () => {
        const p = Process.fromPid(workerData);
        const early = await p.waitForExit({ timeoutMs: 10 });
        const gone = await p.terminate();
        parentPort.postMessage({ early, gone, status: p.status() });
      })();
    `
    const children = [1, 2, 3].map(() => start('sleep', ['30']))
    const results = await Promise.all(
      children.map(
        (c) =>
          new Promise((resolve, reject) => {
            const worker = new Worker(source, { eval: true, workerData: c.pid })
            worker.once('message', (m) => {
              resolve(m)
              void worker.terminate()
            })
            worker.once('error', reject)
          }),
      ),
    )
    expect(results).toEqual(children.map(() => ({ early: false, gone: true, status: 'exited' })))
    for (const c of children) expect((await c.exit).signal).toBe('SIGTERM')
  })
})
