// The screen model and the waits built on it: waitForSettle, read, waitFor,
// paste, onScreen, and what screen() shows (wide characters, title, size).
import { describe, it, expect, vi } from 'vitest'
import { PtySession, type PtypilotError, type ScreenSnapshot } from '../index.js'

const patient = { timeout: 5000, interval: 20 }

/** Runs a Python program (given as source) in a terminal. */
function python(source: string, options: { cols?: number; rows?: number } = {}): PtySession {
  return PtySession.spawn({ command: 'python3', args: ['-c', source], ...options })
}

async function rejection(promise: Promise<unknown>): Promise<PtypilotError> {
  try {
    await promise
  } catch (err) {
    return err as PtypilotError
  }
  throw new Error('expected a rejection')
}

describe('waitForSettle', () => {
  it('returns once a burst of output ends, with the end of the burst on screen', async () => {
    // Bursts with pauses shorter than the quiet period, then silence.
    const s = python(`
import sys, time
for burst in range(5):
    for i in range(40):
        print("burst", burst, "line", i)
    sys.stdout.flush()
    time.sleep(0.03)
print("end of bursts", flush=True)
time.sleep(30)
`)
    // Settling is about output going quiet: wait until the program started.
    await s.waitFor('burst 0 line 0', { in: 'output' })
    const started = Date.now()
    const screen = await s.waitForSettle({ quietMs: 200, timeoutMs: 10000 })
    expect(screen.settled).toBe(true)
    expect(screen.lines.at(-2)).toBe('end of bursts')
    expect(screen.lines.at(-3)).toBe('burst 4 line 39')
    expect(Date.now() - started).toBeLessThan(8000)
    s.kill()
  })

  it('reports settled: false when the program keeps printing past timeoutMs', async () => {
    const s = PtySession.spawn({ command: 'while true; do echo x; sleep 0.01; done', shell: 'sh' })
    await s.waitFor('x')
    const started = Date.now()
    const screen = await s.waitForSettle({ quietMs: 100, timeoutMs: 300 })
    const waited = Date.now() - started
    expect(screen.settled).toBe(false)
    expect(screen.text).toContain('x')
    expect(waited).toBeGreaterThanOrEqual(290)
    expect(waited).toBeLessThan(3000)
    await s.terminate()
  })

  it('does not settle inside a synchronized-output block (mode 2026) until it closes', async () => {
    const s = python(`
import os, time
os.write(1, b"\\x1b[?2026hframe start\\r\\n")
time.sleep(0.8)
os.write(1, b"frame end\\r\\n\\x1b[?2026l")
time.sleep(30)
`)
    await s.waitFor('frame start')
    const started = Date.now()
    const screen = await s.waitForSettle({ quietMs: 100, timeoutMs: 5000 })
    expect(screen.settled).toBe(true)
    expect(screen.text).toBe('frame start\nframe end')
    // The block stayed open (and quiet) for most of the 0.8 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(500)
    s.kill()
  })

  it('settles when a synchronized-output block stays open and silent for a second', async () => {
    const s = python(`
import os, time
os.write(1, b"\\x1b[?2026hhalf a frame\\r\\n")
time.sleep(30)
`)
    await s.waitFor('half a frame')
    // Settled (not timed out), with what was drawn, though the block is still open.
    const screen = await s.waitForSettle({ quietMs: 100, timeoutMs: 10_000 })
    expect(screen.settled).toBe(true)
    expect(screen.text).toBe('half a frame')
    s.kill()
  })

  it('right after a keystroke waits for the answer, even when the screen was quiet before', async () => {
    // Answers each key after 150 ms; before the fix the second settle
    // returned at once because the quiet period had already passed.
    const s = python(`
import os, time, tty
tty.setraw(0)
os.write(1, b"ready\\r\\n")
while True:
    key = os.read(0, 1)
    time.sleep(0.15)
    os.write(1, b"got " + key + b"\\r\\n")
    if key == b"q":
        break
`)
    await s.waitFor('ready')
    for (const key of ['a', 'b', 'c']) {
      await s.waitForSettle({ quietMs: 50 })
      s.write(key)
      const screen = await s.waitForSettle({ quietMs: 300 })
      expect(screen.lines.filter((l) => l.startsWith('got')).at(-1)).toBe(`got ${key}`)
    }
    s.write('q')
    expect((await s.exited).exitCode).toBe(0)
  })

  it('returns at once with settled: true after the program exited', async () => {
    const s = PtySession.spawn({ command: 'printf', args: ['done\\n'] })
    await s.exited
    const screen = await s.waitForSettle({ quietMs: 5000 })
    expect(screen).toMatchObject({ settled: true, text: 'done' })
  })
})

