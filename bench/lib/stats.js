'use strict'
// Small statistics and helpers shared by the cases.

function sorted(xs) {
  return [...xs].sort((a, b) => a - b)
}

/** The q-quantile (0..1) by linear interpolation. */
function quantile(xs, q) {
  if (xs.length === 0) return NaN
  const s = sorted(xs)
  const pos = (s.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return s[lo] + (s[hi] - s[lo]) * (pos - lo)
}

const median = (xs) => quantile(xs, 0.5)

/** `{ median, min, max, n }` of a list of samples. */
function summary(xs) {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length }
}

/** Rotates `list` left by `k`, so each round starts with a different implementation. */
function rotate(list, k) {
  const n = list.length
  return list.map((_, i) => list[(i + k) % n])
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Collects garbage when the process runs with --expose-gc. */
function collect() {
  if (typeof global.gc === 'function') {
    global.gc()
    global.gc()
  }
}

/** Prints the case's result as the last line of stdout for bench/run.js. */
function emit(result) {
  process.stdout.write('\n@@RESULT ' + JSON.stringify(result) + '\n')
}

function log(...args) {
  process.stderr.write(args.join(' ') + '\n')
}

/** Command-line `--key=value` options of a case. */
function argv() {
  const out = {}
  for (const a of process.argv.slice(2)) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(a)
    if (m) out[m[1]] = m[2] === undefined ? true : m[2]
  }
  return out
}

module.exports = { quantile, median, summary, rotate, sleep, collect, emit, log, argv }
