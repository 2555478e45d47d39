// PtySession against real programs: output, exit status, completeness,
// UTF-8, input, options, resize, errors, timeouts, termination, leaks.
import { describe, it, expect, vi } from 'vitest'
import { existsSync, mkdtempSync, realpathSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execFileSync, spawn as spawnChild } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { Worker } from 'node:worker_threads'
import { getEventListeners } from 'node:events'
import { PtySession, exec, type PtyExit, type PtypilotError } from '../index.js'
import { alive, capMs, collector, exists, fdCount, procState, sessionFds, linuxOnly } from './helpers.js'

async function run(command: string, args: string[] = [], extra: object = {}) {
  const out = collector()
  const session = new PtySession()
  const exit = await session.start({ command, args, ...extra }, out.onData)
  return { exit, text: out.text(), session }
}

describe('output and exit status', () => {
  it('delivers printf output and exit code 0', async () => {
    const { exit, text } = await run('printf', ['hello %s\\n', 'world'])
    expect(text).toBe('hello world\r\n')
    expect(exit).toEqual({ exitCode: 0, signal: null, timedOut: false, cancelled: false })
  })

  it.each([3, 255])('reports exit code %i', async (code) => {
    const { exit } = await run('sh', ['-c', `echo bye; exit ${code}`])
    expect(exit.exitCode).toBe(code)
    expect(exit.signal).toBeNull()
  })

  it('reports death by SIGKILL with a null exit code', async () => {
    const { exit } = await run('sh', ['-c', 'echo before; kill -KILL $$; echo after'])
    expect(exit).toEqual({ exitCode: null, signal: 'SIGKILL', timedOut: false, cancelled: false })
  })

  it('keeps output produced before any listener in the transcript and the screen', async () => {
    const session = PtySession.spawn({ command: 'printf', args: ['early bird\\n'] })
    await session.exited
    expect(session.read().text).toBe('early bird\n')
    expect(session.screen().text).toBe('early bird')
  })

  it('exposes pid and running while the program runs', async () => {
    const session = PtySession.spawn({ command: 'sleep', args: ['5'] })
    expect(session.running).toBe(true)
    expect(typeof session.pid).toBe('number')
    expect(alive(session.pid!)).toBe(true)
    const exit = await session.terminate()
    expect(exit.cancelled).toBe(true)
    expect(session.running).toBe(false)
  })
})

