// ScreenModel: ptypilot's screen model without a program or a pty.
//
// Bytes written to it are what a program printed; screen() is what a
// terminal of that size shows, in the same shape as PtySession.screen().
// For replaying recordings, testing screens without spawning anything, and
// comparing the model with other terminal emulators.
'use strict'

const { describe, invalidArg } = require('./errors.js')
const { isInstance, own, screenAttributes } = require('./args.js')
const native = require('./addon.js')
const svg = require('./svg.js')

class ScreenModel {
  #native

  constructor(options) {
    if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
      throw invalidArg(`options must be an object, got ${describe(options)}`)
    }
    this.#native = new native.NativeScreenModel(own(options, 'options'))
  }

  write(data) {
    if (typeof data !== 'string' && !isInstance(data, Uint8Array)) {
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

  screen(options) {
    let screen
    if (screenAttributes(options)) {
      const styled = this.#native.screenStyled()
      screen = styled.screen
      screen.attributes = styled.attributes
    } else {
      screen = this.#native.screen()
    }
    // As PtySession.screen(): every row, from the right-trimmed text.
    screen.lines = linesOf(screen.text, screen.rows)
    return screen
  }

  /** A picture of the screen: an SVG document, as `PtySession.screenshot()`. */
  screenshot(options) {
    return svg.screenshot(this.#native, options)
  }
}

/**
 * The `rows` rows of a snapshot's `text` (the rows right-trimmed, trailing
 * blank rows dropped, joined by `\n`; a row never contains a newline): its
 * lines, then blank rows for those it dropped. PtySession.screen() and
 * ScreenModel.screen() both add `lines` with it.
 */
function linesOf(text, rows) {
  const lines = text === '' ? [] : text.split('\n')
  while (lines.length < rows) lines.push('')
  return lines
}

module.exports = { ScreenModel, linesOf }
