// The Windows suite, run by Node's own Windows build (under Wine on Linux, through
// scripts/windows/wine-test.sh; or on Windows directly: `node scripts/windows/wine-suite.cjs
// out.json HELPERS`, HELPERS being a folder with the fixtures built from scripts/windows/*.c).
// Each piece starts real Windows programs through ptypilot and checks what a user would: the
// addon loads, a program's output and exit code arrive, typing reaches it, the screen model
// reads its screen, a tree ends. Results go to the JSON file named by the first argument, one
// entry per piece ({ name, ok, detail, ms }); the process exits 0 even when pieces fail (the
// caller, wine-report.js, decides which failures Wine explains). stdout is not used: under
// Wine 8 a pipe gives EBADF.
//
// "[shim]" in a piece's name: the program runs through conshim.exe, a test fixture
// (scripts/windows/conshim.c) that opens the console's CONIN$/CONOUT$ and passes them on as
// the program's standard handles. Wine's console host does not give a program on a pseudo
// console its handles as Windows does, so without the shim such a program reads end-of-file
// and writes nowhere. The shim is never part of ptypilot: ptypilot itself passes null
// standard handles, as node-pty does. "[CONIN$]": the fixture (echo.c) opens CONIN$/CONOUT$
// itself, as the shim does for the programs it starts; also only for Wine's sake.
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const out = process.argv[2]
const helpers = process.argv[3] // the folder with the fixtures (conshim.exe, lines.exe, ...)
const results = []
const save = () => fs.writeFileSync(out, JSON.stringify(results, null, 2))