describe('completeness: every byte arrives, in order, before the exit resolves', () => {
  const seqExpected = Array.from({ length: 20000 }, (_, i) => `${i + 1}\r\n`).join('')
  const bigLine = 'x'.repeat(200 * 1024)
  const bashExpected = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}\r\n`).join('')

  async function completeRun(command: string, args: string[]) {
    const chunks: string[] = []
    let atExit = -1
    const session = new PtySession()
    const exited = session.start({ command, args }, (c) => chunks.push(c)).then((exit) => {
      atExit = chunks.length
      return exit
    })
    const exit = await exited
    expect(atExit).toBe(chunks.length)
    return { exit, text: chunks.join('') }
  }

  it('seq 1 20000', { repeats: 200 }, async () => {
    const { exit, text } = await completeRun('seq', ['1', '20000'])
    expect(exit.exitCode).toBe(0)
    expect(text.length).toBe(seqExpected.length)
    expect(text === seqExpected).toBe(true)
  })

  it('a 200 KB single write', { repeats: 200 }, async () => {
    const { exit, text } = await completeRun('python3', [
      '-c',
      'import os,sys; os.write(1, b"x" * (200 * 1024))',
    ])
    expect(exit.exitCode).toBe(0)
    expect(text.length).toBe(bigLine.length)
    expect(text === bigLine).toBe(true)
  })

  it('5000 lines from bash', { repeats: 200 }, async () => {
    const { exit, text } = await completeRun('bash', [
      '-c',
      'for ((i=1;i<=5000;i++)); do echo "line $i"; done',
    ])
    expect(exit.exitCode).toBe(0)
    expect(text.length).toBe(bashExpected.length)
    expect(text === bashExpected).toBe(true)
  })
})

describe('UTF-8', () => {
  const sample = 'a€😀日é'
  const bytes = Buffer.from(sample, 'utf8')

  it('characters split at every byte position across writes arrive intact', async () => {
    // One run per split position; the program writes the two halves with a
    // pause, so the pty delivers them in separate reads.
    const script = (cut: number) =>
      `import os,time,sys; b=bytes.fromhex("${bytes.toString('hex')}"); ` +
      `os.write(1,b[:${cut}]); time.sleep(0.03); os.write(1,b[${cut}:])`
    for (let cut = 1; cut < bytes.length; cut++) {
      const chunks: string[] = []
      const session = new PtySession()
      await session.start({ command: 'python3', args: ['-c', script(cut)] }, (c) => chunks.push(c))
      expect(chunks.join('')).toBe(sample)
      expect(chunks.join('')).not.toContain('\uFFFD')
    }
  })

  it('invalid bytes become U+FFFD', async () => {
    const { text } = await run('printf', ['ok\\377\\376ok'])
    expect(text).toBe('ok\uFFFD\uFFFDok')
  })
})

describe('input', () => {
  it('round-trips through cat', async () => {
    const out = collector()
    const session = PtySession.spawn({ command: 'cat' }, out.onData)
    session.write('ping\r')
    await vi.waitFor(() => expect(out.text()).toContain('ping\r\nping\r\n'))
    session.write(new Uint8Array([0x04])) // ctrl+d: end of input
    const exit = await session.exited
    expect(exit.exitCode).toBe(0)
  })

  it('writing 4 MiB to a slow reader does not block the event loop', async () => {
    let ticks = 0
    const timer = setInterval(() => ticks++, 5)
    try {
      const out = collector()
      // The program reads nothing from its terminal until the test opens
      // the gate (a FIFO), which it does only once write() has returned. A
      // write that waited for the reader would return only when the
      // program's own fallback opened it after 60 s, leaving `late`.
      const dir = mkdtempSync(join(tmpdir(), 'ptypilot-slow-reader-'))
      const [gate, late] = [join(dir, 'gate'), join(dir, 'late')]
      execFileSync('mkfifo', [gate])
      const script = `(sleep 60; touch '${late}'; echo go > '${gate}') & stty -echo; echo ready; read x < '${gate}'; wc -c`
      const session = PtySession.spawn({ command: 'sh', args: ['-c', script] }, out.onData)
      await session.waitFor('ready')
      const line = 'y'.repeat(1023) + '\n'
      const payload = line.repeat(4096) // 4 MiB
      session.write(payload)
      session.write('\x04')
      expect(existsSync(late)).toBe(false)
      // Timers keep firing while the 4 MiB wait for their reader.
      const ticksAfterWrite = ticks
      await vi.waitFor(() => expect(ticks - ticksAfterWrite).toBeGreaterThan(5))
      await writeFile(gate, 'go\n')
      const exit = await session.exited
      expect(exit.exitCode).toBe(0)
      expect(out.text().replace('ready', '').trim()).toBe(String(payload.length))
    } finally {
      clearInterval(timer)
    }
  })

  it('rejects non-text input with ERR_INVALID_ARG', () => {
    const session = PtySession.spawn({ command: 'cat' })
    expect(() => session.write(42 as unknown as string)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
    session.kill()
  })
})

describe('answers to input read on the JS thread', () => {
  // After a write the JS thread reads the terminal itself for a while (one
  // wake-up from a keystroke to its echo), and a flood while it keeps up;
  // the session thread reads when the JS thread is busy. These check that
  // nothing is lost, doubled or reordered across the hand-overs, and that a
  // busy JS thread cannot stall the program.
  const responder = [
    'import sys',
    'for line in sys.stdin:',
    '    line = line.strip()',
    "    if line.startswith('flood '):",
    "        sys.stdout.write(''.join(f'{i}\\n' for i in range(int(line.split()[1]))) + 'end\\n')",
    '        sys.stdout.flush()',
    '    else:',
    "        print('got ' + line, flush=True)",
  ].join('\n')

  it('keys one at a time, a flood after a line, more keys: every byte once, in order', async (ctx) => {
    linuxOnly(ctx, 'counts descriptors by their /proc/self/fd links')
    // Sessions of earlier tests that were killed without waiting end first.
    await vi.waitFor(() => expect(sessionFds()).toMatchObject({ ptmx: 0, pidfd: 0 }))
    const kindsBefore = sessionFds()
    const out = collector()
    const session = PtySession.spawn({ command: 'python3', args: ['-c', responder] }, out.onData)
    const typed = async (text: string, until: string) => {
      for (const ch of text) {
        const seen = out.text().length
        session.write(ch)
        await vi.waitFor(() => expect(out.text().length).toBeGreaterThan(seen))
      }
      await vi.waitFor(() => expect(out.text()).toContain(until))
    }
    await typed('abc\r', 'got abc\r\n')
    await typed('flood 40000\r', 'end\r\n')
    await typed('xyz\r', 'got xyz\r\n')
    session.write('\x04')
    const exit = await session.exited
    expect(exit.exitCode).toBe(0)
    const flood = Array.from({ length: 40000 }, (_, i) => `${i}\r\n`).join('')
    const expected = `abc\r\ngot abc\r\nflood 40000\r\n${flood}end\r\nxyz\r\ngot xyz\r\n`
    expect(out.text()).toBe(expected)
    expect(session.read({ raw: true }).text).toBe(expected)
    expect(sessionFds()).toEqual(kindsBefore)
  })

  it('a JS thread busy right after a write does not stall the program', () => {
    const session = PtySession.spawn({ command: 'sh', args: ['-c', 'read x; seq 1 100000; echo done'] }, () => {})
    session.write('go\r')
    // Block the JS thread: only the session thread can read now.
    const deadline = Date.now() + 10_000
    let text = ''
    while (Date.now() < deadline && !text.includes('done')) text = session.read({ tail: 2 }).text
    session.kill()
    expect(text).toContain('100000\ndone')
  })

  it('a flood that stops without an exit reaches onData while the program runs', async () => {
    // 100 full pty reads' worth (4095 bytes each) of one character: the JS
    // thread takes the flood and may end it on a full read, whose output
    // waits for more that never comes (the program sleeps).
    const n = 4095 * 100
    let got = 0
    const session = PtySession.spawn(
      { command: 'sh', args: ['-c', `head -c ${n} /dev/zero | tr '\\0' a; exec sleep 30`] },
      (chunk) => (got += chunk.length),
    )
    await vi.waitFor(() => expect(got).toBe(n), { timeout: 10_000 })
    expect(session.running).toBe(true)
    session.kill()
    await session.exited
    expect(got).toBe(n)
  })

  it('a flood of small writes reaches onData in batches, and its end while the program runs', async () => {
    // `seq` writes one line per write, so a JS thread that keeps up reads
    // much less than a full terminal buffer each time; a call per read would
    // be hundreds of calls per MiB. In a flood the reads wait in the outbox
    // and are handed over together (after 64 KiB, or 1 ms after the last).
    // The flood starts once this thread waits, so that it takes the flood
    // from the session thread (a busy thread leaves it there).
    const calls: number[] = []
    const session = PtySession.spawn({ command: 'sh', args: ['-c', 'sleep 0.3; seq 1 300000; exec sleep 30'] }, (chunk) => {
      calls.push(chunk.length)
    })
    const expected = Array.from({ length: 300000 }, (_, i) => `${i + 1}\r\n`).join('').length
    const got = () => calls.reduce((a, b) => a + b, 0)
    await vi.waitFor(() => expect(got()).toBe(expected), { timeout: 20_000 })
    expect(session.running).toBe(true)
    // On average more than 12 KiB per call (a call per read: under 4 KiB;
    // 2 700–4 800 calls before reads in a flood waited).
    expect(calls.length).toBeLessThan(expected / 12288)
    session.kill()
    await session.exited
  })

  it('a JS thread busy in the middle of a flood it reads does not stall the program', async () => {
    let got = 0
    const session = PtySession.spawn({ command: 'sh', args: ['-c', 'seq 1 400000; echo done; exec sleep 30'] }, (chunk) => {
      got += chunk.length
    })
    // Once the JS thread read part of the flood, block it: the session
    // thread must take the terminal back and read the rest.
    await vi.waitFor(() => expect(got).toBeGreaterThan(256 << 10), { timeout: 10_000 })
    const deadline = Date.now() + 10_000
    let text = ''
    while (Date.now() < deadline && !text.includes('done')) text = session.read({ tail: 2 }).text
    expect(text).toContain('400000\ndone')
    const expected = Array.from({ length: 400000 }, (_, i) => `${i + 1}\r\n`).join('').length + 'done\r\n'.length
    await vi.waitFor(() => expect(got).toBe(expected), { timeout: 10_000 })
    session.kill()
    await session.exited
  })

  it('a worker that typed into a session ends cleanly while the session runs', async () => {
    const script = `
      const { Worker } = require('node:worker_threads');
      const source = \`
        const { parentPort } = require('node:worker_threads');
        const { PtySession } = require(${JSON.stringify(fileURLToPath(new URL('../index.js', import.meta.url)))});
        let seen = '';
        const s = PtySession.spawn({ command: 'cat' }, (d) => {
          seen += d;
          if (seen.includes('xy')) parentPort.postMessage(s.pid);
        });
        s.write('x');
        setTimeout(() => s.write('y'), 20);
      \`;
      const worker = new Worker(source, { eval: true });
      worker.once('message', async (pid) => {
        await worker.terminate();
        console.log('ok ' + pid);
      });
    `
    const child = spawnChild(process.execPath, ['-e', script])
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const pid = Number(/^ok (\d+)/.exec(stdout)?.[1])
    expect(pid).toBeGreaterThan(0)
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 3000 })
  })
})