describe('read', () => {
  it('since: consecutive reads over a long-running producer give every line once, in order', async () => {
    const total = 3000
    const reads: string[] = []
    let cursor = 0
    let session: PtySession | undefined
    // Read whenever output arrives: the reads fall at arbitrary points,
    // including between the \r and the \n of a line.
    const readNow = () => {
      const r = session!.read({ since: cursor })
      expect(r.truncated).toBe(false)
      reads.push(r.text)
      cursor = r.cursor
    }
    session = PtySession.spawn(
      {
        command: 'python3',
        args: ['-c', `import sys, time\nfor i in range(1, ${total + 1}):\n    print(i)\n    if i % 37 == 0:\n        sys.stdout.flush(); time.sleep(0.002)`],
      },
      () => readNow(),
    )
    await session.exited
    readNow()
    expect(reads.filter((r) => r.length > 0).length).toBeGreaterThan(10)
    const expected = Array.from({ length: total }, (_, i) => `${i + 1}\n`).join('')
    expect(reads.join('')).toBe(expected)
    // Nothing new after the end.
    expect(session.read({ since: cursor }).text).toBe('')
  })

  it('tail returns the last lines; raw keeps escapes and carriage returns', async () => {
    const s = PtySession.spawn({ command: 'printf', args: ['one\\n\\033[1mtwo\\033[0m\\nthree\\nfour\\n'] })
    await s.exited
    expect(s.read({ tail: 2 }).text).toBe('three\nfour\n')
    expect(s.read({ tail: 1 }).text).toBe('four\n')
    expect(s.read({ tail: 3, raw: true }).text).toBe('\x1b[1mtwo\x1b[0m\r\nthree\r\nfour\r\n')
    const all = s.read()
    expect(all).toMatchObject({ text: 'one\ntwo\nthree\nfour\n', running: false, exitCode: 0, truncated: false })
  })

  it('reports truncated for a cursor older than the 8 MiB the transcript keeps', async () => {
    const s = python(`
import os, sys, tty
tty.setcbreak(0)
os.write(1, b"first line\\n")
os.read(0, 1)
line = b"y" * 1023 + b"\\n"
for i in range(9 * 1024):
    sys.stdout.buffer.write(line)
sys.stdout.buffer.write(b"last line\\n")
`)
    await s.waitFor('first line')
    const early = s.read()
    expect(early).toMatchObject({ text: 'first line\n', truncated: false })
    s.write('go')
    expect((await s.exited).exitCode).toBe(0)
    const old = s.read({ since: early.cursor })
    expect(old.truncated).toBe(true)
    expect(old.text.length).toBeLessThanOrEqual(8 * 1024 * 1024)
    expect(old.text.length).toBeGreaterThan(7 * 1024 * 1024)
    expect(old.text.endsWith('y\nlast line\n')).toBe(true)
    expect(old.text).not.toContain('first line')
    // A recent cursor is not truncated.
    const tail = s.read({ tail: 1 })
    expect(tail.text).toBe('last line\n')
    expect(s.read({ since: tail.cursor }).truncated).toBe(false)
    expect(s.screen().lines.at(-2)).toBe('last line')
  })
})

