'use strict'
// The mouse of a session (`session.mouse`): clicks, presses and releases,
// motion, drags, the wheel, and clicking on text found on the screen. Each
// event is encoded natively (src/core/keys/mouse.rs) for the tracking mode
// and encoding the program enabled (X10 9, normal 1000, button 1002,
// any-event 1003; default bytes, UTF-8 1005, SGR 1006, urxvt 1015). A
// program that has not enabled mouse reporting gets nothing: the call throws
// ERR_MOUSE_OFF, because the report would reach it as typed characters.
// Motion is sent only when the mode reports it.

const { invalidArg, describe, thrownText } = require('./errors.js')
const { isInstance, own } = require('./args.js')

const BUTTONS = ['left', 'middle', 'right']
const MODIFIERS = ['shift', 'alt', 'ctrl']

/**
 * `{ button, shift, alt, ctrl }` from a call's options, checked, and
 * `chosen`: whether the options named the button.
 */
function eventOptions(options, what, known = ['button', 'modifiers']) {
  if (options === undefined) return { button: 'left', chosen: false, shift: false, alt: false, ctrl: false }
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidArg(`${what} options must be an object such as { button: 'right', modifiers: ['ctrl'] }, got ${describe(options)}`)
  }
  const copy = own(options, 'options')
  for (const key of Object.keys(copy)) {
    if (!known.includes(key)) throw invalidArg(`unknown option options.${key} of ${what}; known options: ${known.join(', ')}`)
  }
  const { button = 'left', modifiers = [] } = copy
  if (!BUTTONS.includes(button)) {
    throw invalidArg(`options.button must be ${BUTTONS.map((b) => `'${b}'`).join(', ')}, got ${describe(button)}`)
  }
  if (!Array.isArray(modifiers)) {
    throw invalidArg(`options.modifiers must be an array such as ['shift', 'ctrl'], got ${describe(modifiers)}`)
  }
  let list
  try {
    list = Array.from(modifiers)
  } catch (err) {
    throw invalidArg(`options.modifiers could not be read: ${thrownText(err)}`)
  }
  const held = { shift: false, alt: false, ctrl: false }
  for (const m of list) {
    if (!MODIFIERS.includes(m)) {
      throw invalidArg(`options.modifiers may hold ${MODIFIERS.map((n) => `'${n}'`).join(', ')}, got ${describe(m)}`)
    }
    held[m] = true
  }
  return { button, chosen: copy.button !== undefined, ...held }
}

/** Ordinal for messages: 1st, 2nd, 3rd, 4th. */
function ordinal(n) {
  const tens = n % 100
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'
  return `${n}${suffix}`
}

/**
 * Where `pattern` (a string or RegExp) shows on a screen of cells (rows of
 * `{ col, width, text }`), in reading order: `{ row, col, text }` each, `col`
 * the column of the match's first cell. Matches do not span rows.
 */