describe('options', () => {
  it('runs in cwd', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ptypilot-cwd-')))
    const { text } = await run('pwd', [], { cwd: dir })
    expect(text.trim()).toBe(dir)
  })

  it('merges env over the inherited environment and removes undefined entries', async () => {
    process.env.PTYPILOT_INHERITED = 'from-parent'
    process.env.PTYPILOT_REMOVED = 'should-go'
    try {
      const { text } = await run('sh', ['-c', 'echo "$PTYPILOT_INHERITED|$PTYPILOT_ADDED|${PTYPILOT_REMOVED-unset}"'], {
        env: { PTYPILOT_ADDED: 'added', PTYPILOT_REMOVED: undefined },
      })
      expect(text.trim()).toBe('from-parent|added|unset')
    } finally {
      delete process.env.PTYPILOT_INHERITED
      delete process.env.PTYPILOT_REMOVED
    }
  })

  it('drops variables that describe the parent terminal', async () => {
    process.env.TMUX = '/tmp/tmux-0/default,1,0'
    process.env.COLUMNS = '999'
    try {
      const { text } = await run('sh', ['-c', 'echo "${TMUX-none}|${COLUMNS-none}|$TERM"'])
      expect(text.trim()).toBe('none|none|xterm-256color')
    } finally {
      delete process.env.TMUX
      delete process.env.COLUMNS
    }
  })

  it('inheritEnv: false starts from an empty environment', async () => {
    process.env.PTYPILOT_SECRET = 'leak'
    try {
      const { text } = await run('/bin/sh', ['-c', 'echo "${PTYPILOT_SECRET-none}|$ONLY"'], {
        inheritEnv: false,
        env: { ONLY: 'me' },
      })
      expect(text.trim()).toBe('none|me')
    } finally {
      delete process.env.PTYPILOT_SECRET
    }
  })

  it('shell: true runs a command line with a pipe', async () => {
    const { exit, text } = await run('echo a | tr a b', [], { shell: true })
    expect(exit.exitCode).toBe(0)
    expect(text.trim()).toBe('b')
  })

  it('shell names a shell and quotes extra args', async () => {
    const { text } = await run('printf "%s|" ', ["it's", 'two words'], { shell: 'bash' })
    expect(text).toBe("it's|two words|")
  })

  it('term sets TERM', async () => {
    const { text } = await run('sh', ['-c', 'echo $TERM'], { term: 'vt100' })
    expect(text.trim()).toBe('vt100')
  })

  it('rejects unknown options and wrong types with ERR_INVALID_ARG naming them', async () => {
    await expect(new PtySession().start({ command: 'true', colz: 80 } as never)).rejects.toMatchObject({
      code: 'ERR_INVALID_ARG',
      message: expect.stringContaining('colz'),
    })
    await expect(new PtySession().start({ command: 'true', cols: '80' } as never)).rejects.toMatchObject({
      code: 'ERR_INVALID_ARG',
      message: expect.stringContaining('options.cols must be a number, got string "80"'),
    })
    await expect(new PtySession().start({ command: 'true', args: ['ok', 3] } as never)).rejects.toMatchObject({
      code: 'ERR_INVALID_ARG',
      message: expect.stringContaining('options.args[1]'),
    })
    expect(() => PtySession.spawn({} as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
  })
})

describe('resize', () => {
  it('is seen by the program (stty size)', async () => {
    const out = collector()
    const session = PtySession.spawn(
      { command: 'sh', args: ['-c', 'stty size; read x; stty size'], cols: 100, rows: 30 },
      out.onData,
    )
    await vi.waitFor(() => expect(out.text()).toContain('30 100'))
    session.resize(120, 40)
    expect(session.screen().cols).toBe(120)
    expect(session.screen().rows).toBe(40)
    session.write('\r')
    await session.exited
    expect(out.text()).toContain('40 120')
  })

  it('rejects out-of-range sizes with ERR_INVALID_ARG', async () => {
    const session = PtySession.spawn({ command: 'cat' })
    for (const [cols, rows] of [[0, 24], [80, 1], [1001, 24], [80, 501], [80.5, 24]]) {
      expect(() => session.resize(cols, rows)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
    }
    expect(() => PtySession.spawn({ command: 'cat', cols: 0 })).toThrow(/cols must be an integer between 2 and 1000, got 0/)
    await session.terminate()
  })

  it('resize and write after the exit throw ERR_NOT_RUNNING', async () => {
    const { session } = await run('true')
    expect(() => session.resize(100, 30)).toThrow(expect.objectContaining({ code: 'ERR_NOT_RUNNING' }))
    expect(() => session.write('x')).toThrow(expect.objectContaining({ code: 'ERR_NOT_RUNNING' }))
    expect(() => session.kill('SIGINT')).toThrow(expect.objectContaining({ code: 'ERR_NOT_RUNNING' }))
    expect(() => session.kill()).not.toThrow()
  })

  it('methods before start throw ERR_NOT_RUNNING', () => {
    const session = new PtySession()
    expect(() => session.write('x')).toThrow(expect.objectContaining({ code: 'ERR_NOT_RUNNING' }))
    expect(() => session.screen()).toThrow(expect.objectContaining({ code: 'ERR_NOT_RUNNING' }))
    expect(session.pid).toBeNull()
    expect(session.running).toBe(false)
  })
})

describe('spawn errors', () => {
  it('a missing program rejects ERR_SPAWN with errno and path', async () => {
    const err = (await new PtySession().start({ command: 'no-such-program-ptypilot' }).catch((e) => e)) as PtypilotError
    expect(err).toBeInstanceOf(Error)
    expect(err.code).toBe('ERR_SPAWN')
    expect(err.errno).toBe(-2)
    expect(err.errnoName).toBe('ENOENT')
    expect(err.path).toBe('no-such-program-ptypilot')
    expect(err.message).toContain('no-such-program-ptypilot')
  })

  it('a program that is not executable rejects ERR_SPAWN EACCES', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-noexec-'))
    const file = join(dir, 'script.sh')
    writeFileSync(file, '#!/bin/sh\necho hi\n', { mode: 0o644 })
    const err = (await new PtySession().start({ command: file }).catch((e) => e)) as PtypilotError
    expect(err.code).toBe('ERR_SPAWN')
    expect(err.errnoName).toBe('EACCES')
    expect(err.path).toBe(file)
  })

  it('a bad cwd rejects ERR_SPAWN with the directory as path', async () => {
    const err = (await new PtySession().start({ command: 'true', cwd: '/no/such/dir' }).catch((e) => e)) as PtypilotError
    expect(err.code).toBe('ERR_SPAWN')
    expect(err.errnoName).toBe('ENOENT')
    expect(err.path).toBe('/no/such/dir')
  })

  it('spawn() throws synchronously', () => {
    expect(() => PtySession.spawn({ command: 'no-such-program-ptypilot' })).toThrow(
      expect.objectContaining({ code: 'ERR_SPAWN' }),
    )
  })

  it('a second start while running rejects ERR_ALREADY_RUNNING, and a start after the exit works', async () => {
    const session = new PtySession()
    const first = session.start({ command: 'sleep', args: ['5'] })
    await expect(session.start({ command: 'true' })).rejects.toMatchObject({ code: 'ERR_ALREADY_RUNNING' })
    await session.terminate()
    expect((await first).cancelled).toBe(true)
    const out = collector()
    const again = await session.start({ command: 'echo', args: ['again'] }, out.onData)
    expect(again.exitCode).toBe(0)
    expect(out.text()).toBe('again\r\n')
  })
})

describe("the program's terminal, signals and descriptors", () => {
  // What the spawn gives the program whatever state this (Node) process is in.

  it('leads its own session, with the pty as controlling terminal and foreground group', async (ctx) => {
    linuxOnly(ctx, 'reads /proc/PID/stat')
    const { exit, text, session } = await run('sh', ['-c', 'tty; cat /proc/$$/stat'])
    expect(exit.exitCode).toBe(0)
    const [tty, stat] = text.split('\r\n')
    expect(tty).toMatch(/^\/dev\/pts\/\d+$/)
    // pid (comm) state ppid pgrp session tty_nr tpgid ...
    const [pgrp, sid, ttyNr, tpgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(2, 6).map(Number)
    expect({ pgrp, sid, tpgid }).toEqual({ pgrp: session.pid, sid: session.pid, tpgid: session.pid })
    const major = (ttyNr >> 8) & 0xfff
    const minor = (ttyNr & 0xff) | ((ttyNr >> 12) & 0xfff00)
    expect(tty).toBe(`/dev/pts/${(major - 136) * 256 + minor}`)
  })

  it('ctrl+c kills a foreground sleep with SIGINT, though this process handles SIGINT', async () => {
    const onSigint = () => {}
    process.on('SIGINT', onSigint)
    try {
      const session = PtySession.spawn({ command: 'sleep', args: ['100'], timeoutMs: 20_000 })
      session.sendKeys('ctrl+c')
      const exit = await session.exited
      expect(exit).toMatchObject({ exitCode: null, signal: 'SIGINT', timedOut: false })
    } finally {
      process.off('SIGINT', onSigint)
    }
  })

  it('resize delivers SIGWINCH', async () => {
    // sh (dash here): bash and python3 end up with the terminal as controlling
    // terminal even when the spawn did not make it so; dash shows whether it did.
    const out = collector()
    const session = PtySession.spawn(
      { command: 'sh', args: ['-c', "trap 'echo winch; exit 7' WINCH; echo ready; while :; do sleep 0.05; done"], timeoutMs: 20_000 },
      out.onData,
    )
    await session.waitFor('ready')
    session.resize(100, 30)
    const exit = await session.exited
    expect(exit.exitCode).toBe(7)
    expect(out.text()).toContain('winch')
  })

  it('starts with every signal at its default disposition and none blocked', async (ctx) => {
    linuxOnly(ctx, 'reads /proc/PID/status')
    // Node ignores SIGPIPE and SIGXFSZ; a program must not inherit that.
    expect(readFileSync('/proc/self/status', 'utf8')).not.toMatch(/^SigIgn:\t0+$/m)
    const { exit, text } = await run('grep', ['-E', '^Sig(Ign|Blk)', '/proc/self/status'])
    expect(exit.exitCode).toBe(0)
    expect(text).toBe('SigBlk:\t0000000000000000\r\nSigIgn:\t0000000000000000\r\n')
  })

  it('has only the terminal open: no descriptor of this process leaks into it', async (ctx) => {
    linuxOnly(ctx, 'reads /proc/PID/fd')
    const { exit, text } = await run('sh', ['-c', 'for f in 0 1 2; do readlink /proc/$$/fd/$f; done; ls /proc/$$/fd'])
    expect(exit.exitCode).toBe(0)
    const [fd0, fd1, fd2, list] = text.split('\r\n')
    expect(fd0).toMatch(/^\/dev\/pts\/\d+$/)
    expect([fd1, fd2]).toEqual([fd0, fd0])
    expect(list.split(/\s+/)).toEqual(['0', '1', '2'])
  })

  it('gets the environment sorted by name, with SHELL always set, as before posix_spawn', async () => {
    const { text } = await run('env', [], { inheritEnv: false, env: { ZED: 'last', ONLY: 'me' } })
    const vars = text.trimEnd().split('\r\n')
    expect(vars).toEqual(['ONLY=me', expect.stringMatching(/^SHELL=\//), 'TERM=xterm-256color', 'ZED=last'])
  })

  it('a script whose interpreter is missing rejects ERR_SPAWN ENOENT with the script as path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-interp-'))
    const file = join(dir, 'script')
    writeFileSync(file, '#!/no/such/interpreter\necho hi\n', { mode: 0o755 })
    const err = (await new PtySession().start({ command: file }).catch((e) => e)) as PtypilotError
    expect(err.code).toBe('ERR_SPAWN')
    expect(err.errnoName).toBe('ENOENT')
    expect(err.path).toBe(file)
  })

  it('a directory rejects ERR_SPAWN EACCES', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-dir-'))
    const err = (await new PtySession().start({ command: dir }).catch((e) => e)) as PtypilotError
    expect(err.code).toBe('ERR_SPAWN')
    expect(err.errnoName).toBe('EACCES')
    expect(err.path).toBe(dir)
  })

  it('a script without #! runs with /bin/sh, as execvp does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-noshebang-'))
    const file = join(dir, 'script')
    writeFileSync(file, 'echo "$0: $# args: $*"\n', { mode: 0o755 })
    const { exit, text } = await run(file, ['a', 'b c'])
    expect(exit.exitCode).toBe(0)
    expect(text).toBe(`${file}: 2 args: a b c\r\n`)
  })
})