describe('waitFor', () => {
  it('matches a string or a RegExp (flags honoured) on the screen', async () => {
    const s = PtySession.spawn({ command: 'printf', args: ['Hello World 42\\nline two\\n'] })
    await s.exited
    const byString = await s.waitFor('World')
    expect(byString.match).toBe('World')
    expect(byString.screen.text).toBe('Hello World 42\nline two')
    expect((await s.waitFor(/hello world (\d+)/i)).match).toBe('Hello World 42')
    expect((await s.waitFor(/^line two$/m)).match).toBe('line two')
    // A global or sticky flag does not make repeated waits flaky.
    const sticky = /two/gy
    expect((await s.waitFor(sticky)).match).toBe('two')
    expect((await s.waitFor(sticky)).match).toBe('two')
  })

  it("in: 'output' sees text that is no longer on the screen; in: 'screen' does not", async () => {
    const s = python(`
import os, time
os.write(1, b"secret token\\r\\n")
time.sleep(0.1)
os.write(1, b"\\x1b[2J\\x1b[Hcleared\\r\\n")
time.sleep(30)
`)
    await s.waitFor('cleared')
    const out = await s.waitFor('secret token', { in: 'output' })
    expect(out.match).toBe('secret token')
    expect(out.screen.text).toBe('cleared')
    const err = await rejection(s.waitFor('secret', { in: 'screen', timeoutMs: 300 }))
    expect(err.code).toBe('ERR_TIMEOUT')
    s.kill()
  })

  it('rejects ERR_TIMEOUT with the screen in the message and on the error', async () => {
    const s = PtySession.spawn({ command: 'sh', args: ['-c', 'echo waiting here; sleep 30'] })
    await s.waitFor('waiting here')
    const started = Date.now()
    const err = await rejection(s.waitFor(/never/, { timeoutMs: 250 }))
    expect(Date.now() - started).toBeGreaterThanOrEqual(240)
    expect(err.code).toBe('ERR_TIMEOUT')
    expect(err.message).toContain('/never/')
    expect(err.message).toContain('waiting here')
    expect(err.screen?.text).toBe('waiting here')
    s.kill()
  })

  it('rejects ERR_NOT_RUNNING with err.exit when the program exits without a match', async () => {
    const s = PtySession.spawn({ command: 'sh', args: ['-c', 'echo goodbye; exit 3'] })
    const err = await rejection(s.waitFor('never'))
    expect(err.code).toBe('ERR_NOT_RUNNING')
    expect(err.exit).toEqual({ exitCode: 3, signal: null, timedOut: false, cancelled: false })
    expect(err.message).toContain('goodbye')
    expect(err.screen?.text).toBe('goodbye')
  })

  it('a match in the last output before the exit still resolves', async () => {
    const s = PtySession.spawn({ command: 'printf', args: ['final words\\n'] })
    await s.exited
    expect((await s.waitFor('final words')).match).toBe('final words')
  })
})