/** Runs `fn` with a time limit; records its outcome. */
async function piece(name, fn, limitMs = 20000) {
  const started = Date.now()
  let timer
  try {
    const limit = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no result after ${limitMs} ms`)), limitMs)
    })
    const detail = await Promise.race([fn(), limit])
    results.push({ name, ok: true, detail, ms: Date.now() - started })
  } catch (err) {
    results.push({ name, ok: false, detail: String((err && err.stack) || err), ms: Date.now() - started })
  } finally {
    clearTimeout(timer)
    save()
  }
}

function expect(cond, what) {
  if (!cond) throw new Error(what)
}

// The counts of the heavy pieces (each run or session starts Wine processes, slow under Wine):
// the 100 runs and 50 sessions by default; CI sets fewer to fit its time.
const RUNS = Number(process.env.PTYPILOT_WINE_RUNS || 100)
const SESSIONS = Number(process.env.PTYPILOT_WINE_SESSIONS || 50)

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const fixture = (name) => path.join(helpers, name)
const shim = fixture('conshim.exe')

/** Starts `args` through the shim in a new session; the session and its exit promise. */
function startShimmed(ptypilot, args, options = {}) {
  const s = new ptypilot.PtySession()
  const exited = s.start({ command: shim, args, ...options })
  exited.catch(() => {}) // awaited by the caller; a failed start is reported there
  return { s, exited }
}

/** Polls `check(screen)` until it holds or `ms` passed; the last screen. */
async function screenUntil(s, check, ms = 8000) {
  const until = Date.now() + ms
  let screen = s.screen()
  while (!check(screen) && Date.now() < until) {
    await sleep(50)
    screen = s.screen()
  }
  return screen
}

/** The numbers of "line N" in `text` (the console host may move the cursor over the space). */
function lineNumbers(text) {
  return [...text.matchAll(/line\s*(\d+)/g)].map((m) => Number(m[1]))
}

/** Whether `text` holds "line 1" ... "line n" in order, then "END n". */
function complete(text, n) {
  const numbers = lineNumbers(text)
  if (numbers.length !== n) return false
  for (let i = 0; i < n; i++) if (numbers[i] !== i + 1) return false
  return new RegExp(`END\\s*${n}`).test(text)
}

const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

async function main() {
  let ptypilot
  await piece('load the addon in Node for Windows', async () => {
    ptypilot = require('../../index.js')
    expect(typeof ptypilot.PtySession === 'function', 'PtySession is not exported')
    expect(typeof ptypilot.exec === 'function', 'exec is not exported')
    return `${process.version} ${process.platform} ${process.arch}`
  })
  if (!ptypilot) return

  await piece('pipes: a console program runs, its output and exit code arrive', async () => {
    const r = await ptypilot.exec({ command: 'cmd.exe', args: ['/d', '/c', 'echo hello-from-cmd& exit 7'], pty: false })
    expect(r.output.includes('hello-from-cmd'), `output was ${JSON.stringify(r.output)}`)
    expect(r.exitCode === 7, `exit code ${r.exitCode}`)
    expect(r.signal === null, `signal ${r.signal}`)
    return { output: r.output.trim(), exitCode: r.exitCode }
  })

  await piece('pipes: a missing program is ERR_SPAWN with ENOENT', async () => {
    let err
    try {
      await ptypilot.exec({ command: 'no-such-program-here', pty: false })
    } catch (e) {
      err = e
    }
    expect(err && err.code === 'ERR_SPAWN', `got ${err && err.code}: ${err && err.message}`)
    expect(/ENOENT/.test(err.message), err.message)
    return err.message
  })

  await piece('pipes: 0 lost tails (100 runs, 10 at a time)', async () => {
    let lost = 0
    const bad = []
    for (let round = 0; round < Math.ceil(RUNS / 10); round++) {
      const runs = await Promise.all(
        Array.from({ length: 10 }, () => ptypilot.exec({ command: fixture('lines.exe'), args: ['50'], pty: false })),
      )
      for (const r of runs) {
        if (!complete(r.output, 50) || r.exitCode !== 0) {
          lost++
          if (bad.length < 3) bad.push(r.output.slice(-200))
        }
      }
    }
    expect(lost === 0, `${lost} of ${RUNS} runs lost output; tails: ${JSON.stringify(bad)}`)
    return { runs: Math.ceil(RUNS / 10) * 10, lines: 50, lost }
  }, 120000)

  await piece('pseudo console: exit code (cmd.exe /c exit 5)', async () => {
    const r = await ptypilot.exec({ command: 'cmd.exe', args: ['/d', '/c', 'exit 5'] })
    expect(r.exitCode === 5, `exit code ${r.exitCode}`)
    return { exitCode: r.exitCode }
  })

  await piece('pseudo console: output arrives [shim]', async () => {
    const r = await ptypilot.exec({ command: shim, args: ['cmd.exe', '/d', '/c', 'echo hello-from-conpty'] })
    expect(r.output.includes('hello-from-conpty'), `output was ${JSON.stringify(r.output)} (exit ${r.exitCode})`)
    expect(r.exitCode === 0, `exit code ${r.exitCode}`)
    return { output: r.output.trim() }
  })

  await piece('pseudo console: typing and Enter (\\r) reach cmd.exe, `exit 3` typed ends it with 3 [shim]', async () => {
    const { s, exited } = startShimmed(ptypilot, ['cmd.exe', '/d'])
    await s.waitFor('>', { timeoutMs: 10000 })
    s.write('echo typed-%OS%\r')
    await s.waitFor(/^typed-Windows_NT$/m, { timeoutMs: 10000 })
    s.write('exit 3\r')
    const e = await exited
    expect(e.exitCode === 3, `exit code ${e.exitCode}`)
    return { exitCode: e.exitCode, expanded: 'typed-Windows_NT' }
  })

  await piece('pseudo console: Ctrl+C (\\x03) stops a program waiting for it [shim]', async () => {
    const { s, exited } = startShimmed(ptypilot, [fixture('ctrlc.exe')])
    await s.waitFor('ready', { timeoutMs: 10000 })
    const typed = Date.now()
    s.write('\x03')
    const e = await exited
    const ms = Date.now() - typed
    const text = s.read().text
    // 7: no Ctrl+C came within 10 s. 100: its handler ran (CTRL_C_EVENT), as on Windows.
    expect(e.exitCode !== 7, `the program never saw Ctrl+C (exit code 7 after ${ms} ms)`)
    const handler = /handler ran: 0/.test(text)
    return {
      exitCode: e.exitCode,
      handlerRan: handler,
      msAfterCtrlC: ms,
      what: handler ? 'CTRL_C_EVENT reached the handler' : "the console host ended the console's processes; no handler ran",
    }
  })

  await piece('waitFor and the screen: the prompt, a typed command and its answer as the model reads them [shim]', async () => {
    const { s, exited } = startShimmed(ptypilot, ['cmd.exe', '/d'], { cols: 100, rows: 30 })
    const prompt = await s.waitFor(/^[A-Z]:\\.*>$/m, { timeoutMs: 10000 })
    const seq = s.read().cursor
    s.write('echo answer-%OS%\r')
    const m = await s.waitFor(/^answer-Windows_NT$/m, { since: seq, timeoutMs: 10000 })
    const lines = m.screen.lines
    const typedRow = lines.findIndex((l) => l.endsWith('>echo answer-%OS%'))
    const answerRow = lines.indexOf('answer-Windows_NT')
    expect(m.screen.cols === 100 && m.screen.rows === 30 && lines.length === 30, `screen ${m.screen.cols}x${m.screen.rows}`)
    expect(typedRow >= 0, `no row shows the typed command: ${JSON.stringify(lines.slice(0, 8))}`)
    expect(answerRow === typedRow + 1, `the answer is on row ${answerRow}, the command on ${typedRow}`)
    s.write('exit\r')
    const e = await exited
    expect(e.exitCode === 0, `exit code ${e.exitCode}`)
    return { prompt: prompt.match, typedRow, answerRow }
  })

  await piece('a full-screen redraw (console API, every cell) as the model reads it [shim]', async () => {
    const cols = 60
    const rows = 16
    const { s, exited } = startShimmed(ptypilot, [fixture('redraw.exe')], { cols, rows })
    const frame = (fill, row, label) => (screen) =>
      screen.lines.length === rows &&
      screen.lines.every((l, i) => l === (i === row ? label + fill.repeat(cols - label.length) : fill.repeat(cols)))
    const first = await screenUntil(s, frame('A', 0, 'frame 1'))
    expect(frame('A', 0, 'frame 1')(first), `frame 1 not read whole: ${JSON.stringify(first.lines)}`)
    s.write('x\r')
    const second = await screenUntil(s, frame('B', 5, 'frame 2'))
    expect(frame('B', 5, 'frame 2')(second), `frame 2 not read whole: ${JSON.stringify(second.lines)}`)
    s.write('y\r')
    const e = await exited
    expect(e.exitCode === 0, `exit code ${e.exitCode}`)
    return { cols, rows, frames: 2 }
  })

  await piece('session loop: order and completeness, 0 lost tails (100 runs, 10 at a time) [shim]', async () => {
    let lost = 0
    const bad = []
    const started = Date.now()
    for (let round = 0; round < Math.ceil(RUNS / 10); round++) {
      const runs = await Promise.all(
        Array.from({ length: 10 }, () => ptypilot.exec({ command: shim, args: [fixture('lines.exe'), '50'] })),
      )
      for (const r of runs) {
        if (!complete(r.output, 50) || r.exitCode !== 0) {
          lost++
          if (bad.length < 3) bad.push({ exitCode: r.exitCode, numbers: lineNumbers(r.output).length, tail: r.output.slice(-120) })
        }
      }
    }
    expect(lost === 0, `${lost} of ${RUNS} runs lost output or order: ${JSON.stringify(bad)}`)
    const runs = Math.ceil(RUNS / 10) * 10
    return { runs, lines: 50, lost, msPerRun: Math.round((Date.now() - started) / runs) }
  }, 300000)

  await piece("many sessions at once (50): typed round trips through the Windows wait's one lock [CONIN$]", async () => {
    const roundTrips = async (s, tag, n) => {
      const times = []
      for (let k = 0; k < n; k++) {
        const seq = s.read().cursor
        const t = process.hrtime.bigint()
        s.write(`${tag}-${k}\r`)
        await s.waitFor(new RegExp(`^= ${tag}-${k}$`, 'm'), { since: seq, timeoutMs: 60000 })
        times.push(Number(process.hrtime.bigint() - t) / 1e6)
      }
      return times
    }
    const open = async (n) => {
      const sessions = Array.from({ length: n }, () => {
        const s = new ptypilot.PtySession()
        const exited = s.start({ command: fixture('echo.exe') })
        exited.catch(() => {})
        return { s, exited }
      })
      await Promise.all(sessions.map(({ s }) => s.waitFor('ready', { timeoutMs: 120000 })))
      return sessions
    }
    const close = async (sessions) => {
      for (const { s } of sessions) s.write('exit\r')
      const exits = await Promise.all(sessions.map(({ exited }) => exited))
      return exits.filter((e) => e.exitCode === 0).length
    }
    const alone = await open(1)
    const aloneTimes = await roundTrips(alone[0].s, 'alone', 10)
    expect((await close(alone)) === 1, 'the lone session did not exit with 0')
    const t0 = Date.now()
    const many = await open(SESSIONS)
    const startMs = Date.now() - t0
    const t1 = Date.now()
    const manyTimes = (await Promise.all(many.map(({ s }, i) => roundTrips(s, `s${i}`, 5)))).flat()
    const tripsMs = Date.now() - t1
    const clean = await close(many)
    expect(clean === SESSIONS, `${SESSIONS - clean} of ${SESSIONS} sessions did not exit with 0`)
    expect(manyTimes.length === SESSIONS * 5, `${manyTimes.length} of ${SESSIONS * 5} round trips`)
    const ms = (x) => Math.round(x * 10) / 10
    return {
      sessions: SESSIONS,
      startAllMs: startMs,
      roundTrips: SESSIONS * 5,
      allTripsMs: tripsMs,
      aloneMs: { p50: ms(percentile(aloneTimes, 50)), p99: ms(percentile(aloneTimes, 99)) },
      fiftyMs: { p50: ms(percentile(manyTimes, 50)), p99: ms(percentile(manyTimes, 99)) },
    }
  }, 300000)

  await piece('pseudo console: a resize reaches the program [shim]', async () => {
    const { s, exited } = startShimmed(ptypilot, [fixture('winsize.exe')], { cols: 80, rows: 20 })
    await sleep(500)
    s.resize(123, 30)
    expect(s.screen().cols === 123, `screen model has ${s.screen().cols} columns`)
    await sleep(300)
    s.write('go\r')
    const e = await exited
    expect(e.exitCode === 123, `exit code ${e.exitCode} (the width the program saw)`)
    return { exitCode: e.exitCode }
  })

  await piece("conpty.inheritCursor reaches CreatePseudoConsole (Wine's console host refuses the flag: no output) [shim]", async () => {
    const plain = await ptypilot.exec({ command: shim, args: ['cmd.exe', '/d', '/c', 'echo flag-check'] })
    const r = await ptypilot.exec({
      command: shim,
      args: ['cmd.exe', '/d', '/c', 'echo flag-check'],
      conpty: { inheritCursor: true },
      timeoutMs: 10000,
    })
    expect(plain.output.includes('flag-check'), `without the flag: ${JSON.stringify(plain.output)}`)
    expect(!r.output.includes('flag-check'), `with the flag the output arrived: Wine's console host took it (${JSON.stringify(r.output)})`)
    return { withoutFlag: 'output arrives', withFlag: { exitCode: r.exitCode, timedOut: r.timedOut, bytes: r.output.length } }
  })

  const shimCmd = fixture(path.join('shim', 'cmd.exe'))
  await piece('Shell on cmd.exe: output, exit codes, state from one run to the next [shim]', async () => {
    const shell = new ptypilot.Shell({ shell: shimCmd })
    try {
      const hello = await shell.run({ command: 'echo hello-shell' })
      expect(hello.exitCode === 0 && hello.output === 'hello-shell\n', `echo: ${JSON.stringify(hello)}`)
      // An external program's exit code (Wine 8's cmd.exe gives 1 for `exit /b 4` in a called file).
      const four = await shell.run({ command: 'cmd /d /c exit 4' })
      expect(four.exitCode === 4, `cmd /c exit 4: ${JSON.stringify(four)}`)
      const zero = await shell.run({ command: 'echo after' })
      expect(zero.exitCode === 0, `the level was not reset: ${JSON.stringify(zero)}`)
      await shell.run({ command: 'set PTYPILOT_X=kept' })
      const kept = await shell.run({ command: 'echo %PTYPILOT_X%\necho line-two' })
      expect(kept.output === 'kept\nline-two\n', `two lines and a variable set by the run before: ${JSON.stringify(kept.output)}`)
      const missing = await shell.run({ command: 'no-such-command-here' })
      expect(missing.exitCode === 9009, `a missing command: ${JSON.stringify(missing)}`)
      const pid = shell.pid
      expect(typeof pid === 'number', 'no shell pid')
      return { outputs: [hello.output, kept.output], exitCodes: [hello.exitCode, four.exitCode, zero.exitCode, missing.exitCode] }
    } finally {
      await shell.close()
    }
  }, 60000)

  await piece('Shell on cmd.exe: a timeout stops the command, the next run gets a new shell [shim]', async () => {
    const shell = new ptypilot.Shell({ shell: shimCmd })
    try {
      const t0 = Date.now()
      const slow = await shell.run({ command: 'echo before& ping -n 30 127.0.0.1 >nul', timeoutMs: 2000 })
      const ms = Date.now() - t0
      expect(slow.timedOut && slow.exitCode === null, `not stopped: ${JSON.stringify(slow)}`)
      expect(slow.output.includes('before'), `output before the timeout: ${JSON.stringify(slow.output)}`)
      expect(ms < 15000, `stopped after ${ms} ms`)
      const next = await shell.run({ command: 'echo again' })
      expect(next.exitCode === 0 && next.output === 'again\n', `after the timeout: ${JSON.stringify(next)}`)
      return { timedOut: slow.timedOut, ms, warning: slow.warning, next: next.output }
    } finally {
      await shell.close()
    }
  }, 60000)

  await piece('terminate ends the whole tree (Job Object)', async () => {
    const s = new ptypilot.PtySession()
    const exited = s.start({ command: 'cmd.exe', args: ['/d', '/c', 'ping -n 60 127.0.0.1 > nul'] })
    let failed = null
    exited.catch((err) => {
      failed = err
    })
    let child = null
    for (let i = 0; i < 50 && !child && !failed; i++) {
      await sleep(100)
      const root = ptypilot.Process.fromPid(s.pid)
      child = (root && root.children()[0]) ?? null
    }
    if (failed) throw failed
    expect(child, 'the child (ping) never showed up in the process table')
    const childPid = child.pid
    const e = await s.terminate({ graceMs: 0 })
    expect(e.exitCode === 1, `exit code ${e.exitCode}`)
    await sleep(300)
    const left = ptypilot.Process.fromPid(childPid)
    expect(!left || left.status() === 'exited', `child ${childPid} still runs`)
    return { exitCode: e.exitCode, child: childPid }
  })
}

main()
  .catch((err) => results.push({ name: 'suite', ok: false, detail: String((err && err.stack) || err) }))
  .finally(() => {
    save()
    process.exit(0)
  })