describe('timeouts and cancellation', () => {
  it('timeoutMs stops sleep 100 with timedOut', async () => {
    const started = Date.now()
    const { exit } = await run('sleep', ['100'], { timeoutMs: 200 })
    expect(exit).toMatchObject({ timedOut: true, cancelled: false, exitCode: null, signal: 'SIGTERM' })
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('an AbortSignal stops sleep 100 with cancelled', async () => {
    const controller = new AbortController()
    const session = new PtySession()
    const exited = session.start({ command: 'sleep', args: ['100'], signal: controller.signal })
    setTimeout(() => controller.abort(), 100)
    const exit = await exited
    expect(exit).toMatchObject({ cancelled: true, timedOut: false, signal: 'SIGTERM' })
  })

  it('a long-lived signal keeps no listener once sessions end', async () => {
    const controller = new AbortController()
    for (let i = 0; i < 3; i++) await new PtySession().start({ command: 'true', signal: controller.signal })
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })

  it('a non-signal is ERR_INVALID_ARG', () => {
    expect(() => PtySession.spawn({ command: 'true', signal: 5 as never })).toThrow(/options.signal must be an AbortSignal/)
  })

  it('an already aborted signal stops the program at once', async () => {
    const exit = await new PtySession().start({ command: 'sleep', args: ['100'], signal: AbortSignal.abort() })
    expect(exit.cancelled).toBe(true)
  })

  it('a program that ignores TERM is killed after the grace', async () => {
    const session = PtySession.spawn({
      command: 'python3',
      args: ['-c', 'import signal,time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print("ready", flush=True); time.sleep(100)'],
    })
    await session.waitFor('ready')
    const exit = await session.terminate({ graceMs: 200 })
    expect(exit).toMatchObject({ cancelled: true, signal: 'SIGKILL' })
  })
})

describe('terminate leaves nothing behind', () => {
  it('kills a shell, its setsid grandchild and its background job; no zombie remains', async () => {
    const session = PtySession.spawn({
      command: 'bash',
      args: [
        '-c',
        // A background job, and a grandchild in its own session that ignores HUP.
        'sleep 300 & echo "bg $!"; setsid sh -c \'trap "" HUP; echo "daemon $$"; exec sleep 300\' & sleep 0.2; echo ready; wait',
      ],
    })
    const { screen } = await session.waitFor(/ready/)
    const bg = Number(/bg (\d+)/.exec(screen.text)![1])
    const daemon = Number(/daemon (\d+)/.exec(screen.text)![1])
    expect(alive(bg)).toBe(true)
    expect(alive(daemon)).toBe(true)
    const shellPid = session.pid!
    const exit = await session.terminate({ graceMs: 500 })
    expect(exit.cancelled).toBe(true)
    // The program was our child: reaped, gone entirely (no zombie).
    expect(procState(shellPid)).toBeNull()
    // Its descendants are not running any more. (Once their parent died they
    // belong to init, which reaps them; a zombie there is init's.)
    for (const pid of [bg, daemon]) expect(alive(pid)).toBe(false)
  })

  it('kill() with no signal kills the tree at once', async () => {
    const session = PtySession.spawn({ command: 'sh', args: ['-c', 'sleep 300 & echo "bg $!"; wait'] })
    const { screen } = await session.waitFor(/bg \d+/)
    const bg = Number(/bg (\d+)/.exec(screen.text)![1])
    session.kill()
    const exit = await session.exited
    expect(exit).toMatchObject({ cancelled: true, signal: 'SIGKILL' })
    expect(alive(bg)).toBe(false)
  })

  it('Symbol.asyncDispose terminates a running session', async () => {
    let pid = 0
    {
      await using session = PtySession.spawn({ command: 'sleep', args: ['100'] })
      pid = session.pid!
      expect(alive(pid)).toBe(true)
    }
    expect(exists(pid)).toBe(false)
  })
})

describe('load and leaks', () => {
  it('runs 10 sessions concurrently', async () => {
    const runs = Array.from({ length: 10 }, (_, i) => run('sh', ['-c', `echo session ${i}; sleep 0.1`]))
    const results = await Promise.all(runs)
    results.forEach(({ exit, text }, i) => {
      expect(exit.exitCode).toBe(0)
      expect(text).toBe(`session ${i}\r\n`)
    })
  })

  it('100 sequential sessions leak no file descriptors', async (ctx) => {
    linuxOnly(ctx, 'counts descriptors by their /proc/self/fd links')
    await run('true') // warm up lazily created descriptors
    const before = fdCount()
    const kindsBefore = sessionFds()
    for (let i = 0; i < 100; i++) {
      const { exit } = await run('echo', [String(i)])
      expect(exit.exitCode).toBe(0)
    }
    // The kinds a session opens are back exactly where they were; the total
    // may move by the odd descriptor Node or Vitest opens meanwhile, but a
    // leak per session would show as 100 or more.
    expect(sessionFds()).toEqual(kindsBefore)
    expect(fdCount() - before).toBeLessThan(10)
  })

  it('leaves the event loop free to exit after sessions end', async () => {
    const script = `
      const { PtySession, exec } = require(${JSON.stringify(fileURLToPath(new URL('../index.js', import.meta.url)))});
      (async () => {
        const s = PtySession.spawn({ command: 'echo', args: ['hi'] }, () => {});
        await s.exited;
        await exec({ command: 'true' });
        const t = PtySession.spawn({ command: 'sleep', args: ['100'] });
        await t.terminate();
        console.log('done');
      })();
    `
    const child = spawnChild(process.execPath, ['-e', script])
    let stdout = ''
    child.stdout.on('data', (d) => (stdout += d))
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL')
        resolve(-1)
      }, capMs(10000))
      child.on('exit', (c) => {
        clearTimeout(timer)
        resolve(c)
      })
    })
    expect(stdout.trim()).toBe('done')
    expect(code).toBe(0)
  })
})