describe('paste', () => {
  // Reads raw input and prints what arrived; bracketed paste on at first,
  // off after the first paste.
  const pasteEcho = `
import os, tty, select
tty.setraw(0)
def read_all():
    data = b""
    while True:
        ready, _, _ = select.select([0], [], [], 0.3)
        if not ready and data:
            return data
        if ready:
            data += os.read(0, 4096)
os.write(1, b"\\x1b[?2004hready1\\r\\n")
os.write(1, (repr(read_all()) + "\\r\\n").encode())
os.write(1, b"\\x1b[?2004lready2\\r\\n")
os.write(1, (repr(read_all()) + "\\r\\n").encode())
`

  it('is bracketed when the program enabled mode 2004 (markers inside neutralised), plain otherwise', async () => {
    const s = python(pasteEcho)
    await s.waitFor('ready1')
    s.paste('line one\nline two\x1b[201~\x1b[200~end')
    // One start marker, one end marker: the ones inside the text are gone.
    // Line breaks arrive as Enter (\r), as a terminal pastes them.
    await s.waitFor("b'\\x1b[200~line one\\rline twoend\\x1b[201~'")
    await s.waitFor('ready2')
    s.paste('plain\r\ntext')
    await s.waitFor("b'plain\\rtext'")
    expect((await s.exited).exitCode).toBe(0)
  })

  it('a plain paste into a line-mode program arrives line by line', async () => {
    const s = PtySession.spawn({ command: 'cat' })
    s.paste('one\ntwo\r\n')
    // The terminal echoes the pasted lines as they arrive; then cat prints them back.
    await s.waitFor(/^one\ntwo\none\ntwo$/m)
    s.sendKeys('ctrl+d')
    expect((await s.exited).exitCode).toBe(0)
  })

  it('a multi-line paste into bash is taken as one edit, not run line by line', async () => {
    const s = PtySession.spawn({
      command: 'bash',
      args: ['--norc', '--noprofile'],
      env: { PS1: '$ ', HISTFILE: '/dev/null' },
    })
    await s.waitFor('$')
    // readline (bash 5.1+) turns on bracketed paste.
    await vi.waitFor(() => expect(s.read({ raw: true }).text).toContain('\x1b[?2004h'), patient)
    s.paste('echo first-pasted\necho second-pasted\n')
    await s.waitFor('echo second-pasted')
    await s.waitForSettle({ quietMs: 200 })
    // Nothing ran yet.
    expect(s.screen().lines).not.toContain('first-pasted')
    s.sendKeys('enter')
    await s.waitFor(/^second-pasted$/m)
    expect(s.screen().lines).toContain('first-pasted')
    s.write('exit\r')
    await s.exited
  })
})

describe('onScreen', () => {
  it('pushes only changed screens, at most every throttleMs, and stops after unsubscribe', async () => {
    // Redraws one line every 20 ms for about a second, repeats an identical
    // frame for a while, then waits for a key.
    const s = python(`
import os, time, tty
tty.setraw(0)
for i in range(50):
    os.write(1, b"\\rtick %02d" % i)
    time.sleep(0.02)
for i in range(20):
    os.write(1, b"\\rtick 49")
    time.sleep(0.02)
os.write(1, b"\\r\\nidle\\r\\n")
os.read(0, 1)
os.write(1, b"after the key\\r\\n")
os.read(0, 1)
`)
    const seen: { at: number; screen: ScreenSnapshot }[] = []
    const stop = s.onScreen((screen) => seen.push({ at: Date.now(), screen }), { throttleMs: 100 })
    await s.waitFor('idle')
    await vi.waitFor(() => expect(seen.at(-1)?.screen.text).toBe('tick 49\nidle'), patient)
    // Throttled: far fewer than the 50 redraws, and spaced out.
    expect(seen.length).toBeGreaterThanOrEqual(3)
    expect(seen.length).toBeLessThan(25)
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i].at - seen[i - 1].at).toBeGreaterThanOrEqual(90)
    }
    // Only changes: no two consecutive snapshots look the same, and the
    // repeated identical frames produced at most one snapshot.
    for (let i = 1; i < seen.length; i++) {
      const a = seen[i - 1].screen
      const b = seen[i].screen
      expect([a.text, a.cursor.col, a.cursor.row]).not.toEqual([b.text, b.cursor.col, b.cursor.row])
    }
    expect(seen.filter((e) => e.screen.text === 'tick 49').length).toBeLessThanOrEqual(1)

    stop()
    const count = seen.length
    s.write('k')
    await s.waitFor('after the key')
    await s.waitForSettle({ quietMs: 250 })
    expect(seen.length).toBe(count)
    s.write('k')
    await s.exited
  })

  it('delivers the first snapshot at once and follows the program to its last screen', async () => {
    const s = PtySession.spawn({ command: 'sh', args: ['-c', 'echo one; sleep 0.2; echo two'] })
    const texts: string[] = []
    s.onScreen((screen) => texts.push(screen.text), { throttleMs: 0 })
    await s.exited
    await vi.waitFor(() => expect(texts.at(-1)).toBe('one\ntwo'), patient)
    expect(texts).toContain('one')
  })
})

