// Embedding a session in a terminal front end: one answerer for terminal
// queries (answerQueries: false with xterm.js answering), listeners added and
// removed later, raw bytes, and pause/resume flow control.
import { describe, it, expect } from 'vitest'
import headless from '@xterm/headless'
import { PtySession } from '../index.js'
import { alive } from './helpers.js'

const { Terminal } = headless

/** Resolves once `term` has parsed everything written to it so far. */
const parsed = (term: InstanceType<typeof Terminal>) => new Promise<void>((r) => term.write('', r))

/**
 * A program that asks for the cursor position (ESC[6n) after some output,
 * collects every answer until it reads `END`, reports them, waits for `GO`,
 * and asks again.
 */
const ASKER = `
import os, re, sys, tty
tty.setraw(0)
os.write(1, b''.join(b'line %d\\r\\n' % i for i in range(30)))
for tag in (b'Q1', b'Q2'):
    os.write(1, tag + b'\\x1b[6n')
    buf = b''
    while not buf.endswith(b'END'):
        buf += os.read(0, 1024)
    found = re.findall(rb'\\x1b\\[(\\d+);(\\d+)R', buf)
    os.write(1, b'\\r\\n' + tag + b' answers: ' + b' '.join(r + b';' + c for r, c in found) + b'\\r\\n')
    if tag == b'Q1':
        buf = b''
        while not buf.endswith(b'GO'):
            buf += os.read(0, 1024)
`

/**
 * Wires a session to an xterm.js terminal the way an embedder does (output to
 * `term.write`, `term.onData` to `write`) and runs the asker: returns the
 * answers the program got for each query and what xterm.js would answer.
 */
async function askThroughXterm(answerQueries: boolean | undefined) {
  const term = new Terminal({ cols: 80, rows: 24, allowProposedApi: true })
  const session = new PtySession()
  let output = ''
  session.onData((chunk) => {
    output += chunk
    term.write(chunk)
  })
  term.onData((data) => session.write(data))
  const options = answerQueries === undefined ? {} : { answerQueries }
  const exited = session.start({ command: 'python3', args: ['-c', ASKER], cols: 80, rows: 24, ...options })
  /** Waits until the program's output (as delivered) matches. */
  const until = (re: RegExp) => expect.poll(() => re.test(output), { timeout: 10_000, interval: 5 }).toBe(true)
  const round = async (tag: string) => {
    await until(new RegExp(`${tag}\\x1b\\[6n`))
    // Every answer is written by now: xterm.js answers while it parses, and
    // the screen model's answer (if any) goes out before the output reaches
    // the listener.
    await parsed(term)
    const expected = `${term.buffer.active.cursorY + 1};${term.buffer.active.cursorX + 1}`
    session.write('END')
    await until(new RegExp(`${tag} answers: [^\\r]*\\r\\n`))
    const got = new RegExp(`${tag} answers: ([^\\r]*)\\r\\n`).exec(output)![1].split(' ').filter(Boolean)
    return { got, expected }
  }
  const first = await round('Q1')
  session.resize(60, 12)
  term.resize(60, 12)
  session.write('GO')
  const second = await round('Q2')
  expect((await exited).exitCode).toBe(0)
  term.dispose()
  return { first, second }
}

describe('one answerer: answerQueries', () => {
  it('with answerQueries: false, xterm.js gives the only answer to each query, before and after a resize', async () => {
    const { first, second } = await askThroughXterm(false)
    expect(first.got).toEqual([first.expected])
    expect(second.got).toEqual([second.expected])
  })

  it('by default the screen model answers too (two answers per query: the case the option is for)', async () => {
    const { first, second } = await askThroughXterm(undefined)
    expect(first.got).toHaveLength(2)
    expect(first.got).toContain(first.expected)
    expect(second.got).toHaveLength(2)
  })

  it('with answerQueries: false the screen model still tracks the screen', async () => {
    const session = PtySession.spawn({
      command: 'sh',
      args: ['-c', 'printf "\\033[?1049h\\033]0;title\\007\\033[5;5Hhere"; sleep 5'],
      answerQueries: false,
    })
    const { screen } = await session.waitFor('here')
    expect(screen.altScreen).toBe(true)
    expect(screen.title).toBe('title')
    expect(screen.cursor).toMatchObject({ row: 4, col: 8 })
    await session.terminate()
  })

  it('rejects a non-boolean answerQueries', async () => {
    await expect(new PtySession().start({ command: 'true', answerQueries: 'no' as never })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARG',
    })
  })
})

/** `n` deterministic bytes covering every value, invalid UTF-8 included. */
function pattern(n: number): Buffer {
  const out = Buffer.alloc(n)
  let x = 12345
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    out[i] = i % 7 === 0 ? 0xff : (x >>> 16) & 0xff
  }
  return out
}