describe('robustness', () => {
  it('works in several worker threads at once, with the worker\'s own env', async () => {
    const indexPath = fileURLToPath(new URL('../index.js', import.meta.url))
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      const { PtySession } = require(${JSON.stringify(indexPath)});
      process.env.PTYPILOT_WORKER = 'worker-' + workerData;
      (async () => {
        let out = '';
        const s = new PtySession();
        const exit = await s.start({ command: 'sh', args: ['-c', 'echo "$PTYPILOT_WORKER"'] }, (c) => (out += c));
        parentPort.postMessage({ out, exit });
      })();
    `
    const results = await Promise.all(
      [1, 2, 3].map(
        (n) =>
          new Promise<{ out: string; exit: PtyExit }>((resolve, reject) => {
            const worker = new Worker(source, { eval: true, workerData: n })
            worker.once('message', (m) => {
              resolve(m)
              void worker.terminate()
            })
            worker.once('error', reject)
          }),
      ),
    )
    results.forEach(({ out, exit }, i) => {
      expect(exit.exitCode).toBe(0)
      expect(out).toBe(`worker-${i + 1}\r\n`)
    })
  })

  it('an onData listener that throws does not crash the process or lose the exit', async () => {
    const warnings: Error[] = []
    const onWarning = (w: Error) => warnings.push(w)
    process.on('warning', onWarning)
    try {
      const session = new PtySession()
      const exit = await session.start({ command: 'echo', args: ['boom'] }, () => {
        throw new Error('listener failure')
      })
      expect(exit.exitCode).toBe(0)
      await vi.waitFor(() => expect(warnings.some((w) => String(w.message).includes('listener failure'))).toBe(true))
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('process.exit() with a session running leaves no process behind', async () => {
    const indexPath = fileURLToPath(new URL('../index.js', import.meta.url))
    const script = `
      const { PtySession } = require(${JSON.stringify(indexPath)});
      (async () => {
        const s = PtySession.spawn({ command: 'sh', args: ['-c',
          'setsid sh -c \\'trap "" HUP TERM; echo "daemon $$"; exec sleep 300\\' & sleep 300'] });
        const { screen } = await s.waitFor(/daemon \\d+/);
        console.log(/daemon (\\d+)/.exec(screen.text)[1], s.pid);
        process.exit(0);
      })();
    `
    const child = spawnChild(process.execPath, ['-e', script])
    let stdout = ''
    child.stdout.on('data', (d) => (stdout += d))
    await new Promise((resolve) => child.on('exit', resolve))
    const pids = stdout.trim().split(' ').map(Number)
    expect(pids).toHaveLength(2)
    for (const pid of pids) {
      await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 3000 })
    }
  })

  it('terminating a worker kills the programs it started', async () => {
    const indexPath = fileURLToPath(new URL('../index.js', import.meta.url))
    const source = `
      const { parentPort } = require('node:worker_threads');
      const { PtySession } = require(${JSON.stringify(indexPath)});
      const s = PtySession.spawn({ command: 'sh', args: ['-c', 'trap "" HUP; sleep 300'] });
      parentPort.postMessage(s.pid);
    `
    const worker = new Worker(source, { eval: true })
    const pid = await new Promise<number>((resolve) => worker.once('message', resolve))
    expect(alive(pid)).toBe(true)
    await worker.terminate()
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 3000 })
  })

  it('handles 100 concurrent sessions', async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => run('sh', ['-c', `echo n${i}`])),
    )
    results.forEach(({ exit, text }, i) => {
      expect(exit.exitCode).toBe(0)
      expect(text).toBe(`n${i}\r\n`)
    })
  })
})

describe('exec', () => {
  it('returns exit status, stripped output and the final screen', async () => {
    const result = await exec({ command: 'printf', args: ['\\033[1;32mgreen\\033[0m\\nplain\\n'] })
    expect(result.exitCode).toBe(0)
    expect(result.output).toBe('green\nplain\n')
    expect(result.truncated).toBe(false)
    expect(result.screen?.text).toBe('green\nplain')
  })

  it('keeps head and tail beyond maxOutputBytes', async () => {
    const result = await exec({ command: 'seq', args: ['1', '10000'], maxOutputBytes: 1000 })
    expect(result.truncated).toBe(true)
    expect(result.output.startsWith('1\n2\n3\n')).toBe(true)
    expect(result.output.endsWith('9999\n10000\n')).toBe(true)
    expect(result.output).toMatch(/\[\.\.\. \d+ bytes of output omitted \.\.\.\]/)
    expect(result.output.length).toBeLessThan(1200)
  })

  it('streams to onData too', async () => {
    const out = collector()
    const result = await exec({ command: 'echo', args: ['streamed'] }, out.onData)
    expect(out.text()).toBe('streamed\r\n')
    expect(result.output).toBe('streamed\n')
  })

  it('rejects a missing program with ERR_SPAWN', async () => {
    await expect(exec({ command: 'no-such-program-ptypilot' })).rejects.toMatchObject({ code: 'ERR_SPAWN' })
    await expect(exec({ command: 'no-such-program-ptypilot', pty: false })).rejects.toMatchObject({ code: 'ERR_SPAWN' })
  })

  it('pty: false runs with plain pipes: no terminal, stdout and stderr merged, no screen', async () => {
    const result = await exec({
      command: 'sh',
      args: ['-c', 'echo out; echo err >&2; if [ -t 1 ]; then echo tty; else echo notty; fi; exit 2'],
      pty: false,
    })
    expect(result.exitCode).toBe(2)
    expect(result.output).toContain('out\n')
    expect(result.output).toContain('err\n')
    expect(result.output).toContain('notty\n')
    expect(result.screen).toBeNull()
  })

  it('pty: false honours timeoutMs', async () => {
    const result = await exec({ command: 'sleep', args: ['100'], pty: false, timeoutMs: 100 })
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGTERM' })
  })
})

describe('waitFor on right-trimmed rows', () => {
  it("a prompt with a trailing space ('>>> ') matches at the end of a row", async () => {
    const python = PtySession.spawn({ command: 'python3', args: ['-q'] })
    const { match } = await python.waitFor('>>> ')
    expect(match).toBe('>>>')
    python.write('6 * 7\r')
    const { screen } = await python.waitFor(/^42\n>>>$/m)
    expect(screen.text).toBe('>>> 6 * 7\n42\n>>>')
    python.sendKeys('ctrl+d')
    expect((await python.exited).exitCode).toBe(0)
  })
})
