'use strict'
// Case 6: the cost of reading state from a live session.
//
// - `screen()` at 80×24 and 400×200 after the program filled the screen with
//   text (the full snapshot: text, lines, cursor, size, title, seq), next to
//   the same text read from @xterm/headless (`translateToString` per row) as
//   a reference: right after one character of output (the program echoes a
//   key; what a caller meets after output: ptypilot builds the snapshot
//   anew), and called again with nothing new in between (ptypilot reuses
//   the last snapshot's strings; xterm.js reads its rows again);
// - `read({ since })` of a small new tail after 8 MiB of output (the
//   transcript ring is full), and `read({ tail: 20 })` over the same ring.
//
//   node --expose-gc bench/cases/screen.js

const { performance } = require('node:perf_hooks')
const { ptypilot, nodePtyXterm, xtermText } = require('../lib/impls')
const { corpus } = require('../lib/corpus')
const { summary, collect, emit, log, sleep } = require('../lib/stats')

/**
 * Microseconds per call of `f` over `rounds` rounds of `n` calls: wall time,
 * and CPU time of this process (which, on a shared machine, leaves out the
 * time other processes held the core; the process's other threads are idle
 * here).
 */
function perCall(n, f, rounds = 7) {
  const wall = []
  const cpu = []
  for (let r = 0; r < rounds; r++) {
    collect()
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    for (let i = 0; i < n; i++) f()
    wall.push(((performance.now() - t0) * 1000) / n)
    const c = process.cpuUsage(c0)
    cpu.push((c.user + c.system) / n)
  }
  return { ...summary(wall), cpu: summary(cpu) }
}

/**
 * Microseconds per call of `f` right after output: before each call,
 * `change()` (untimed) has the program print something, and resolves once
 * the screen model has it. Each call is timed alone, so the cost of the
 * clocks is in the figures (well under a microsecond here).
 */
async function perCallAfterOutput(n, change, f, rounds = 7) {
  const wall = []
  const cpu = []
  for (let r = 0; r < rounds; r++) {
    collect()
    let w = 0
    let c = 0
    for (let i = 0; i < n; i++) {
      await change(i)
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      f()
      w += performance.now() - t0
      const d = process.cpuUsage(c0)
      c += d.user + d.system
    }
    wall.push((w * 1000) / n)
    cpu.push(c / n)
  }
  return { ...summary(wall), cpu: summary(cpu) }
}

/**
 * Spawns and waits until `expected` characters arrived. `next()` resolves
 * at the next output after it was called.
 */
async function filled(impl, size, command, args, expected) {
  let received = 0
  let done
  let waiting = null
  const all = new Promise((r) => (done = r))
  const s = impl.spawn({ command, args, ...size }, (c) => {
    received += c.length
    if (received >= expected) done()
    if (waiting) {
      const w = waiting
      waiting = null
      w()
    }
  })
  await all
  await s.screenText()
  const next = () => new Promise((r) => (waiting = r))
  return { s, received: () => received, next }
}

/** Screen text with the spaces at the ends of rows, and the blank rows at the end, dropped. */
function trimmed(text) {
  return text.replace(/ +$/gm, '').replace(/\n+$/, '')
}

/**
 * Has a program in line mode (`cat`) echo one key: alternately a character
 * and DEL (the terminal echoes backspace, space, backspace), so the line
 * never fills. Resolves once the echo arrived; `parsed` then waits until
 * the screen model has it.
 */
function echoKey(p, i, parsed) {
  const echoed = p.next()
  p.s.write(i % 2 === 0 ? 'x' : '\x7f')
  return echoed.then(parsed)
}

async function main() {
  const rows = []
  const fill = corpus(1 << 20)
  for (const size of [
    { cols: 80, rows: 24 },
    { cols: 400, rows: 200 },
  ]) {
    const n = size.cols === 80 ? 20000 : 1000
    const echoes = size.cols === 80 ? 1000 : 100
    const args = ['-c', `cat ${fill.file} && exec cat`]
    const p = await filled(ptypilot, size, 'sh', args, fill.bytes + fill.newlines)
    const snap = p.s.session.screen()
    const ours = perCall(n, () => p.s.session.screen())
    const oursAfter = await perCallAfterOutput(
      echoes,
      (i) => echoKey(p, i, () => {}),
      () => p.s.session.screen(),
    )
    const x = await filled(nodePtyXterm, size, 'sh', args, fill.bytes + fill.newlines)
    const same = snap.text === (await x.s.screenText())
    const theirs = perCall(n, () => xtermText(x.s.term))
    const theirsAfter = await perCallAfterOutput(
      echoes,
      (i) => echoKey(x, i, () => new Promise((r) => x.s.term.write('', r))),
      () => xtermText(x.s.term),
    )
    // Both echoed the same keys: the screens still agree (but for the
    // spaces an erased character leaves, which xterm.js does not trim).
    const sameAfter = p.s.session.screen().text === trimmed(await x.s.screenText())
    p.s.kill()
    x.s.kill()
    await Promise.all([p.s.exited, x.s.exited])
    x.s.dispose()
    const us = (r) => `${r.median.toFixed(1)} µs [${r.min.toFixed(1)}–${r.max.toFixed(1)}] (CPU ${r.cpu.median.toFixed(1)})`
    log(
      `screen() ${size.cols}x${size.rows} after one character of output: ${us(oursAfter)}; xterm text only ${us(theirsAfter)}; ` +
        `unchanged since the last call: ${us(ours)}; xterm text only ${us(theirs)}; same text: ${same && sameAfter}`,
    )
    rows.push({
      what: `screen() ${size.cols}×${size.rows} after one character of output`,
      ptypilotUs: oursAfter,
      xtermUs: theirsAfter,
      sameText: sameAfter,
    })
    rows.push({
      what: `screen() ${size.cols}×${size.rows}, nothing new since the last call`,
      ptypilotUs: ours,
      xtermUs: theirs,
      sameText: same,
    })
  }

  // read({ since }) after 8 MiB of output: more than the ring holds.
  const big = corpus(9 << 20)
  const total = big.bytes + big.newlines
  const p = await filled(ptypilot, {}, 'sh', ['-c', `cat ${big.file} && exec cat`], total)
  const session = p.s.session
  // Cursors count decoded output; this output is ASCII, so the cursor is the count.
  const cursor = total
  p.s.write('a small new tail\r')
  while (p.received() < total + 2 * 'a small new tail\r\n'.length) await sleep(5)
  const check = session.read({ since: cursor })
  const since = perCall(2000, () => session.read({ since: cursor }))
  const tail = perCall(3, () => session.read({ tail: 20 }), 5)
  p.s.kill()
  await p.s.exited
  log(
    `read({since}) of ${JSON.stringify(check.text)} after ${(total / (1 << 20)).toFixed(1)} MiB: ${since.median.toFixed(1)} µs; ` +
      `read({tail: 20}) ${(tail.median / 1000).toFixed(1)} ms`,
  )
  rows.push({ what: 'read({ since }) of a small tail, 8 MiB transcript', ptypilotUs: since, text: check.text })
  rows.push({ what: 'read({ tail: 20 }), 8 MiB transcript', ptypilotUs: tail })
  emit({ case: 'screen', rows })
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
