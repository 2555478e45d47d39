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

/**
 * A pseudo-random permutation of `list` (seeded, so runs are repeatable): each
 * element follows each other one about equally often, which a rotation does
 * not give.
 */
function shuffled(list, seed) {
  const out = [...list]
  // mulberry32: a small, well-mixed generator.
  let a = (seed + 0x6d2b79f5) >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), a | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
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

module.exports = { quantile, median, summary, rotate, shuffled, sleep, collect, emit, log, argv }
