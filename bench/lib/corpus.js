'use strict'
// The real-text corpus: system headers under /usr/include, concatenated in a
// stable order. Only ASCII files are used, so characters and bytes count the
// same and every implementation's count can be checked against one number.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const DIR = path.join(os.tmpdir(), 'ptypilot-bench')

function walk(dir, out) {
  let entries
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const e of entries) {
    const full = path.join(dir, e.name)
    if (e.isDirectory()) walk(full, out)
    else if (e.isFile() && e.name.endsWith('.h')) out.push(full)
  }
}

function isAscii(buf) {
  for (let i = 0; i < buf.length; i++) if (buf[i] > 0x7e || (buf[i] < 0x20 && buf[i] !== 0x0a && buf[i] !== 0x09)) return false
  return true
}

/**
 * A file of at least `bytes` bytes of header text (cached in the temp dir).
 * Returns `{ file, bytes, newlines }`; through a pty every `\n` arrives as
 * `\r\n`, so `bytes + newlines` characters reach the reader.
 */
function corpus(bytes) {
  fs.mkdirSync(DIR, { recursive: true })
  const file = path.join(DIR, `headers-${bytes}.txt`)
  if (!fs.existsSync(file)) {
    const files = []
    walk('/usr/include', files)
    const parts = []
    let total = 0
    for (const f of files) {
      if (total >= bytes) break
      const buf = fs.readFileSync(f)
      if (buf.length === 0 || !isAscii(buf)) continue
      parts.push(buf)
      total += buf.length
    }
    if (total < bytes) {
      // Not enough headers on this machine: repeat what there is.
      const once = Buffer.concat(parts)
      while (total < bytes) {
        parts.push(once)
        total += once.length
      }
    }
    const tmp = `${file}.${process.pid}`
    fs.writeFileSync(tmp, Buffer.concat(parts).subarray(0, bytes))
    fs.renameSync(tmp, file)
  }
  const buf = fs.readFileSync(file)
  let newlines = 0
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) newlines++
  return { file, bytes: buf.length, newlines }
}

/** Characters `seq 1 n` delivers through a pty (`\n` arrives as `\r\n`). */
function seqChars(n) {
  let digits = 0
  for (let d = 1, lo = 1; lo <= n; d++, lo *= 10) digits += (Math.min(n, lo * 10 - 1) - lo + 1) * d
  return digits + 2 * n
}

module.exports = { corpus, seqChars, DIR }
