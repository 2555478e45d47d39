'use strict'
// Diagnostic, not part of `npm run bench`: the throughput of one
// implementation against another over several bench runs, round by round.
// Each file is bench/results.json of a full run, or what `node bench/run.js
// --only=throughput --json=FILE` kept. For every workload it prints, per run,
// the ratio of the medians and the geometric mean of the same-round ratios
// (the two ran one after the other in the same round, so a slow moment of
// the machine touches both), then over all runs: how many runs were at or
// above 1.0× and the geometric mean of every same-round pair.
//
//   node bench/diag/same-round.js [--a=ptypilot] [--b=node-pty] FILE...

const fs = require('node:fs')
const { argv } = require('../lib/stats')

const opts = argv()
const A = opts.a || 'ptypilot'
const B = opts.b || 'node-pty'
const files = process.argv.slice(2).filter((f) => !f.startsWith('--'))
if (files.length === 0) {
  console.error('usage: node bench/diag/same-round.js [--a=ptypilot] [--b=node-pty] FILE...')
  process.exit(2)
}

const geomean = (xs) => Math.exp(xs.reduce((sum, x) => sum + Math.log(x), 0) / xs.length)
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** workload -> [{ file, medianRatio, pairs, cpuRatio, lostA, lostB }] */
const byWorkload = new Map()
for (const file of files) {
  const { results } = JSON.parse(fs.readFileSync(file, 'utf8'))
  const throughput = results.find((r) => r.case === 'throughput')
  if (!throughput) throw new Error(`${file} has no throughput case`)
  const workloads = [...new Set(throughput.rows.map((r) => r.workload))]
  for (const w of workloads) {
    const a = throughput.rows.find((r) => r.workload === w && r.impl === A)
    const b = throughput.rows.find((r) => r.workload === w && r.impl === B)
    if (!a || !b) throw new Error(`${file}: ${w} lacks ${a ? B : A}`)
    const n = Math.min(a.mbpsPerRound.length, b.mbpsPerRound.length)
    const pairs = Array.from({ length: n }, (_, i) => a.mbpsPerRound[i] / b.mbpsPerRound[i])
    const row = {
      file,
      medianRatio: median(a.mbpsPerRound) / median(b.mbpsPerRound),
      pairs,
      cpuRatio: a.cpuMsPerMiB.median / b.cpuMsPerMiB.median,
      lostA: `${a.lost}/${a.runs}`,
      lostB: `${b.lost}/${b.runs}`,
    }
    if (!byWorkload.has(w)) byWorkload.set(w, [])
    byWorkload.get(w).push(row)
  }
}

for (const [w, rows] of byWorkload) {
  console.log(`${w}: ${A} ÷ ${B}`)
  for (const r of rows) {
    console.log(
      `  ${r.file}: medians ${r.medianRatio.toFixed(3)}×, same-round geomean ${geomean(r.pairs).toFixed(3)}× ` +
        `(${r.pairs.length} pairs), CPU/MiB ${r.cpuRatio.toFixed(2)}×, lost ${r.lostA} vs ${r.lostB}`,
    )
  }
  const atOrAbove = rows.filter((r) => r.medianRatio >= 1).length
  const all = rows.flatMap((r) => r.pairs)
  console.log(`  runs at or above 1.0×: ${atOrAbove} of ${rows.length}; all ${all.length} same-round pairs: ${geomean(all).toFixed(3)}×`)
}
