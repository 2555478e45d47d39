'use strict'
// Case 4: spawn-to-exit rate of a trivial program (`true`), sequentially:
// spawn, wait for the reported exit, next. Rounds alternate implementations.
//
//   node --expose-gc bench/cases/spawn.js [--n=150] [--rounds=3]

const { performance } = require('node:perf_hooks')
const { ALL } = require('../lib/impls')
const { summary, rotate, collect, emit, log, argv } = require('../lib/stats')

const opts = argv()
const N = Number(opts.n || 150)
const ROUNDS = Number(opts.rounds || 3)
const IMPLS = (opts.impls || 'ptypilot,node-pty,node-pty+xterm,ruspty').split(',').map((n) => ALL[n])

async function round(impl, n) {
  collect()
  const t0 = performance.now()
  for (let i = 0; i < n; i++) {
    const s = impl.spawn({ command: 'true' })
    await s.exited
    if (s.dispose) s.dispose()
  }
  return n / ((performance.now() - t0) / 1000)
}

async function main() {
  for (const impl of IMPLS) await round(impl, 10) // warm-up
  const per = new Map(IMPLS.map((i) => [i.name, []]))
  for (let r = 0; r < ROUNDS; r++) {
    for (const impl of rotate(IMPLS, r)) per.get(impl.name).push(await round(impl, N))
  }
  const rows = IMPLS.map((impl) => {
    const rate = summary(per.get(impl.name))
    log(`${impl.name.padEnd(15)} ${rate.median.toFixed(0)} /s [${rate.min.toFixed(0)}–${rate.max.toFixed(0)}]`)
    return { impl: impl.name, rate }
  })
  emit({ case: 'spawn', n: N, rounds: ROUNDS, rows })
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
