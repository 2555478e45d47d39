/// <reference types="node" />
// Types of ScreenModel: ptypilot's screen model without a program or a pty
// (lib/screen-model.js).

import type { ScreenOptions, ScreenSnapshot, StyledScreenSnapshot } from './pty-session.js'
import type { ScreenshotOptions } from './svg.js'

/** Options of `new ScreenModel()`; the same limits as `PtyOptions`. */
export interface ScreenModelOptions {
  /** Width, 2 to 1000. @default 80 */
  cols?: number
  /** Height, 2 to 500. @default 24 */
  rows?: number
  /** Lines kept above the screen, 0 to 100000. @default 1000 */
  scrollback?: number
}

/**
 * ptypilot's screen model on its own, without a program or a pty: what a terminal of this size
 * shows after a program printed the bytes written to it. `screen()` is exactly what
 * `PtySession.screen()` would report for a session whose program printed the same bytes, so a
 * recording can be replayed, or a screen tested, without spawning anything.
 *
 * @example
 * ```ts
 * const model = new ScreenModel({ cols: 40, rows: 5 })
 * model.write('\x1b[1;31mred\x1b[0m\r\nnext')
 * model.screen().lines // ['red', 'next', '', '', '']
 * model.write('\x1b[6n')  // '\x1b[2;5R': what the terminal answers
 * ```
 *
 * Bad arguments throw `ERR_INVALID_ARG` naming the value.
 */
export declare class ScreenModel {
  constructor(options?: ScreenModelOptions)
  /**
   * Feeds program output: text (sent as UTF-8) or bytes. A character or an escape sequence may be
   * split across calls. Returns the terminal's answers to the queries in it (cursor position,
   * device status and attributes, mode reports, colours), in order, or `''` when there were none.
   */
  write(data: string | Uint8Array): string
  /** Changes the size as a terminal resize does (rows are kept, not reflowed). */
  resize(cols: number, rows: number): void
  /** The screen now; `seq` counts the bytes written so far. With `{ attributes: true }` as `PtySession.screen`. */
  screen(options: ScreenOptions & { attributes: true }): StyledScreenSnapshot
  screen(options?: ScreenOptions): ScreenSnapshot
  /** A picture of the screen as SVG, as `PtySession.screenshot()`. */
  screenshot(options?: ScreenshotOptions): string
}
