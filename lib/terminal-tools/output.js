'use strict'
// The output budget of a reply: a read's text goes inline while it is within
// the set's `maxOutputLines` lines, `maxOutputBytes` bytes and the call's
// `max_chars` characters (else the set's `maxOutputChars`); longer text is
// written whole to a spill file (in `spillDir`, else a fresh temporary
// folder) and the reply has its head and tail, with a marker line naming the
// file.

const crypto = require('node:crypto')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

/** Lines of a spilled output shown inline: the first and the last. */
const SPILL_HEAD_LINES = 50
const SPILL_TAIL_LINES = 150
/** Characters of a spilled output shown inline at most, head and tail. */
const SPILL_HEAD_CHARS = 8000
const SPILL_TAIL_CHARS = 16000

function countLines(text) {
  if (text === '') return 0
  let n = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++
  return text.endsWith('\n') ? n : n + 1
}

/**
 * `text` cut to its first lines (at most `headLines`, whole lines of at most
 * `headChars` characters together) and its last (at most `tailLines` lines,
 * `tailChars` characters): `{ head, tail, omitted }`, `omitted` the number of
 * lines between them. A first or last line longer than its room is cut at
 * the room, with "…" where it was cut.
 */
function headAndTail(text, headLines, headChars, tailLines, tailChars) {
  const lines = text.split('\n')
  const last = lines.pop() // '' after a final newline
  if (last !== '') lines.push(last)
  const withEnd = (i) => lines[i] + (i < lines.length - 1 || last === '' ? '\n' : '')
  let head = ''
  let headCount = 0
  while (headCount < Math.min(headLines, lines.length)) {
    const line = withEnd(headCount)
    if (head.length + line.length > headChars) {
      if (headCount === 0 && headChars > 0) {
        head = `${line.slice(0, headChars)}…\n`
        headCount = 1
      }
      break
    }
    head += line
    headCount++
  }
  let tail = ''
  let tailCount = 0
  while (tailCount < Math.min(tailLines, lines.length - headCount)) {
    const line = withEnd(lines.length - 1 - tailCount)
    if (tail.length + line.length > tailChars) {
      if (tailCount === 0 && tailChars > 0) {
        tail = `…${line.slice(line.length - tailChars)}`
        tailCount = 1
      }
      break
    }
    tail = line + tail
    tailCount++
  }
  return { head, tail, omitted: lines.length - headCount - tailCount }
}

/** The output budget of one registry's terminal sessions, with their spill files. */
class OutputBudget {
  #opts
  #spillDir = null
  #spillCount = 0

  /** `opts`: the set's options (`maxOutputLines`, `maxOutputBytes`, `maxOutputChars`, `spillDir`). */
  constructor(opts) {
    this.#opts = opts
  }

  /**
   * The read's text, inline or spilled to a file: spilled when it is over
   * the set's line or byte limit or `maxChars` characters (the call's
   * `max_chars`, else the set's `maxOutputChars`); then its head and tail
   * fit in `maxChars` with the marker line. `id` names the session in the
   * file's name.
   */
  fit(id, read, maxChars = this.#opts.maxOutputChars) {
    const { text, cursor, truncated } = read
    const bytes = Buffer.byteLength(text)
    const lines = countLines(text)
    if (lines <= this.#opts.maxOutputLines && bytes <= this.#opts.maxOutputBytes && text.length <= maxChars) {
      return { output: text, cursor, truncated, lines, bytes, spillPath: null }
    }
    const file = this.#spill(id, text)
    // The marker line takes its own room (a path and two numbers); a third of the rest is the head.
    const room = Math.max(0, maxChars - 120 - file.length)
    const headChars = Math.min(SPILL_HEAD_CHARS, Math.floor(room / 3))
    const tailChars = Math.min(SPILL_TAIL_CHARS, room - headChars)
    const { head, tail, omitted } = headAndTail(text, SPILL_HEAD_LINES, headChars, SPILL_TAIL_LINES, tailChars)
    const output = `${head}[… ${omitted} line${omitted === 1 ? '' : 's'} omitted; the whole output is in ${file} …]\n${tail}`
    return { output, cursor, truncated, lines, bytes, spillPath: file }
  }

  #spill(id, text) {
    if (this.#spillDir === null) {
      if (this.#opts.spillDir !== undefined) {
        fs.mkdirSync(this.#opts.spillDir, { recursive: true })
        this.#spillDir = this.#opts.spillDir
      } else {
        this.#spillDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptypilot-output-'))
      }
    }
    this.#spillCount++
    const file = path.join(this.#spillDir, `${id}-${this.#spillCount}-${crypto.randomBytes(3).toString('hex')}.txt`)
    fs.writeFileSync(file, text)
    return file
  }
}

module.exports = { OutputBudget, countLines, headAndTail }