function findOnScreen(cellRows, pattern) {
  const found = []
  cellRows.forEach((cells, row) => {
    // The row's text and, for each UTF-16 index in it, the column it starts in.
    let line = ''
    const colAt = []
    for (const cell of cells) {
      for (let k = 0; k < cell.text.length; k++) colAt.push(cell.col)
      line += cell.text
    }
    colAt.push(cells.length > 0 ? cells[cells.length - 1].col + cells[cells.length - 1].width : 0)
    if (typeof pattern === 'string') {
      for (let at = line.indexOf(pattern); at !== -1; at = line.indexOf(pattern, at + pattern.length)) {
        found.push({ row, col: colAt[at], text: pattern })
      }
      return
    }
    const re = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`)
    for (const m of line.matchAll(re)) {
      if (m[0] === '') continue
      found.push({ row, col: colAt[m.index], text: m[0] })
    }
  })
  return found
}

/** The mouse of one session; see lib/pty-session.d.ts (`Mouse`). */
class Mouse {
  #native
  #session
  /** The button held down by `down()` (until `up()`), or null. */
  #held = null

  /** Internal: `session.mouse` makes the one mouse of a session. */
  constructor(native, session) {
    this.#native = native
    this.#session = session
  }

  /** The mouse reports the program asked for (`tracking` null: none). */
  get mode() {
    return this.#native.mouseMode()
  }

  /** The button `down()` holds, or null. */
  get held() {
    return this.#held
  }

  /** Clicks (press and release) `button` at the cell. */
  click(col, row, options) {
    const event = { ...eventOptions(options, 'click()'), ...this.#cell(col, row) }
    this.#send('press', event)
    this.#send('release', event)
  }

  /** Presses `button` at the cell and holds it (motion then drags). */
  down(col, row, options) {
    const event = { ...eventOptions(options, 'down()'), ...this.#cell(col, row) }
    this.#send('press', event)
    this.#held = event.button
  }

  /** Releases the held button (or `button`) at the cell. */
  up(col, row, options) {
    const given = eventOptions(options, 'up()')
    const button = given.chosen ? given.button : (this.#held ?? given.button)
    this.#send('release', { ...given, button, ...this.#cell(col, row) })
    this.#held = null
  }

  /**
   * Moves the mouse to the cell, with the held button if any. Returns whether
   * a report was sent: modes 1000 and X10 report no motion, 1002 only while
   * a button is held.
   */
  move(col, row, options) {
    const given = eventOptions(options, 'move()', ['modifiers'])
    return this.#send('move', { ...given, button: this.#held, ...this.#cell(col, row) })
  }

  /**
   * Presses `button` at (fromCol, fromRow), moves cell by cell to (toCol,
   * toRow) and releases it there, as a hand would drag.
   */
  drag(fromCol, fromRow, toCol, toRow, options) {
    const given = eventOptions(options, 'drag()')
    const from = this.#cell(fromCol, fromRow)
    const to = this.#cell(toCol, toRow)
    this.#send('press', { ...given, ...from })
    this.#held = given.button
    const steps = Math.max(Math.abs(to.col - from.col), Math.abs(to.row - from.row))
    for (let i = 1; i <= steps; i++) {
      const col = Math.round(from.col + ((to.col - from.col) * i) / steps)
      const row = Math.round(from.row + ((to.row - from.row) * i) / steps)
      this.#send('move', { ...given, col, row })
    }
    this.#send('release', { ...given, ...to })
    this.#held = null
  }

  /** Turns the wheel over the cell: `lines` steps down (positive) or up (negative). */
  scroll(col, row, lines, options) {
    const given = eventOptions(options, 'scroll()', ['modifiers'])
    const at = this.#cell(col, row)
    if (!Number.isInteger(lines) || lines === 0 || Math.abs(lines) > 1000) {
      throw invalidArg(`lines must be a non-zero integer from -1000 to 1000 (positive scrolls down), got ${describe(lines)}`)
    }
    const button = lines > 0 ? 'wheelDown' : 'wheelUp'
    for (let i = 0; i < Math.abs(lines); i++) this.#send('press', { ...given, button, ...at })
  }

  /**
   * Finds `text` (a string or RegExp) on the screen now and clicks the first
   * cell of its `nth` match (0-based, in reading order; matches do not span
   * rows). Returns the cell clicked. ERR_INVALID_ARG, with the screen, when
   * there is no such match.
   */
  clickText(text, options) {
    if (typeof text !== 'string' && !isInstance(text, RegExp)) {
      throw invalidArg(`clickText() takes a string or a RegExp, got ${describe(text)}`)
    }
    if (text === '') throw invalidArg('clickText() needs some text to find, got an empty string')
    let nth = 0
    let rest = options
    if (options !== undefined && options !== null && typeof options === 'object' && !Array.isArray(options)) {
      const copy = own(options, 'options')
      nth = copy.nth ?? 0
      delete copy.nth
      rest = copy
    }
    eventOptions(rest, 'clickText()')
    if (!Number.isInteger(nth) || nth < 0) throw invalidArg(`options.nth must be a non-negative integer, got ${describe(nth)}`)
    const { screen, attributes } = this.#native.screenCells()
    const found = findOnScreen(attributes, text)
    if (nth >= found.length) {
      const shown = typeof text === 'string' ? JSON.stringify(text) : String(text)
      const which = nth === 0 ? '' : ` (the ${ordinal(nth + 1)} match was asked for, ${found.length} found)`
      const err = invalidArg(`clickText(): ${shown} is not on the screen${which}; screen:\n${screen.text}`)
      err.screen = screen
      throw err
    }
    const { row, col } = found[nth]
    this.click(col, row, rest)
    return { col, row, text: found[nth].text }
  }

  /** `{ col, row }` checked against the screen's size. */
  #cell(col, row) {
    const { cols, rows } = this.#session.screen()
    if (!Number.isInteger(col) || col < 0 || col >= cols) {
      throw invalidArg(`col must be an integer from 0 to ${cols - 1} (the screen has ${cols} columns), got ${describe(col)}`)
    }
    if (!Number.isInteger(row) || row < 0 || row >= rows) {
      throw invalidArg(`row must be an integer from 0 to ${rows - 1} (the screen has ${rows} rows), got ${describe(row)}`)
    }
    return { col, row }
  }

  #send(action, { button, col, row, shift, alt, ctrl }) {
    return this.#native.mouse({ action, button: button ?? undefined, col, row, shift, alt, ctrl })
  }
}

module.exports = { Mouse, findOnScreen }
