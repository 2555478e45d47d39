'use strict'
// Case 4: spawn-to-exit rate of a trivial program (`true`), sequentially:
// spawn, wait for the reported exit, next. The implementations take turns
// spawn by spawn, so that load from elsewhere on a shared machine hits them
// alike, in a shuffled order, so that work one library leaves behind after
// its exit (closing handles, reaping threads) lands on each of the others
// alike; a round's rate for an implementation is its spawns divided by the
// time they took.
//
//   node --expose-gc bench/cases/spawn.js [--n=150] [--rounds=3]

const { performance } = require('node:perf_hooks')
const { ALL } = require('../lib/impls')
const { summary, shuffled, collect, emit, log, argv } = require('../lib/stats')

const opts = argv()
const N = Number(opts.n || 150)
const ROUNDS = Number(opts.rounds || 3)
const IMPLS = (opts.impls || 'ptypilot,node-pty,node-pty+xterm,ruspty').split(',').map((n) => ALL[n])

async function once(impl) {
  const t0 = performance.now()
  const s = impl.spawn({ command: 'true' })
  await s.exited
  if (s.dispose) s.dispose()
  return performance.now() - t0
}

/** One round: spawns per second of each implementation. */
async function round(n) {
  collect()
  const ms = new Map(IMPLS.map((i) => [i.name, 0]))
  for (let k = 0; k < n; k++) {
    for (const impl of shuffled(IMPLS, k)) ms.set(impl.name, ms.get(impl.name) + (await once(impl)))
  }
  return new Map([...ms].map(([name, t]) => [name, n / (t / 1000)]))
}

async function main() {
  await round(10) // warm-up
  const per = new Map(IMPLS.map((i) => [i.name, []]))
  for (let r = 0; r < ROUNDS; r++) {
    const rates = await round(N)
    for (const impl of IMPLS) per.get(impl.name).push(rates.get(impl.name))
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
