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
//   node --expose-gc bench/cases/throughput.js [--rounds=5] [--impls=a,b]

const { performance } = require('node:perf_hooks')
const { ALL, xtermText } = require('../lib/impls')
const { corpus, seqChars } = require('../lib/corpus')
const { summary, rotate, sleep, collect, emit, log, argv } = require('../lib/stats')

const opts = argv()
const ROUNDS = Number(opts.rounds || 5)
const IMPLS = (opts.impls || 'ptypilot,node-pty,node-pty+xterm,ruspty,bare').split(',').map((n) => ALL[n])
const SCALE = Number(opts.scale || 1)

function workloads() {
  const headers = corpus(Math.round(16 * SCALE * (1 << 20)))
  const seqN = Math.round(1_000_000 * SCALE)
  const charN = Math.round(8 * SCALE * (1 << 20))
  return [
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
      name: 'onechar',
      title: `${(charN / (1 << 20)).toFixed(0)} MiB of one character, no newline`,
      command: 'sh',
      args: ['-c', `head -c ${charN} /dev/zero | tr '\\0' x`],
      expected: charN,
    },
  ]
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
    const { bytes, ms, reads } = impl.run(w.command, w.args)
    return { ms, received: bytes, chunks: reads, screenTail: null }
  }
  let received = 0
  let chunks = 0
  let tLast = null
  let finish
  const all = new Promise((r) => (finish = r))
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
  if (impl.name.startsWith('ptypilot')) {
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
  await s.exited
  if (s.dispose) s.dispose()
  return { ms: tEnd - t0, received, chunks, screenTail }
}

async function main() {
  const ws = workloads()
  // Warm-up: load every module and JIT the paths once.
  for (const impl of IMPLS) await runOnce(impl, { ...ws[1], args: ['1', '20000'], expected: seqChars(20000) })
  const rows = []
  for (const w of ws) {
    const samples = new Map(IMPLS.map((i) => [i.name, { mbps: [], lost: 0, runs: 0, chunks: [], screenTail: null }]))
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
        runs: s.runs,
        lost: s.lost,
        chunksPerRun: summary(s.chunks).median,
        screenTail: s.screenTail,
      }
      rows.push(row)
      log(
        `${w.name.padEnd(8)} ${impl.name.padEnd(15)} ${row.mbps.median.toFixed(1).padStart(7)} MiB/s ` +
          `[${row.mbps.min.toFixed(1)}–${row.mbps.max.toFixed(1)}] lost ${s.lost}/${s.runs} ` +
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