describe('what screen() shows', () => {
  it('wide characters and combining marks are one character each; OSC 0/2 set the title', async () => {
    const s = PtySession.spawn({
      command: 'printf',
      args: ['\\033]0;first title\\007日本語 e\\314\\201 x\\n한국어|\\n\\033]2;second title\\033\\\\日本x'],
    })
    await s.exited
    const screen = s.screen()
    expect(screen.lines.slice(0, 3)).toEqual(['日本語 e\u0301 x', '한국어|', '日本x'])
    // Two columns per wide character.
    expect(screen.cursor).toMatchObject({ row: 2, col: 5 })
    expect(screen.title).toBe('second title')
  })

  it('the cursor is where the program left it, and hides when the program hides it', async () => {
    const s = PtySession.spawn({ command: 'printf', args: ['ab\\033[3;5Hc\\033[?25l'] })
    await s.exited
    expect(s.screen().cursor).toEqual({ row: 2, col: 5, visible: false })
  })

  it('after a flood the screen and a taller resize show exactly the last lines', async () => {
    // 2 MB of lines: most are never parsed, but what can be seen must be
    // exactly what a terminal shows, also the rows a resize brings back.
    const s = PtySession.spawn({ command: 'sh', args: ['-c', 'seq 1 300000; sleep 30'], cols: 80, rows: 24 })
    try {
      await s.waitFor(/^300000$/m, { timeoutMs: 20000 })
      const numbers = (from: number, to: number) =>
        Array.from({ length: to - from + 1 }, (_, i) => String(from + i))
      expect(s.screen().lines).toEqual([...numbers(299978, 300000), ''])
      s.resize(80, 60)
      expect(s.screen().lines).toEqual([...numbers(299942, 300000), ''])
      expect(s.screen().cursor).toMatchObject({ row: 59, col: 0 })
    } finally {
      s.kill()
      await s.exited
    }
  })

  it('after a flood without line feeds the screen shows exactly its last rows', async () => {
    const s = python("import sys; sys.stdout.write('x' * 3000000 + 'END'); sys.stdout.flush()", { cols: 80, rows: 24 })
    await s.exited
    const total = 3000000 + 3
    const last = total % 80 || 80
    const screen = s.screen()
    expect(screen.lines.slice(0, 23)).toEqual(Array(23).fill('x'.repeat(80)))
    expect(screen.lines[23]).toBe('x'.repeat(last - 3) + 'END')
    expect(screen.cursor).toMatchObject({ row: 23, col: last === 80 ? 79 : last })
  })

  it('lines always has one entry per row, also after resize; seq grows with the output', async () => {
    const s = PtySession.spawn({ command: 'cat', cols: 50, rows: 7 })
    const before = s.screen()
    expect(before.lines).toHaveLength(7)
    expect([before.cols, before.rows]).toEqual([50, 7])
    s.write('hello\r')
    const after = (await s.waitFor(/^hello\nhello$/m)).screen
    expect(after.seq).toBeGreaterThan(before.seq)
    s.resize(30, 12)
    const resized = s.screen()
    expect(resized.lines).toHaveLength(12)
    expect([resized.cols, resized.rows]).toEqual([30, 12])
    expect(resized.text).toBe('hello\nhello')
    s.sendKeys('ctrl+d')
    await s.exited
  })
})

