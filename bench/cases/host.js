'use strict'
// Case 7: what the isolated host (`isolation: 'process'`) adds to a tool call.
//
// The same interactive tool (`cat` in a terminal, settleMs 0, so a call
// costs what the registry does and not a quiet period) in an in-process
// registry and in an isolated one; `fetch` on a settled screen and `apply`
// of one key (the call waits for the echo), timed call by call, the two
// registries alternating so that both see the same load. The extra latency
// is the isolated quantile minus the in-process one.
//
//   node --expose-gc bench/cases/host.js [--rounds=5] [--calls=2000]

const { performance } = require('node:perf_hooks')
const { ToolRegistry } = require('../..')
const { argv, collect, emit, log, quantile, summary } = require('../lib/stats')

const opts = argv()
const ROUNDS = Number(opts.rounds || 5)
const CALLS = Number(opts.calls || 2000)

const tool = { name: 'term', commands: [{ name: 'cat', program: ['cat'], settleMs: 0 }] }

async function timed(registry, input) {
  const t0 = performance.now()
  const state = await registry.call('term', input)
  const us = (performance.now() - t0) * 1000
  if (state.state !== 'running') throw new Error(`cat stopped: ${JSON.stringify(state)}`)
  return us
}

async function main() {
  const here = new ToolRegistry()
  const there = new ToolRegistry({ isolation: 'process' })
  here.register(tool)
  there.register(tool)
  const handles = new Map()
  for (const r of [here, there]) handles.set(r, (await r.call('term', { action: 'spawn', command: 'cat' })).id)

  const ops = {
    fetch: () => ({ action: 'fetch', id: null }),
    // A key and its erasure in turn, so the screen stays one short line.
    apply: (i) => ({ action: 'apply', id: null, input: i % 2 === 0 ? 'x' : '<backspace>' }),
  }
  const rows = []
  for (const [op, input] of Object.entries(ops)) {
    const perRound = { here: { p50: [], p99: [] }, there: { p50: [], p99: [] }, extra: { p50: [], p99: [] } }
    for (let round = 0; round < ROUNDS + 1; round++) {
      const samples = { here: [], there: [] }
      collect()
      for (let i = 0; i < CALLS; i++) {
        // Alternate which goes first, so neither always follows the other.
        const order = i % 2 === 0 ? [here, there] : [there, here]
        for (const r of order) {
          const us = await timed(r, { ...input(i), id: handles.get(r) })
          samples[r === here ? 'here' : 'there'].push(us)
        }
      }
      // The first round warms up both (JIT, the host's first calls).
      if (round === 0) continue
      for (const q of ['p50', 'p99']) {
        const at = q === 'p50' ? 0.5 : 0.99
        const a = quantile(samples.here, at)
        const b = quantile(samples.there, at)
        perRound.here[q].push(a)
        perRound.there[q].push(b)
        perRound.extra[q].push(b - a)
      }
      log(`${op} round ${round}: in-process p50 ${perRound.here.p50.at(-1).toFixed(0)} µs, isolated p50 ${perRound.there.p50.at(-1).toFixed(0)} µs, extra p50 ${perRound.extra.p50.at(-1).toFixed(0)} µs p99 ${perRound.extra.p99.at(-1).toFixed(0)} µs`)
    }
    rows.push({
      op,
      here: { p50: summary(perRound.here.p50), p99: summary(perRound.here.p99) },
      there: { p50: summary(perRound.there.p50), p99: summary(perRound.there.p99) },
      extra: { p50: summary(perRound.extra.p50), p99: summary(perRound.extra.p99) },
    })
  }
  await here.abortAll()
  await there[Symbol.asyncDispose]()
  emit({ rounds: ROUNDS, calls: CALLS, rows })
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
