'use strict'
// The Node kind of bench/lib/input-wait/prompter.py: the terminal in raw
// mode, read by the event loop (epoll). Each round it works silently for a
// moment, prints a prompt, stamps process.hrtime (CLOCK_MONOTONIC, ns) into
// the stamp file, and returns to the event loop, which waits in epoll for
// the next key. The work is synchronous: an event loop that listens to the
// terminal while a timer or a request is pending does wait for input, as
// far as the kernel can tell.
//
//   node prompter.js ROUNDS STAMP_FILE

const fs = require('node:fs')

const rounds = Number(process.argv[2])
const out = fs.openSync(process.argv[3], 'a')
let seed = 29
// A small LCG: the same work durations every run.
const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31

let i = 0
function ask() {
  // Work: 5 to 40 ms without output.
  const until = Date.now() + 5 + next() * 35
  while (Date.now() < until);
  process.stdout.write(`node key ${i}? `)
  fs.writeSync(out, `${i} ${process.hrtime.bigint()}\n`)
}

process.stdin.setRawMode(true)
process.stdin.on('data', () => {
  i++
  if (i >= rounds) {
    process.stdin.setRawMode(false)
    process.exit(0)
  }
  ask()
})
ask()
