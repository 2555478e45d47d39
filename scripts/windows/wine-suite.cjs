// The Windows suite, run by Node's own Windows build (under Wine on Linux, through
// scripts/windows/wine-test.sh; or on Windows directly: `node scripts/windows/wine-suite.cjs
// out.json`). Each piece starts real Windows programs through ptypilot and checks what a user
// would: the addon loads, a program's output and exit code arrive, typing reaches it, a resize
// reaches it, a tree ends. Results go to the JSON file named by the first argument, one entry
// per piece ({ name, ok, detail, ms }); the process exits 0 even when pieces fail (the caller
// decides which failures Wine explains). stdout is not used: under Wine a pipe gives EBADF.
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const out = process.argv[2]
const helpers = process.argv[3] // the folder with winsize.exe
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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

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

  await piece('pseudo console: exit code', async () => {
    const r = await ptypilot.exec({ command: 'cmd.exe', args: ['/d', '/c', 'exit 5'] })
    expect(r.exitCode === 5, `exit code ${r.exitCode}`)
    return { exitCode: r.exitCode }
  })

  await piece('pseudo console: output arrives', async () => {
    const r = await ptypilot.exec({ command: 'cmd.exe', args: ['/d', '/c', 'echo hello-from-conpty'] })
    expect(r.output.includes('hello-from-conpty'), `output was ${JSON.stringify(r.output)} (exit ${r.exitCode})`)
    return { output: r.output.trim() }
  })

  const winsize = helpers && path.join(helpers, 'winsize.exe')
  await piece('pseudo console: typing reaches the program (its exit code is the width it reads)', async () => {
    const s = new ptypilot.PtySession()
    const exited = s.start({ command: winsize, cols: 91, rows: 20 })
    exited.catch(() => {}) // awaited below; a failed start is reported there
    await sleep(500)
    s.write('go\r')
    const e = await exited
    expect(e.exitCode === 91, `exit code ${e.exitCode} (91 = typed line read, width 91)`)
    return { exitCode: e.exitCode }
  })

  await piece('pseudo console: a resize reaches the program', async () => {
    const s = new ptypilot.PtySession()
    const exited = s.start({ command: winsize, cols: 80, rows: 20 })
    exited.catch(() => {}) // awaited below; a failed start is reported there
    await sleep(500)
    s.resize(123, 30)
    expect(s.screen().cols === 123, `screen model has ${s.screen().cols} columns`)
    await sleep(300)
    s.write('go\r')
    const e = await exited
    expect(e.exitCode === 123, `exit code ${e.exitCode} (the width the program saw)`)
    return { exitCode: e.exitCode }
  })

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
