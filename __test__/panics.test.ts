// The panic boundary: a panic in the screen model (met by what a program
// prints) never hangs a session or aborts Node, on either read path — the
// session thread, or the JS thread that reads the answer to input (the
// keystroke fast path). Output, the exit and later screens go on; the
// incident is listed on the session and reported as a process warning.
import { describe, it, expect, vi, afterEach } from 'vitest'
import { spawn as spawnChild } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { PtySession, Shell, exec } from '../index.js'
import { collector, exists } from './helpers.js'

const indexPath = fileURLToPath(new URL('../index.js', import.meta.url))
const native = createRequire(import.meta.url)('../lib/binding.js') as {
  testPanicOn(needle: string, on: boolean): void
  testPanic(message: string): void
}

// ❤️ (U+2764 U+FE0F) at the bottom-right cell, then 'x' in the last column of
// the row above: 23 bytes on which vt100 0.18.1 panics (screen.rs:985).
const CORNER = String.raw`printf '\033[24;80H\342\235\244\357\270\217\033[23;80Hx'`

/** Runs `script` in a fresh Node process (a crash there cannot take the test down). */
function runNode(script: string, timeoutMs = 20_000) {
  return new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawnChild(process.execPath, ['-e', script])
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}

/** The JSON object a child printed last. */
function result(stdout: string) {
  const line = stdout.trim().split('\n').pop() ?? ''
  return JSON.parse(line)
}

/** Warnings the process emits while `fn` runs. */
async function warningsDuring<T>(fn: () => Promise<T>): Promise<{ value: T; warnings: Error[] }> {
  const warnings: Error[] = []
  const onWarning = (w: Error) => warnings.push(w)
  process.on('warning', onWarning)
  try {
    const value = await fn()
    // Reports travel through a threadsafe function: give them a turn.
    await new Promise((r) => setTimeout(r, 50))
    return { value, warnings }
  } finally {
    process.off('warning', onWarning)
  }
}

describe('the 23-byte corner output (VS16 at the bottom-right cell)', () => {
  it('read on the session thread (no listener): the exit comes, nothing is left behind', async () => {
    const child = await runNode(`
      const { PtySession, exec } = require(${JSON.stringify(indexPath)});
      (async () => {
        const s = PtySession.spawn({ command: ${JSON.stringify(CORNER)}, shell: 'sh' });
        const exit = await s.exited;
        const pid = s.pid;
        const screen = s.screen();
        const viaExec = await exec({ command: ${JSON.stringify(CORNER)}, shell: 'sh', timeoutMs: 10000 });
        console.log(JSON.stringify({ exit, running: s.running, pid, rows: screen.rows, incidents: s.incidents, execExit: viaExec.exitCode }));
      })();
    `)
    expect(child.signal).toBeNull()
    expect(child.code).toBe(0)
    const r = result(child.stdout)
    expect(r.exit).toMatchObject({ exitCode: 0, signal: null })
    expect(r.running).toBe(false)
    expect(r.rows).toBe(24)
    expect(r.execExit).toBe(0)
    // Reaped, not a zombie.
    expect(exists(r.pid)).toBe(false)
    for (const incident of r.incidents) expect(incident.message).toMatch(/screen model panicked/)
    if (r.incidents.length > 0) expect(child.stderr).toContain('PTYPILOT_PANIC')
  })

  it('read on the JS thread (a listener, and input the program answers): Node does not abort', async () => {
    const child = await runNode(`
      const { PtySession } = require(${JSON.stringify(indexPath)});
      (async () => {
        let out = '';
        const s = PtySession.spawn({ command: 'sh', args: ['-c', ${JSON.stringify(`read x; ${CORNER}; read y; echo done`)}] }, (d) => (out += d));
        s.write('go\\r');
        while (!out.includes('x')) await new Promise((r) => setTimeout(r, 10));
        s.write('y\\r');
        const exit = await s.exited;
        console.log(JSON.stringify({ exit, out, screen: s.screen().text, incidents: s.incidents }));
      })();
    `)
    expect(child.signal).toBeNull()
    expect(child.code).toBe(0)
    const r = result(child.stdout)
    expect(r.exit).toMatchObject({ exitCode: 0 })
    expect(r.out).toContain('\x1b[23;80Hx')
    expect(r.out).toContain('done')
    expect(r.screen).toContain('done')
  })
})

