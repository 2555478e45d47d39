'use strict'
// Case 1: output throughput to JS.
//
// Each run spawns the workload and times from spawn until the last expected
// character reached the JS callback — and, for implementations with a screen
// model, until the screen text was read after parsing finished (xterm.js
// parses asynchronously; the adapter notes when the last chunk was parsed).
// Every run counts what arrived; a run that did not deliver everything is
// reported as lost, and its rate is computed over what did arrive.
//
// Each run also takes the CPU time of the whole Node process over the same
// span (`process.cpuUsage()`: user plus system time of every thread, so
// ptypilot's session threads and libuv's are in it; the program writing the
// output is another process and is not). Divided by the MiB delivered, it is
// what a MiB of output costs the host besides the wall time.
//
//   node --expose-gc bench/cases/throughput.js [--rounds=5] [--impls=a,b]
//        [--workloads=headers,seq,line] [--scale=1]

const { performance } = require('node:perf_hooks')
const { ALL, xtermText } = require('../lib/impls')
const { corpus, seqChars } = require('../lib/corpus')
const { summary, rotate, sleep, collect, emit, log, argv } = require('../lib/stats')

const opts = argv()
const ROUNDS = Number(opts.rounds || 5)
const IMPLS = (opts.impls || 'ptypilot,node-pty,ptypilot/node-pty,node-pty+xterm,ruspty,bare').split(',').map((n) => ALL[n])
const SCALE = Number(opts.scale || 1)
const ONLY = opts.workloads ? String(opts.workloads).split(',') : null

function workloads() {
  const headers = corpus(Math.round(32 * SCALE * (1 << 20)))
  const seqN = Math.round(1_500_000 * SCALE)
  const charN = Math.round(60_000_000 * SCALE)
  const all = [
    {
      name: 'headers',
      title: `cat of ${(headers.bytes / (1 << 20)).toFixed(0)} MiB of /usr/include headers`,
      command: 'cat',
      args: [headers.file],
      expected: headers.bytes + headers.newlines,
    },
    {
      name: 'seq',
      title: `seq 1 ${seqN}`,
      command: 'seq',
      args: ['1', String(seqN)],
      expected: seqChars(seqN),
    },
    {
      // One line of 60 MB without line feeds: the screen model wraps it
      // 750 000 times.
      name: 'line',
      title: `${(charN / 1e6).toFixed(0)} MB of one character, no newline`,
      command: 'sh',
      args: ['-c', `head -c ${charN} /dev/zero | tr '\\0' a`],
      expected: charN,
    },
  ]
  return ONLY ? all.filter((w) => ONLY.includes(w.name)) : all
}

/**
 * One run: `{ ms, received, chunks, screenTail }`. `ms` runs from spawn to the
 * last character's arrival in the callback — for xterm.js, to the end of
 * parsing it — plus reading the screen text. When output was lost, the rate
 * is still computed over what arrived.
 */
async function runOnce(impl, w) {
  collect()
  if (impl.selfTimed) {
    const { bytes, ms, reads, cpuMs } = impl.run(w.command, w.args)
    return { ms, cpuMs, received: bytes, chunks: reads, screenTail: null }
  }
  let received = 0
  let chunks = 0
  let tLast = null
  let finish
  const all = new Promise((r) => (finish = r))
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const s = impl.spawn({ command: w.command, args: w.args }, (chunk) => {
    received += chunk.length
    chunks++
    tLast = performance.now()
    if (received >= w.expected) finish()
  })
  // Nothing arrives after the exit was reported; the grace covers a slow exit.
  await Promise.race([all, s.exited.then(() => sleep(300))])
  let screenTail = null
  let tEnd = tLast
  if (impl.name === 'ptypilot') {
    const t = performance.now()
    screenTail = (await s.screenText()).slice(-40)
    tEnd += performance.now() - t
  } else if (impl.name === 'node-pty+xterm') {
    const text = await s.screenText() // waits until everything was parsed
    tEnd = s.parsedAt
    const t = performance.now()
    xtermText(s.term)
    tEnd += performance.now() - t
    screenTail = text.slice(-40)
  }
  // The CPU time up to here: everything that delivered the output and, with
  // a screen model, parsed it and read the screen.
  const cpu = process.cpuUsage(cpu0)
  await s.exited
  if (s.dispose) s.dispose()
  return { ms: tEnd - t0, cpuMs: (cpu.user + cpu.system) / 1000, received, chunks, screenTail }
}

async function main() {
  const ws = workloads()
  // Warm-up: load every module and JIT the paths once.
  // (a short `seq`, whichever workloads were chosen)
  const warm = { name: 'warm-up', title: 'seq 1 20000', command: 'seq', args: ['1', '20000'], expected: seqChars(20000) }
  for (const impl of IMPLS) await runOnce(impl, warm)
  const rows = []
  for (const w of ws) {
    const samples = new Map(
      IMPLS.map((i) => [i.name, { mbps: [], cpu: [], lost: 0, runs: 0, chunks: [], screenTail: null }]),
    )
    for (let r = 0; r < ROUNDS; r++) {
      for (const impl of rotate(IMPLS, r)) {
        const res = await runOnce(impl, w)
        const s = samples.get(impl.name)
        s.runs++
        s.chunks.push(res.chunks)
        if (res.received !== w.expected) {
          s.lost++
          log(`  ${w.name} ${impl.name}: got ${res.received} of ${w.expected}`)
        }
        s.mbps.push(res.received / (1 << 20) / (res.ms / 1000))
        s.cpu.push(res.cpuMs / (res.received / (1 << 20)))
        s.screenTail = res.screenTail
      }
    }
    for (const impl of IMPLS) {
      const s = samples.get(impl.name)
      const row = {
        workload: w.name,
        title: w.title,
        expected: w.expected,
        impl: impl.name,
        mbps: summary(s.mbps),
        // Round by round, for ratios of runs taken side by side.
        mbpsPerRound: s.mbps,
        cpuMsPerMiB: summary(s.cpu),
        runs: s.runs,
        lost: s.lost,
        chunksPerRun: summary(s.chunks).median,
        screenTail: s.screenTail,
      }
      rows.push(row)
      log(
        `${w.name.padEnd(8)} ${impl.name.padEnd(15)} ${row.mbps.median.toFixed(1).padStart(7)} MiB/s ` +
          `[${row.mbps.min.toFixed(1)}–${row.mbps.max.toFixed(1)}] ` +
          `CPU ${row.cpuMsPerMiB.median.toFixed(2)} ms/MiB [${row.cpuMsPerMiB.min.toFixed(2)}–${row.cpuMsPerMiB.max.toFixed(2)}] ` +
          `lost ${s.lost}/${s.runs} ` +
          `chunks/run ${row.chunksPerRun}`,
      )
    }
  }
  emit({ case: 'throughput', rounds: ROUNDS, rows })
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
