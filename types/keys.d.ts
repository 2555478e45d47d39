// ---------- keys ----------

/** Terminal modes that change what keys send (`encodeKeys`). */
export interface EncodeKeysModes {
  /**
   * DECCKM (application cursor keys): arrows, Home and End send `ESC O x` instead of `ESC [ x`.
   * Full-screen programs such as vim and less turn it on; `sendKeys` follows the screen's mode.
   * @default false
   */
  applicationCursor?: boolean
  /**
   * DECKPAM (application keypad): the keypad keys `kp0`…`kp9`, `kpEnter`, `kpPlus`, `kpMinus`,
   * `kpMultiply`, `kpDivide`, `kpDecimal` send `ESC O x` instead of their characters.
   * @default false
   */
  applicationKeypad?: boolean
}

/**
 * The string a terminal (xterm) sends for the named keys, concatenated.
 *
 * Key names, case-insensitive:
 * - `enter` (`return`), `tab`, `esc` (`escape`), `backspace`, `delete` (`del`), `insert`,
 *   `home`, `end`, `pageUp`, `pageDown` (also `page_down`, `pgdn`, `pgup`), `up`, `down`,
 *   `left`, `right`, `space`, `f1`…`f12`, `kp0`…`kp9`, `kpEnter`, `lt` (`<`), `gt` (`>`);
 * - any single character, sent as itself (`'a'`, `'Q'`, `'/'`, `'é'`);
 * - modifiers joined with `+` in any order: `ctrl+c`, `ctrl+[`, `ctrl+space`, `alt+x`
 *   (ESC prefix), `alt+enter`, `shift+tab`, `ctrl+up`, `ctrl+shift+left`, `shift+f5`;
 *   Emacs-style `C-c`, `M-x`, `S-tab` too.
 *
 * Modified arrows, Home, End and function keys use xterm's `ESC [ 1 ; m X` / `ESC [ n ; m ~`
 * forms (m = 1 + shift 1 + alt 2 + ctrl 4).
 *
 * ```ts
 * encodeKeys(['ctrl+c'])                          // '\x03'
 * encodeKeys(['up'])                              // '\x1b[A'
 * encodeKeys(['up'], { applicationCursor: true }) // '\x1bOA'
 * encodeKeys(['ctrl+up', 'f5'])                   // '\x1b[1;5A\x1b[15~'
 * ```
 *
 * Throws `ERR_INVALID_ARG` when `keys` is not an array of strings, for an unknown key (the
 * message names it, e.g. `keys[1]: unknown key "foo"; accepted: …`) and for combinations xterm
 * cannot send (`shift+enter`, `ctrl+1`).
 */
export declare function encodeKeys(keys: string[], modes?: EncodeKeysModes): string