describe('a panic in an exported function', () => {
  it('is thrown as ERR_INTERNAL with the panic message, and the process goes on', () => {
    let err: (Error & { code?: string; cause?: unknown }) | undefined
    try {
      native.testPanic('deliberate test panic')
    } catch (e) {
      err = e as typeof err
    }
    expect(err?.code).toBe('ERR_INTERNAL')
    expect(err?.message).toContain('deliberate test panic')
    expect(err?.cause).toBeInstanceOf(Error)
    expect(PtySession.spawn({ command: 'true' }).pid).toBeGreaterThan(0)
  })
})

describe('a forced panic in the screen model (test hook)', () => {
  const needles: string[] = []
  const needle = () => {
    const n = `PTYPILOT-FORCED-PANIC-${process.pid}-${needles.length}-${Math.random().toString(36).slice(2)}`
    needles.push(n)
    native.testPanicOn(n, true)
    return n
  }
  afterEach(() => {
    for (const n of needles.splice(0)) native.testPanicOn(n, false)
  })

  it('on the session thread: output, the exit and later screens go on; the incident is listed and warned', async () => {
    const n = needle()
    const { value: s, warnings } = await warningsDuring(async () => {
      const s = PtySession.spawn({ command: 'sh', args: ['-c', `echo before; sleep 0.1; echo ${n}; sleep 0.1; echo after`] })
      await s.exited
      return s
    })
    expect(s.read().text).toBe(`before\n${n}\nafter\n`)
    expect(s.screen().text).toContain('after')
    expect(s.incidents.length).toBeGreaterThanOrEqual(1)
    expect(s.incidents[0].message).toMatch(/forced panic \(test hook\)/)
    expect(s.incidents[0].message).toMatch(/on ptypilot-session-\d+/)
    expect(s.incidents[0].seq).toBeGreaterThan(0)
    expect(warnings.some((w) => (w as { code?: string }).code === 'PTYPILOT_PANIC' && /forced panic/.test(w.message))).toBe(true)
  })

  it('on the JS thread (fast path): every byte reaches onData once, in order, and the session goes on', async () => {
    const n = needle()
    const out = collector()
    const s = PtySession.spawn({ command: 'cat' }, out.onData)
    let expected = ''
    // The answer is read on the JS thread when it comes within the hold
    // after the write; on a loaded machine the session thread may read some.
    for (let i = 0; i < 20 && !s.incidents.some((x) => /on a JS thread/.test(x.message)); i++) {
      const line = `${i} ${n}\r`
      s.write(line)
      // The terminal's echo, then cat's copy.
      expected += `${i} ${n}\r\n`.repeat(2)
      await vi.waitFor(() => expect(out.text()).toBe(expected))
    }
    expect(s.incidents.some((x) => /on a JS thread/.test(x.message))).toBe(true)
    s.write('still here\r')
    expected += 'still here\r\n'.repeat(2)
    await vi.waitFor(() => expect(out.text()).toBe(expected))
    await vi.waitFor(() => expect(s.screen().text).toContain('still here'))
    s.write('\x04')
    expect((await s.exited).exitCode).toBe(0)
    expect(out.text()).toBe(expected)
  })

  it('in a Shell and an exec: the run resolves with all of its output', async () => {
    const n = needle()
    const shell = new Shell()
    try {
      const r = await shell.run({ command: `echo ${n}; echo after` })
      expect(r).toMatchObject({ exitCode: 0, output: `${n}\nafter\n` })
      expect((await shell.run({ command: 'echo next' })).output).toBe('next\n')
    } finally {
      await shell.close()
    }
    // The output that made the model panic is not on the screen; what came
    // after it is.
    const e = await exec({ command: 'sh', args: ['-c', `echo ${n}; sleep 0.1; echo after`] })
    expect(e.output).toBe(`${n}\nafter\n`)
    expect(e.screen?.text).toContain('after')
  })
})