describe('screen() between changes', () => {
  /**
   * A program that prints what it is sent (each line is the output in hex),
   * with the terminal's echo off, so only what it prints changes the screen.
   */
  async function printer(): Promise<PtySession> {
    const source = [
      'import sys',
      "sys.stdout.write('ready'); sys.stdout.flush()",
      'for line in sys.stdin:',
      '    sys.stdout.write(bytes.fromhex(line.strip()).decode()); sys.stdout.flush()',
    ].join('\n')
    const s = PtySession.spawn({ command: 'sh', args: ['-c', 'stty -echo; exec python3 -c "$0"', source], cols: 40, rows: 10 })
    await s.waitFor('ready')
    return s
  }

  /** Has the printer print `output`, and waits until the session processed it (without looking at the screen). */
  async function print(s: PtySession, output: string, from: number): Promise<void> {
    s.write(Buffer.from(output).toString('hex') + '\r')
    const end = from + Buffer.byteLength(output)
    await vi.waitFor(() => expect(s.read({ since: from, raw: true }).cursor).toBe(end), patient)
  }

  it('a second call with nothing new in between is the same screen, in new objects', async () => {
    const s = await printer()
    try {
      const first = s.screen()
      const second = s.screen()
      expect(second).toEqual(first)
      first.lines[0] = 'changed'
      first.lines.push('more')
      first.cursor.row = 99
      first.text = 'changed'
      const third = s.screen()
      expect(third).toEqual(second)
      expect(third.lines[0]).toBe('ready')
      expect(third.lines).toHaveLength(10)
      expect(third.cursor.row).toBe(0)
    } finally {
      s.kill()
      await s.exited
    }
  })

  it('shows every change the output makes: cells, cursor, title, cursor visibility, alternate screen, seq', async () => {
    const s = await printer()
    try {
      // Each step: what the program prints, and what of the screen changes.
      const steps: Array<[string, (before: ScreenSnapshot) => Partial<ScreenSnapshot>]> = [
        // A cell, the cursor left where it was.
        ['R\b', (b) => ({ text: 'readyR', lines: ['readyR', ...b.lines.slice(1)] })],
        ['\x1b[3;4H', () => ({ cursor: { row: 2, col: 3, visible: true } })],
        ['\x1b]2;new title\x07', () => ({ title: 'new title' })],
        ['\x1b[?25l', () => ({ cursor: { row: 2, col: 3, visible: false } })],
        // Colours only: nothing to see but the output position.
        ['\x1b[1;32m', () => ({})],
        ['\x1b[?1049h', (b) => ({ altScreen: true, text: '', lines: b.lines.map(() => '') })],
        ['\x1b[?1049l', () => ({ altScreen: false, text: 'readyR', lines: ['readyR', ...Array(9).fill('')] })],
      ]
      for (const [output, change] of steps) {
        const before = s.screen()
        await print(s, output, before.seq)
        const after = s.screen()
        expect(after, JSON.stringify(output)).toEqual({
          ...before,
          ...change(before),
          seq: before.seq + Buffer.byteLength(output),
        })
      }
    } finally {
      s.kill()
      await s.exited
    }
  })

  it('shows a resize, with no output in between', async () => {
    const s = await printer()
    try {
      const before = s.screen()
      expect([before.cols, before.rows, before.lines.length]).toEqual([40, 10, 10])
      s.resize(30, 6)
      const after = s.screen()
      expect([after.cols, after.rows, after.lines.length]).toEqual([30, 6, 6])
      expect(after.seq).toBe(before.seq)
      expect(after.text).toBe('ready')
    } finally {
      s.kill()
      await s.exited
    }
  })

  it('a new run of the session shows its own screen, also when the output has the same length', async () => {
    const s = new PtySession()
    await s.start({ command: 'printf', args: ['abc'], cols: 20, rows: 5 })
    const first = s.screen()
    expect(first.text).toBe('abc')
    await s.start({ command: 'printf', args: ['xyz'], cols: 20, rows: 5 })
    const second = s.screen()
    expect(second.seq).toBe(first.seq)
    expect(second.text).toBe('xyz')
  })
})
