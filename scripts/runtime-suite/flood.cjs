'use strict'
// Runtime suite case `listener + 100 MB flood`: a session with a text
// listener and a raw one, paused and resumed in the middle, reading `seq | cat`'s
// 100 MB of numbered lines; every line arrives, in order, on both. Then a
// typed answer reaches the listener (the path after a write).
const assert = require('node:assert')
const path = require('node:path')
const { PtySession } = require(path.join(__dirname, '..', '..', 'index.js'))

const LAST = 12_500_000 // seq 1..LAST prints 100.9 MB (without the pty's \r)

/** Checks numbered lines as they come: `next` is the number the next line must be. */
function lineChecker(name) {
  let next = 1
  let rest = ''
  return {
    feed(text) {
      const lines = (rest + text).split('\n')
      rest = lines.pop()
      for (const raw of lines) {
        const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
        if (line !== String(next)) throw new Error(`${name}: line ${next} came as ${JSON.stringify(line.slice(0, 40))}`)
        next++
      }
    },
    get next() {
      return next
    },
  }
}

async function main() {
  const text = lineChecker('text listener')
  const raw = lineChecker('raw listener')
  const decoder = new TextDecoder()
  let bytes = 0
  const session = new PtySession()
  session.onData((d) => text.feed(d))
  session.onData((b) => {
    bytes += b.length
    raw.feed(decoder.decode(b, { stream: true }))
  }, { raw: true })
  const t0 = performance.now()
  const exited = session.start({ command: 'sh', args: ['-c', `seq 1 ${LAST} | cat`], answerQueries: false })
  // Pause once the flood is under way, resume 100 ms later.
  await new Promise((r) => setTimeout(r, 200))
  session.pause()
  await new Promise((r) => setTimeout(r, 100))
  session.resume()
  const exit = await exited
  const secs = (performance.now() - t0) / 1000
  assert.strictEqual(exit.exitCode, 0)
  assert.strictEqual(text.next, LAST + 1, `text listener saw ${text.next - 1} of ${LAST} lines`)
  assert.strictEqual(raw.next, LAST + 1, `raw listener saw ${raw.next - 1} of ${LAST} lines`)

  // After a write: the answer reaches the listener.
  const cat = new PtySession()
  let seen = ''
  cat.onData((d) => (seen += d))
  const catExit = cat.start({ command: 'cat' })
  cat.write('ping-42\n')
  const deadline = Date.now() + 10_000
  while (!seen.includes('ping-42\r\nping-42') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
  assert.ok(seen.includes('ping-42\r\nping-42'), `echo and answer reached the listener: ${JSON.stringify(seen)}`)
  cat.sendKeys('ctrl+d')
  assert.strictEqual((await catExit).exitCode, 0)
  console.log(`${(bytes / 1e6).toFixed(1)} MB in ${secs.toFixed(1)} s (${(bytes / 1e6 / secs).toFixed(0)} MB/s), all ${LAST} lines on both listeners`)
}
main().catch((e) => {
  console.error(e)
  process.exit(1)
})
