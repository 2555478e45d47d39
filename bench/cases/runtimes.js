'use strict'
// Case: the same work under each runtime — Node 20 (the system's) and 24,
// Bun and Deno (scripts/runtimes.js fetches them from the npm registry):
// throughput to an onData listener (`cat` of 32 MiB of /usr/include headers
// in a session) and spawn-to-exit of `true` (median of N, sequential). Each
// round runs every runtime once, in a rotated order, each in a fresh process
// (bench/lib/runtime-probe.cjs). Under Node output is read on the JS thread;
// under Bun and Deno on the session threads (lib/runtime.js says why).
// Targets: a listener's throughput under Bun at least 0.8×, under Deno at
// least 0.5× Node 24's, as the median of the same-round ratios.
//
//   node bench/cases/runtimes.js [--rounds=5] [--n=50] [--runtimes=node20,node24,bun,deno]

const { execFileSync, spawnSync } = require('node:child_process')
const path = require('node:path')
const { corpus } = require('../lib/corpus')
const { summary, rotate, emit, log, argv } = require('../lib/stats')
const { fetchRuntime } = require('../../scripts/runtimes.js')

const opts = argv()
const ROUNDS = Number(opts.rounds || 5)
const N = Number(opts.n || 50)
const NAMES = String(opts.runtimes || 'node20,node24,bun,deno').split(',')
const PROBE = path.join(__dirname, '..', 'lib', 'runtime-probe.cjs')

/** `{ name, version, argv }` for each runtime; Node 20 is the `node` running this case when it is 20. */
function runtimes() {
  return NAMES.map((name) => {
    if (name === 'node20') {
      const found = spawnSync('sh', ['-c', 'which -a node'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean)
      for (const bin of found) {
        const v = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()
        if (v.startsWith('v20.')) return { name, version: v.slice(1), argv: [bin] }
      }
      throw new Error('no Node 20 on PATH')
    }
    const r = fetchRuntime(name)
    return { name, version: r.version, argv: name === 'deno' ? [r.bin, 'run', '-A'] : [r.bin] }
  })
}

function main() {
  const rts = runtimes()
  const headers = corpus(32 << 20)
  const expected = headers.bytes + headers.newlines // the pty turns \n into \r\n
  const perRound = Object.fromEntries(rts.map((r) => [r.name, { mibps: [], spawnMs: [], lost: 0 }]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const rt of rotate(rts, round)) {
      const out = execFileSync(rt.argv[0], [...rt.argv.slice(1), PROBE, headers.file, String(expected), String(N)], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      })
      const r = JSON.parse(out.trim().split('\n').pop())
      const mib = r.chars / (1 << 20)
      perRound[rt.name].mibps.push(mib / (r.floodMs / 1000))
      perRound[rt.name].spawnMs.push(r.spawnMs)
      if (r.lost !== 0) perRound[rt.name].lost++
      log(`round ${round + 1} ${rt.name}: ${(mib / (r.floodMs / 1000)).toFixed(1)} MiB/s, spawn ${r.spawnMs.toFixed(2)} ms${r.lost ? `, LOST ${r.lost}` : ''}`)
    }
  }
  const base = perRound.node24 ?? perRound[rts[0].name]
  const rows = rts.map((rt) => {
    const x = perRound[rt.name]
    return {
      runtime: rt.name,
      version: rt.version,
      mibps: summary(x.mibps),
      spawnMs: summary(x.spawnMs),
      lostRuns: x.lost,
      // Same-round ratios to Node 24's throughput.
      vsNode24: summary(x.mibps.map((v, i) => v / base.mibps[i])),
    }
  })
  emit({ case: 'runtimes', rounds: ROUNDS, n: N, title: `cat of ${(headers.bytes / (1 << 20)).toFixed(0)} MiB of headers to an onData listener; \`true\` ×${N}`, rows })
}

main()
