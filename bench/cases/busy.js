'use strict'
// Case: many busy sessions at once.
//
// Each round starts N sessions of one implementation at once, every one
// running `cat` of the same 1 MiB of headers (so N MiB in all, from the page
// cache), and waits until each delivered everything or reported its exit
// (plus a grace for a slow exit). It reports:
//
// - the aggregate rate: all characters delivered over the wall time from the
//   first spawn until the last session's last character arrived (for
//   xterm.js, until it parsed it) and every screen was read;
// - each session's own rate (what it delivered over the time from its spawn
//   to its last character): the slowest over the median says whether some
//   sessions starve while others run;
// - lost tails: sessions that did not deliver everything by their exit;
// - the CPU time of the Node process per MiB delivered (`process.cpuUsage()`).
//
// Implementations alternate round by round, the first rotating.
//
//   node --expose-gc bench/cases/busy.js [--n=100] [--rounds=3] [--kib=1024] [--impls=a,b]

const { performance } = require('node:perf_hooks')
const { ALL, xtermText } = require('../lib/impls')
const { corpus } = require('../lib/corpus')
const { summary, rotate, sleep, collect, emit, log, argv, median } = require('../lib/stats')

const opts = argv()
const N = Number(opts.n || 100)
const ROUNDS = Number(opts.rounds || 3)
const KIB = Number(opts.kib || 1024)
const IMPLS = (opts.impls || 'ptypilot,node-pty,node-pty+xterm,ruspty').split(',').map((n) => ALL[n])

/** One session of a round: resolves `{ received, tSpawn, tLast }`. */
function one(impl, w) {
  let received = 0
  let tLast = null
  let finish
  const all = new Promise((r) => (finish = r))
  const tSpawn = performance.now()
  const s = impl.spawn({ command: w.command, args: w.args }, (chunk) => {
    received += chunk.length
    tLast = performance.now()
    if (received >= w.expected) finish()
  })
  const done = Promise.race([all, s.exited.then(() => sleep(300))]).then(async () => {
    // With a screen model: the end is when the screen shows the end.
    if (impl.name.startsWith('ptypilot')) {
      await s.screenText()
      tLast = performance.now()
    } else if (impl.name === 'node-pty+xterm') {
      await s.screenText()
      tLast = Math.max(tLast, s.parsedAt)
      xtermText(s.term)
    }
    if (received !== w.expected && s.session) {
      // Where a ptypilot session lost output: the characters it read (its
      // `seq`) against those its listener got.
      const exit = await s.exited
      log(`  ptypilot session got ${received} of ${w.expected}; it read ${s.session.screen().seq}; exit ${JSON.stringify(exit)}`)
    }
    return { received, tSpawn, tLast: tLast ?? performance.now() }
  })
  return { s, done }
}

async function round(impl, w) {
  collect()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const runs = []
  for (let i = 0; i < N; i++) runs.push(one(impl, w))
  const results = await Promise.all(runs.map((r) => r.done))
  const tEnd = Math.max(...results.map((r) => r.tLast))
  const cpu = process.cpuUsage(cpu0)
  await Promise.all(runs.map((r) => r.s.exited))
  for (const r of runs) if (r.s.dispose) r.s.dispose()
  const total = results.reduce((a, r) => a + r.received, 0)
  const mib = total / (1 << 20)
  const rates = results.map((r) => r.received / (1 << 20) / ((r.tLast - r.tSpawn) / 1000))
  const lost = results.filter((r) => r.received !== w.expected).length
  return {
    aggregate: mib / ((tEnd - t0) / 1000),
    slowestOverMedian: Math.min(...rates) / median(rates),
    medianRate: median(rates),
    slowestRate: Math.min(...rates),
    lost,
    cpuMsPerMiB: (cpu.user + cpu.system) / 1000 / mib,
  }
}

async function main() {
  const c = corpus(KIB << 10)
  const w = { command: 'cat', args: [c.file], expected: c.bytes + c.newlines }
  // Warm-up: load every module and JIT the paths once.
  for (const impl of IMPLS) {
    const { s, done } = one(impl, w)
    await done
    await s.exited
    if (s.dispose) s.dispose()
  }
  const per = new Map(IMPLS.map((i) => [i.name, []]))
  for (let r = 0; r < ROUNDS; r++) {
    for (const impl of rotate(IMPLS, r)) {
      const res = await round(impl, w)
      per.get(impl.name).push(res)
      log(
        `  round ${r + 1} ${impl.name.padEnd(15)} ${res.aggregate.toFixed(1)} MiB/s aggregate, ` +
          `slowest ${res.slowestRate.toFixed(2)} / median ${res.medianRate.toFixed(2)} MiB/s ` +
          `(${res.slowestOverMedian.toFixed(2)}), lost ${res.lost}/${N}, CPU ${res.cpuMsPerMiB.toFixed(2)} ms/MiB`,
      )
      await sleep(200)
    }
  }
  const rows = IMPLS.map((impl) => {
    const xs = per.get(impl.name)
    const row = {
      impl: impl.name,
      aggregate: summary(xs.map((x) => x.aggregate)),
      slowestOverMedian: summary(xs.map((x) => x.slowestOverMedian)),
      lost: xs.reduce((a, x) => a + x.lost, 0),
      sessions: xs.length * N,
      cpuMsPerMiB: summary(xs.map((x) => x.cpuMsPerMiB)),
    }
    log(
      `${impl.name.padEnd(15)} ${row.aggregate.median.toFixed(1)} MiB/s [${row.aggregate.min.toFixed(1)}–${row.aggregate.max.toFixed(1)}] ` +
        `slowest/median ${row.slowestOverMedian.median.toFixed(2)} lost ${row.lost}/${row.sessions} ` +
        `CPU ${row.cpuMsPerMiB.median.toFixed(2)} ms/MiB`,
    )
    return row
  })
  emit({
    case: 'busy',
    n: N,
    rounds: ROUNDS,
    title: `${N} sessions at once, each \`cat\` of ${(c.bytes / (1 << 20)).toFixed(0)} MiB of headers`,
    expected: w.expected,
    rows,
  })
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
