'use strict'
// Case 2: lost output at exit.
//
// A program writes a burst and exits at once; the run counts what reached the
// data callback by the time the implementation reported the exit (what a
// caller that awaits the exit and then looks at the output sees). A run that
// got less than the whole burst lost its tail. Runs go in small concurrent
// batches to keep the case short; implementations alternate batch by batch.
//
//   node bench/cases/lost-tail.js [--runs=1000] [--batch=4] [--impls=a,b]

const { ALL } = require('../lib/impls')
const { corpus } = require('../lib/corpus')
const { rotate, emit, log, argv, summary } = require('../lib/stats')

const opts = argv()
const RUNS = Number(opts.runs || 1000)
const BATCH = Number(opts.batch || 4)
const IMPLS = (opts.impls || 'ptypilot,node-pty,ptypilot/node-pty,ruspty').split(',').map((n) => ALL[n])
const BURST = Number(opts.burst || 64 << 10)

async function runOnce(impl, w) {
  let received = 0
  const s = impl.spawn({ command: w.command, args: w.args }, (chunk) => {
    received += chunk.length
  })
  const exit = await s.exited
  if (received !== w.expected && s.session) {
    // Where a ptypilot run lost output: the characters the session read
    // (its `seq`) against those its listener got.
    log(`  ptypilot run got ${received} of ${w.expected}; the session read ${s.session.screen().seq}; exit ${JSON.stringify(exit)}`)
  }
  return received
}

async function main() {
  const c = corpus(BURST)
  const w = {
    command: 'cat',
    args: [c.file],
    expected: c.bytes + c.newlines,
    title: `cat of ${c.bytes >> 10} KiB of headers, then exit`,
  }
  const stats = new Map(IMPLS.map((i) => [i.name, { runs: 0, lost: 0, missing: [], ms: 0 }]))
  let round = 0
  while ([...stats.values()].some((s) => s.runs < RUNS)) {
    for (const impl of rotate(IMPLS, round++)) {
      const s = stats.get(impl.name)
      const n = Math.min(BATCH, RUNS - s.runs)
      if (n <= 0) continue
      const t0 = Date.now()
      const got = await Promise.all(Array.from({ length: n }, () => runOnce(impl, w)))
      s.ms += Date.now() - t0
      for (const g of got) {
        s.runs++
        if (g !== w.expected) {
          s.lost++
          s.missing.push(w.expected - g)
        }
      }
    }
  }
  const rows = IMPLS.map((impl) => {
    const s = stats.get(impl.name)
    const missing = s.missing.length ? summary(s.missing) : null
    log(
      `${impl.name.padEnd(15)} lost the tail in ${s.lost}/${s.runs} runs` +
        (missing ? ` (missing ${missing.min}–${missing.max} chars, median ${missing.median})` : '') +
        ` ${(s.ms / s.runs).toFixed(1)} ms/run`,
    )
    return { impl: impl.name, runs: s.runs, lost: s.lost, missing, msPerRun: s.ms / s.runs }
  })
  emit({ case: 'lost-tail', title: w.title, expected: w.expected, batch: BATCH, rows })
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
