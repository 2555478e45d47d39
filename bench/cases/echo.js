'use strict'
// Case 3: keystroke echo round trip through `cat`.
//
// The terminal is put in raw mode without kernel echo, so the echo comes from
// the program (cat reads the key and writes it back), as with an interactive
// program. One key is written; the clock stops when it came back through the
// data callback; then the next key. One session per implementation is open at
// once and the keys go round-robin across them, so that the machine's changing
// moods (on a shared VM a cross-CPU wake-up takes ~15 µs or ~100 µs, minute
// by minute) hit every implementation alike. Each round uses fresh sessions.
//
// The order of each turn is shuffled (seeded), as in the spawn case: what one
// library's key leaves behind (JS that runs after its callback, V8 compiling
// or collecting on its background threads, which takes one of the two CPUs
// for up to a few ms) delays the key after it, so each library must follow
// each other one about equally often. A plain rotation does not give that:
// with four libraries, each followed the same one in 3 turns of 4.
//
// A session is ready once cat echoed a first key (not timed): the shell's
// `exec cat` of the session opened last is otherwise still running when the
// first timed key goes, always to the same library.
//
//   node --expose-gc bench/cases/echo.js [--keys=2000] [--rounds=3]

const { performance } = require('node:perf_hooks')
const { ALL } = require('../lib/impls')
const { quantile, summary, shuffled, collect, emit, log, argv } = require('../lib/stats')

const opts = argv()
const KEYS = Number(opts.keys || 2000)
const ROUNDS = Number(opts.rounds || 3)
const IMPLS = (opts.impls || 'ptypilot,node-pty,ptypilot/node-pty,node-pty+xterm,ruspty').split(',').map((n) => ALL[n])

/** A session of `impl` running cat in raw mode, ready for keys. */
async function open(impl) {
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
  const ready = until(2)
  s.write('.')
  await ready // cat runs and echoes
  let i = 0
  return {
    /** One round trip, in µs. */
    async key() {
      const key = String.fromCharCode(97 + (i++ % 26))
      const done = until(received + 1)
      const t0 = performance.now()
      s.write(key)
      await done
      return (performance.now() - t0) * 1000
    },
    async close() {
      s.kill()
      await s.exited
      if (s.dispose) s.dispose()
    },
  }
}

/** One round: `{ [impl]: { p50, p99 } }`; `seed` picks the turns' orders. */
async function runRound(keys, seed) {
  collect()
  const sessions = []
  for (const impl of IMPLS) sessions.push({ impl, s: await open(impl), samples: new Float64Array(keys) })
  for (let k = 0; k < keys; k++) {
    for (const x of shuffled(sessions, seed + k)) x.samples[k] = await x.s.key()
  }
  const out = {}
  for (const x of sessions) {
    await x.s.close()
    const xs = Array.from(x.samples)
    out[x.impl.name] = {
      p50: quantile(xs, 0.5),
      p90: quantile(xs, 0.9),
      p99: quantile(xs, 0.99),
      p999: quantile(xs, 0.999),
    }
  }
  return out
}

async function main() {
  await runRound(200, 0) // warm-up
  const per = new Map(IMPLS.map((i) => [i.name, { p50: [], p90: [], p99: [], p999: [] }]))
  for (let r = 0; r < ROUNDS; r++) {
    const res = await runRound(KEYS, (r + 1) * KEYS)
    for (const impl of IMPLS) {
      for (const q of ['p50', 'p90', 'p99', 'p999']) per.get(impl.name)[q].push(res[impl.name][q])
    }
  }
  const rows = IMPLS.map((impl) => {
    const p = per.get(impl.name)
    const row = { impl: impl.name, p50: summary(p.p50), p99: summary(p.p99) }
    // p90 and p99.9 only in the log (the tables show p50 and p99).
    const median = (q) => summary(p[q]).median.toFixed(0)
    log(
      `${impl.name.padEnd(15)} p50 ${row.p50.median.toFixed(0)} µs [${row.p50.min.toFixed(0)}–${row.p50.max.toFixed(0)}]` +
        `  p90 ${median('p90')}` +
        `  p99 ${row.p99.median.toFixed(0)} µs [${row.p99.min.toFixed(0)}–${row.p99.max.toFixed(0)}]` +
        `  p99.9 ${median('p999')}`,
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
