// Types of the mouse of a session (`session.mouse`, lib/mouse.js).

/** A mouse button `click`, `down`, `up` and `drag` take. */
export type MouseButtonName = 'left' | 'middle' | 'right'

/** A key held during a mouse event. */
export type MouseModifier = 'shift' | 'alt' | 'ctrl'

/** Options of `click`, `down`, `up` and `drag`. */
export interface MouseOptions {
  /** The button. @default 'left' (for `up`: the button `down` holds) */
  button?: MouseButtonName
  /** Keys held (not reported in X10 mode, which has no modifiers). @default [] */
  modifiers?: MouseModifier[]
}

/** Options of `move` and `scroll`. */
export interface MouseMoveOptions {
  /** Keys held. @default [] */
  modifiers?: MouseModifier[]
}

/** Options of `clickText`. */
export interface ClickTextOptions extends MouseOptions {
  /** Which match to click, 0-based in reading order (left to right, top to bottom). @default 0 */
  nth?: number
}

/** The mouse reports a program asked for. */
export interface MouseMode {
  /**
   * Which events are reported: `'x10'` (DECSET 9: presses, no modifiers), `'normal'` (1000:
   * presses, releases, the wheel), `'button'` (1002: also motion while a button is held), `'any'`
   * (1003: also motion with no button), or `null` when the program has not enabled mouse reporting.
   */
  tracking: 'x10' | 'normal' | 'button' | 'any' | null
  /**
   * How reports are written: `'default'` (`ESC [ M` and three bytes: columns and rows up to 223),
   * `'utf8'` (1005: up to 2015), `'sgr'` (1006) or `'urxvt'` (1015), both without a limit.
   */
  encoding: 'default' | 'utf8' | 'sgr' | 'urxvt'
}

/**
 * The mouse of a session, `session.mouse`. Columns and rows are 0-based cells of the screen
 * (as `screen().cursor`). Each event is encoded as a terminal would for the tracking mode and
 * encoding the program enabled (see `MouseMode`), so the program reads real mouse reports.
 *
 * - A program that has not enabled mouse reporting gets nothing: every call throws
 *   `ERR_MOUSE_OFF` (the report would reach it as typed characters). Full-screen programs enable
 *   it after they start: wait for `mode.tracking` (for example with `vi.waitFor`).
 * - Motion is sent only when the mode reports it: `move()` returns `false` otherwise.
 * - A cell the encoding cannot write (a column past 223 in the default encoding) is
 *   `ERR_INVALID_ARG`; so are cells outside the screen and bad options, naming the value.
 *
 * @example
 * ```ts
 * const vim = PtySession.spawn({ command: 'vim', args: ['--cmd', 'set mouse=a', 'notes.txt'] })
 * await vi.waitFor(() => expect(vim.mouse.mode.tracking).not.toBe(null))
 * vim.mouse.clickText('TODO')          // the cursor moves to the T
 * vim.mouse.drag(0, 2, 10, 2)          // visual selection of row 2's first 11 cells
 * vim.mouse.scroll(5, 5, 3)            // three wheel steps down
 * ```
 */
export interface Mouse {
  /** The mouse reports the program asked for, now. */
  readonly mode: MouseMode
  /** The button `down()` holds until `up()`, or `null`. */
  readonly held: MouseButtonName | null
  /** Clicks: press and release at the cell (X10 mode reports the press only). */
  click(col: number, row: number, options?: MouseOptions): void
  /** Presses the button at the cell and holds it: motion is then a drag. */
  down(col: number, row: number, options?: MouseOptions): void
  /** Releases the held button (or `options.button`) at the cell. */
  up(col: number, row: number, options?: MouseOptions): void
  /**
   * Moves to the cell, with the held button if any. Returns whether a report was sent: mode
   * 1003 reports every move, 1002 only while a button is held, 1000 and X10 none.
   */
  move(col: number, row: number, options?: MouseMoveOptions): boolean
  /** Presses at (fromCol, fromRow), moves there cell by cell to (toCol, toRow), releases there. */
  drag(fromCol: number, fromRow: number, toCol: number, toRow: number, options?: MouseOptions): void
  /** Turns the wheel over the cell, one report per step: `lines` > 0 down, < 0 up. */
  scroll(col: number, row: number, lines: number, options?: MouseMoveOptions): void
  /**
   * Finds `text` on the screen now and clicks the first cell of its `nth` match (matches do not
   * span rows; a wide character counts as its two cells). Returns the cell clicked and the text
   * matched. `ERR_INVALID_ARG` (with `screen` on the error) when there is no such match: wait
   * for the text first (`waitFor`, `toShowText`).
   */
  clickText(
    text: string | RegExp,
    options?: ClickTextOptions,
  ): {
    /** The column clicked, 0-based: the match's first cell. */
    col: number
    /** The row clicked, 0-based. */
    row: number
    /** The text matched. */
    text: string
  }
}
