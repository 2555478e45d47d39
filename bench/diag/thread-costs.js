'use strict'
// Where the time of a throughput run goes, per thread, in figures that do not
// depend much on how busy the machine is: CPU time, time spent waiting on a
// run queue, time slices, voluntary and involuntary context switches of each
// thread of this Node process (from /proc/self/task/*/schedstat and status),
// and the chunks delivered — all per MiB delivered.
//
// The counters are read twice: before the spawn and in the data callback that
// received the last expected character, while every thread of the session is
// still alive (a session thread's counters go away with it).
//
//   node --expose-gc bench/diag/thread-costs.js --impl=ptypilot --workload=seq [--runs=5] [--sample=0]
//
// Prints one JSON line per run and, at the end, the median per thread name.
// The program's side (writer context switches, read sizes, wake-ups) is what
// `perf record` of this script shows: see
// bench/notes/2026-11-27-where-the-time-goes-in-a-flood.md.

const fs = require('node:fs')
const { performance } = require('node:perf_hooks')
const { ALL } = require('../lib/impls')
const { corpus, seqChars } = require('../lib/corpus')
const { collect, argv, median } = require('../lib/stats')

const opts = argv()
const impl = ALL[opts.impl || 'ptypilot']
const RUNS = Number(opts.runs || 5)

function workload(name) {
  if (name === 'headers') {
    const h = corpus(32 << 20)
    return { command: 'cat', args: [h.file], expected: h.bytes + h.newlines }
  }
  if (name === 'seq') return { command: 'seq', args: ['1', '1500000'], expected: seqChars(1500000) }
  if (name === 'line') {
    return { command: 'sh', args: ['-c', "head -c 60000000 /dev/zero | tr '\\0' a"], expected: 60000000 }
  }
  if (name === 'warm') return { command: 'seq', args: ['1', '20000'], expected: seqChars(20000) }
  throw new Error(`unknown workload ${name}`)
}

/** tid -> { name, runNs, waitNs, slices, vol, invol } for every thread of this process. */
function threads() {
  const out = new Map()
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const dir = `/proc/self/task/${tid}`
      const [runNs, waitNs, slices] = fs.readFileSync(`${dir}/schedstat`, 'utf8').trim().split(' ').map(Number)
      const status = fs.readFileSync(`${dir}/status`, 'utf8')
      const vol = Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)[1])
      const invol = Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)[1])
      const name = fs.readFileSync(`${dir}/comm`, 'utf8').trim()
      out.set(tid, { name, runNs, waitNs, slices, vol, invol })
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out
}

/** Per thread kind (name without digits): the growth from `a` to `b`. */
function delta(a, b) {
  const kinds = {}
  for (const [tid, t] of b) {
    const before = a.get(tid) || { runNs: 0, waitNs: 0, slices: 0, vol: 0, invol: 0 }
    const kind = t.name.replace(/[-\d]+$/, '').replace(/ptypilot-sessi?o?n?$/, 'ptypilot-session')
    const k = (kinds[kind] ||= { runMs: 0, waitMs: 0, slices: 0, vol: 0, invol: 0 })
    k.runMs += (t.runNs - before.runNs) / 1e6
    k.waitMs += (t.waitNs - before.waitNs) / 1e6
    k.slices += t.slices - before.slices
    k.vol += t.vol - before.vol
    k.invol += t.invol - before.invol
  }
  return kinds
}

async function runOnce(w) {
  collect()
  // The last counters seen of every thread, so that a thread that ended
  // before the last character arrived (a session thread that finished its
  // drain) still counts, up to the last sample.
  const seen = new Map()
  const sample = () => {
    for (const [tid, t] of threads()) seen.set(tid, t)
  }
  // (--sample=0: no sampling, for a run under `perf record` that counts reads.)
  const timer = opts.sample === '0' ? undefined : setInterval(sample, 10)
  let received = 0
  let chunks = 0
  let end
  let finish
  const all = new Promise((r) => (finish = r))
  const before = threads()
  const t0 = performance.now()
  const s = impl.spawn({ command: w.command, args: w.args }, (chunk) => {
    received += chunk.length
    chunks++
    if (received >= w.expected && end === undefined) {
      sample()
      end = { ms: performance.now() - t0, threads: new Map(seen) }
      finish()
    }
  })
  await Promise.race([all, s.exited])
  await s.exited
  clearInterval(timer)
  if (s.dispose) s.dispose()
  if (end === undefined) {
    sample()
    end = { ms: performance.now() - t0, threads: new Map(seen) }
  }
  const mib = received / (1 << 20)
  const kinds = delta(before, end.threads)
  const perMiB = {}
  for (const [kind, k] of Object.entries(kinds)) {
    if (k.runMs < 0.05 && k.vol + k.invol === 0) continue
    perMiB[kind] = {
      cpuMs: +(k.runMs / mib).toFixed(3),
      runQueueMs: +(k.waitMs / mib).toFixed(3),
      slices: +(k.slices / mib).toFixed(1),
      vol: +(k.vol / mib).toFixed(1),
      invol: +(k.invol / mib).toFixed(1),
    }
  }
  return { mibps: +(mib / (end.ms / 1000)).toFixed(1), lost: received !== w.expected, chunksPerMiB: +(chunks / mib).toFixed(1), perMiB }
}

async function main() {
  await runOnce(workload('warm'))
  const w = workload(opts.workload || 'headers')
  const runs = []
  for (let i = 0; i < RUNS; i++) {
    const r = await runOnce(w)
    runs.push(r)
    console.log(JSON.stringify(r))
  }
  const kinds = new Set(runs.flatMap((r) => Object.keys(r.perMiB)))
  const med = { impl: impl.name, workload: opts.workload || 'headers', mibps: median(runs.map((r) => r.mibps)), chunksPerMiB: median(runs.map((r) => r.chunksPerMiB)) }
  for (const kind of kinds) {
    med[kind] = {}
    for (const f of ['cpuMs', 'runQueueMs', 'slices', 'vol', 'invol']) {
      med[kind][f] = +median(runs.map((r) => (r.perMiB[kind] ? r.perMiB[kind][f] : 0))).toFixed(2)
    }
  }
  console.log('median', JSON.stringify(med))
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