/** Writes `n` bytes of `pattern` with the terminal in raw mode (no \n -> \r\n), in odd-sized pieces. */
const RAW_WRITER = (n: number) => `
import os, sys, tty
tty.setraw(1)
n = ${n}
out = bytearray(n)
x = 12345
for i in range(n):
    x = (x * 1103515245 + 12345) & 0xffffffff
    out[i] = 0xff if i % 7 == 0 else (x >> 16) & 0xff
i = 0
step = 1
while i < n:
    i += os.write(1, bytes(out[i:i + step]))
    step = step * 3 % 9973 + 1
`

describe('listeners: several, added and removed later, raw bytes', () => {
  it('raw listeners receive the exact bytes, invalid UTF-8 included, in order, all before the exit', async () => {
    const n = 1 << 20
    const expected = pattern(n)
    const session = new PtySession()
    const a: Buffer[] = []
    const b: Uint8Array[] = []
    const c: Uint8Array[] = []
    let text = ''
    let atExit = -1
    // Added before start: they get every byte from the first.
    session.onData((chunk) => a.push(Buffer.from(chunk)), { raw: true })
    session.onData((chunk) => b.push(chunk), { raw: true })
    session.onData((chunk) => (text += chunk))
    // The start listener can take raw bytes too.
    const exit = session.start({ command: 'python3', args: ['-c', RAW_WRITER(n)] }, (chunk) => c.push(chunk), { raw: true }).then((e) => {
      atExit = a.reduce((sum, c) => sum + c.length, 0)
      return e
    })
    expect((await exit).exitCode).toBe(0)
    expect(b.every((chunk) => chunk instanceof Uint8Array)).toBe(true)
    const gotA = Buffer.concat(a)
    expect(gotA.length).toBe(n)
    expect(gotA.equals(expected)).toBe(true)
    expect(Buffer.concat(b).equals(expected)).toBe(true)
    expect(Buffer.concat(c).equals(expected)).toBe(true)
    expect(atExit).toBe(n)
    // The text listener got the same output, decoded (bytes that are not
    // UTF-8 become U+FFFD).
    expect(text).toContain('\ufffd')
    expect(text.replace(/\ufffd/g, '')).toBe(
      new TextDecoder('utf-8', { fatal: false }).decode(expected).replace(/\ufffd/g, ''),
    )
  })

  it('a listener added later gets output from then on; unsubscribed ones get nothing more; the start listener stays', async () => {
    const fromStart: string[] = []
    const session = PtySession.spawn({ command: 'cat' }, (c) => fromStart.push(c))
    session.write('one\r')
    await session.waitFor('one\none')
    // The screen shows output before the listeners have it: wait until they do, so the
    // listeners added next start after 'one'.
    await expect.poll(() => fromStart.join('')).toBe('one\r\none\r\n')
    const later: string[] = []
    const laterRaw: Buffer[] = []
    const offLater = session.onData((c) => later.push(c))
    const offRaw = session.onData((c) => laterRaw.push(Buffer.from(c)), { raw: true })
    session.write('two\r')
    await session.waitFor('two\ntwo')
    await expect.poll(() => later.join('')).toBe('two\r\ntwo\r\n')
    await expect.poll(() => Buffer.concat(laterRaw).toString()).toBe('two\r\ntwo\r\n')
    offLater()
    offLater() // twice is fine
    offRaw()
    session.write('three\r')
    await session.waitFor('three\nthree')
    await expect.poll(() => fromStart.join('')).toBe('one\r\none\r\ntwo\r\ntwo\r\nthree\r\nthree\r\n')
    expect(later.join('')).toBe('two\r\ntwo\r\n')
    expect(Buffer.concat(laterRaw).toString()).toBe('two\r\ntwo\r\n')
    session.sendKeys('ctrl+d')
    await session.exited
  })

  it('every listener sees every keystroke answer once, in order (fast path and session thread alike)', async () => {
    const session = new PtySession()
    const text: string[] = []
    const text2: string[] = []
    const raw: Buffer[] = []
    session.onData((c) => text.push(c))
    session.onData((c) => raw.push(Buffer.from(c)), { raw: true })
    // No echo: the output is cat's answer to each line, in the order typed.
    const exited = session.start({ command: 'sh', args: ['-c', 'stty -echo; echo ready; exec cat'] }, (c) =>
      text2.push(c),
    )
    await session.waitFor('ready')
    let expected = 'ready\r\n'
    for (let i = 0; i < 300; i++) {
      const line = `k${i}${'x'.repeat(i % 50)}`
      session.write(`${line}\r`)
      expected += `${line}\r\n`
      // Some answers are waited for (the fast path reads them), some not.
      if (i % 3 === 0) await session.waitFor(new RegExp(`^${line}$`, 'm'), { timeoutMs: 10_000 })
    }
    session.sendKeys('ctrl+d')
    await exited
    expect(text.join('')).toBe(expected)
    expect(text2.join('')).toBe(expected)
    expect(Buffer.concat(raw).toString()).toBe(expected)
  })

  it('a listener that unsubscribes another during a delivery, or throws, does not disturb the rest', async () => {
    const session = new PtySession()
    const seen: string[] = []
    let offB = () => {}
    session.onData(() => offB())
    offB = session.onData((c) => seen.push(`b:${c}`))
    session.onData(() => {
      throw new Error('listener failure')
    })
    session.onData((c) => seen.push(`d:${c}`))
    const warned = new Promise((r) => process.once('warning', r))
    await session.start({ command: 'printf', args: ['x'] })
    await warned
    expect(seen).toEqual(['d:x'])
  })

  it('rejects bad arguments', () => {
    const session = new PtySession()
    expect(() => session.onData('no' as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
    expect(() => session.onData(() => {}, { raw: 1 } as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
    expect(() => session.onData(() => {}, { binary: true } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringContaining('binary') }),
    )
  })
})

/** Resident set size of this process in bytes. */
const rss = () => process.memoryUsage().rss

describe('flow control: pause() and resume()', () => {
  // Lines "1".."N" as fast as the program can write them: about 31 MB.
  const N = 4_000_000

  it('a paused flooding program is held by the pty: nothing is read or lost, memory stays bounded, and it resumes', async () => {
    const session = new PtySession()
    let next = 1
    let partial = ''
    let broken = ''
    let delivered = 0
    // Checks every line as it comes instead of keeping 31 MB.
    session.onData((chunk) => {
      delivered += chunk.length
      const lines = (partial + chunk).split('\r\n')
      partial = lines.pop()!
      for (const line of lines) {
        if (line !== String(next) && broken === '') broken = `expected ${next}, got ${JSON.stringify(line.slice(0, 40))}`
        next++
      }
    })
    const exited = session.start({ command: 'seq', args: ['1', String(N)] })
    await expect.poll(() => delivered, { timeout: 10_000, interval: 5 }).toBeGreaterThan(1 << 20)
    session.pause()
    expect(session.paused).toBe(true)
    const pausedAt = { seq: session.screen().seq, delivered, rss: rss() }
    // Long enough for a program that was not held to write hundreds of MB.
    await new Promise((r) => setTimeout(r, 300))
    const settled = session.screen().seq
    await new Promise((r) => setTimeout(r, 700))
    const after = { seq: session.screen().seq, delivered, rss: rss() }
    // Nothing handed to listeners while paused; nothing more read than the
    // batch in flight when pause() came (16 KiB); the program made no progress.
    expect(after.delivered).toBe(pausedAt.delivered)
    expect(after.seq - pausedAt.seq).toBeLessThanOrEqual(16 * 1024)
    expect(after.seq).toBe(settled)
    expect(alive(session.pid!)).toBe(true)
    expect(after.rss - pausedAt.rss).toBeLessThan(8 << 20)
    session.resume()
    expect(session.paused).toBe(false)
    const exit = await exited
    expect(exit.exitCode).toBe(0)
    expect(broken).toBe('')
    expect(partial).toBe('')
    expect(next - 1).toBe(N)
  })

  it('holds the exit while paused and delivers output, then the exit, on resume', async () => {
    const session = new PtySession()
    const seen: string[] = []
    const exited = session.start({ command: 'sh', args: ['-c', 'sleep 0.2; echo done'] }, (c) => seen.push(c))
    session.pause()
    let exit: unknown = null
    void exited.then((e) => (exit = e))
    await new Promise((r) => setTimeout(r, 1000))
    expect(seen).toEqual([])
    expect(exit).toBeNull()
    expect(session.running).toBe(true)
    session.resume()
    expect(await exited).toMatchObject({ exitCode: 0 })
    expect(seen.join('')).toBe('done\r\n')
  })

  it('terminate() ends a paused session (it resumes it first)', async () => {
    const session = new PtySession()
    const seen: string[] = []
    const exited = session.start({ command: 'sh', args: ['-c', 'echo started; exec sleep 30'] }, (c) => seen.push(c))
    await session.waitFor('started')
    await expect.poll(() => seen.join('')).toBe('started\r\n')
    session.pause()
    const exit = await session.terminate({ graceMs: 500 })
    expect(exit).toMatchObject({ cancelled: true })
    expect(await exited).toEqual(exit)
    expect(session.paused).toBe(false)
  })

  it('pause and resume before start or after the exit do nothing', async () => {
    const session = new PtySession()
    session.pause()
    session.resume()
    expect(session.paused).toBe(false)
    await session.start({ command: 'true' })
    session.pause()
    session.resume()
    expect(session.running).toBe(false)
  })
})
