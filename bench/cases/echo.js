'use strict'
// Case 3: keystroke echo round trip through `cat`.
//
// The terminal is put in raw mode without kernel echo, so the echo comes from
// the program (cat reads the key and writes it back), as with an interactive
// program. One key is written; the clock stops when it came back through the
// data callback; then the next key. Rounds alternate implementations.
//
//   node --expose-gc bench/cases/echo.js [--keys=2000] [--rounds=3]

const { performance } = require('node:perf_hooks')
const { ALL } = require('../lib/impls')
const { quantile, summary, rotate, collect, emit, log, argv } = require('../lib/stats')

const opts = argv()
const KEYS = Number(opts.keys || 2000)
const ROUNDS = Number(opts.rounds || 3)
const IMPLS = (opts.impls || 'ptypilot,node-pty,node-pty+xterm,ruspty').split(',').map((n) => ALL[n])

async function runOnce(impl) {
  collect()
  let received = 0
  let waiting = null
  const s = impl.spawn({ command: 'sh', args: ['-c', 'stty raw -echo && printf R && exec cat'] }, (chunk) => {
    received += chunk.length
    if (waiting !== null && received >= waiting.until) {
      const w = waiting
      waiting = null
      w.resolve()
    }
  })
  const until = (n) => new Promise((resolve) => (waiting = { until: n, resolve }))
  await until(1) // "R": raw mode is on
  const samples = new Float64Array(KEYS)
  for (let i = 0; i < KEYS; i++) {
    const key = String.fromCharCode(97 + (i % 26))
    const done = until(received + 1)
    const t0 = performance.now()
    s.write(key)
    await done
    samples[i] = (performance.now() - t0) * 1000
  }
  s.kill()
  await s.exited
  if (s.dispose) s.dispose()
  const xs = Array.from(samples)
  return { p50: quantile(xs, 0.5), p99: quantile(xs, 0.99) }
}

async function main() {
  for (const impl of IMPLS) await runOnce(impl) // warm-up
  const per = new Map(IMPLS.map((i) => [i.name, { p50: [], p99: [] }]))
  for (let r = 0; r < ROUNDS; r++) {
    for (const impl of rotate(IMPLS, r)) {
      const { p50, p99 } = await runOnce(impl)
      per.get(impl.name).p50.push(p50)
      per.get(impl.name).p99.push(p99)
    }
  }
  const rows = IMPLS.map((impl) => {
    const p = per.get(impl.name)
    const row = { impl: impl.name, p50: summary(p.p50), p99: summary(p.p99) }
    log(
      `${impl.name.padEnd(15)} p50 ${row.p50.median.toFixed(0)} µs [${row.p50.min.toFixed(0)}–${row.p50.max.toFixed(0)}]` +
        `  p99 ${row.p99.median.toFixed(0)} µs [${row.p99.min.toFixed(0)}–${row.p99.max.toFixed(0)}]`,
    )
    return row
  })
  emit({ case: 'echo', keys: KEYS, rounds: ROUNDS, rows })
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
