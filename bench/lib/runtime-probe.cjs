'use strict'
// Run by bench/cases/runtimes.js under one runtime (Node, Bun or Deno): times
// one output flood to a listener (`cat FILE` in a session whose onData
// listener counts what arrives) and N spawn-to-exit runs of `true`, and
// prints them as one JSON line. A run that lost output says so.
//
//   <runtime> bench/lib/runtime-probe.cjs FILE EXPECTED_CHARS N

const path = require('node:path')
const { PtySession } = require(path.join(__dirname, '..', '..', 'index.js'))

async function main() {
  const [file, expected, n] = process.argv.slice(2)
  let chars = 0
  const t0 = performance.now()
  const s = PtySession.spawn({ command: 'cat', args: [file], answerQueries: false }, (d) => {
    chars += d.length
  })
  await s.exited
  const floodMs = performance.now() - t0
  const spawns = []
  for (let i = 0; i < Number(n); i++) {
    const t = performance.now()
    const exit = await PtySession.spawn({ command: 'true' }).exited
    if (exit.exitCode !== 0) throw new Error(`true exited ${exit.exitCode}`)
    spawns.push(performance.now() - t)
  }
  spawns.sort((a, b) => a - b)
  console.log(JSON.stringify({ floodMs, chars, lost: Number(expected) - chars, spawnMs: spawns[spawns.length >> 1] }))
}
main().catch((e) => {
  console.error(e)
  process.exit(1)
})
