// ScreenModel: ptypilot's screen model without a program or a pty.
//
// Bytes written to it are what a program printed; screen() is what a
// terminal of that size shows, in the same shape as PtySession.screen().
// For replaying recordings, testing screens without spawning anything, and
// comparing the model with other terminal emulators.
'use strict'

const native = require('./binding.js')

function invalidArg(message) {
  const err = new Error(message)
  err.code = 'ERR_INVALID_ARG'
  return err
}

function describe(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`
}

class ScreenModel {
  #native

  constructor(options) {
    if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
      throw invalidArg(`options must be an object, got ${describe(options)}`)
    }
    this.#native = new native.NativeScreenModel(options)
  }

  write(data) {
    if (typeof data !== 'string' && !(data instanceof Uint8Array)) {
      throw invalidArg(`write() takes a string or a Uint8Array, got ${describe(data)}`)
    }
    return this.#native.write(data)
  }

  resize(cols, rows) {
    if (typeof cols !== 'number' || typeof rows !== 'number') {
      throw invalidArg(`resize() takes two numbers (cols, rows), got ${describe(cols)} and ${describe(rows)}`)
    }
    this.#native.resize(cols, rows)
  }

  screen() {
    const screen = this.#native.screen()
    // As PtySession.screen(): every row, from the right-trimmed text.
    const lines = screen.text === '' ? [] : screen.text.split('\n')
    while (lines.length < screen.rows) lines.push('')
    screen.lines = lines
    return screen
  }
}

module.exports = { ScreenModel }
