/// <reference types="node" />
// Types of keys both ways: encodeKeys (names to the bytes a terminal sends)
// and the key parsers (bytes to the key they stand for) (lib/keys.js).

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
  /**
   * The kitty keyboard protocol flags a program pushed (`CSI > flags u`), an integer from 0 to 31;
   * `sendKeys` uses the flags of the program's current screen. 0 is a legacy terminal.
   * - 1 (disambiguate): text keys (`a`, `A`, `!`) and plain Enter, Tab, Backspace as before; Esc is
   *   `ESC [ 27 u`, ctrl/alt combinations `ESC [ code ; m u` (`ctrl+c` is `ESC [ 99 ; 5 u`),
   *   arrows, Home, End, F1–F4 `ESC [ X` / `ESC [ 1 ; m X`, the others `ESC [ n ; m ~` (no
   *   application cursor forms). Keys xterm cannot send become sendable: `shift+enter`,
   *   `ctrl+1`, `f13`…`f35`.
   * - 2 (event types): every key sent as an escape code is followed by its release
   *   (`ESC [ 99 ; 5 : 3 u`).
   * - 4 (alternate keys): a shifted key carries its shifted form (`ESC [ 97 : 65 ; 2 u` for `A`);
   *   a symbol is the US-layout key that types it (`!` is `ESC [ 49 : 33 ; 2 u`).
   * - 8 (all keys as escape codes): text keys and Enter, Tab, Backspace too (`a` is `ESC [ 97 u`).
   * - 16 (associated text, with 8): the text a key types (`ESC [ 97 ; ; 97 u`).
   *
   * Flags without 1 or 8 change nothing; the modifier keys themselves are not sent.
   * @default 0
   */
  kittyFlags?: number
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
 * encodeKeys(['ctrl+c'], { kittyFlags: 1 })      // '\x1b[99;5u' (kitty keyboard protocol)
 * ```
 *
 * Throws `ERR_INVALID_ARG` when `keys` is not an array of strings, for an unknown key (the
 * message names it, e.g. `keys[1]: unknown key "foo"; accepted: …`) and for combinations xterm
 * cannot send (`shift+enter`, `ctrl+1`) unless `kittyFlags` asks for the kitty protocol.
 */
export declare function encodeKeys(keys: string[], modes?: EncodeKeysModes): string

/**
 * What a terminal sent for a key: a string (xterm.js `onData`, stdin with an encoding) or the raw
 * bytes (a `Buffer` or `Uint8Array` from stdin).
 */
export type KeyData = string | Uint8Array

/**
 * The key that `data` stands for, as its canonical id — the name `encodeKeys` and `sendKeys` take,
 * with modifiers in the order ctrl, alt, shift: `'a'`, `'A'`, `'enter'`, `'ctrl+c'`, `'alt+x'`,
 * `'shift+tab'`, `'ctrl+shift+left'`, `'pageUp'`, `'f5'`, `'kp5'`. `null` when `data` is not exactly
 * one key (text of several characters, two keys, a paste marker, a mouse report, malformed bytes);
 * never throws.
 *
 * Reads single bytes and characters (`'\x03'` is `ctrl+c`, `' '` is `space`, `'<'` is `lt`), legacy
 * escape sequences from one table (xterm CSI and SS3 keys in both cursor modes, modified keys
 * `ESC [ 1 ; 5 A`, VT220 `ESC [ 5 ~`, rxvt and Linux console forms, application keypad), xterm's
 * modifyOtherKeys (`ESC [ 27 ; 5 ; 105 ~` is `ctrl+i`), the kitty keyboard protocol (`CSI u`,
 * `CSI ~`, `CSI 1 ; m X` — see `parseKittySequence`), and any of these after `ESC` (alt).
 *
 * `parseKey(encodeKeys([k])) === k` for every canonical name `k` in both cursor modes. Where two keys
 * send the same bytes in a legacy terminal, the plainer one is returned: `'\t'` is `tab`, not
 * `ctrl+i`; `'\x01'` is `ctrl+a` (also ctrl+shift+a); `'5'` is `5` (also `kp5`). The kitty protocol
 * tells them apart (`'\x1b[105;5u'` is `ctrl+i`).
 *
 * A shifted letter alone is the capital (`'A'`); with other modifiers the letter stays small
 * (`'ctrl+shift+a'`, `'alt+shift+a'`). Only ctrl, alt and shift are part of an id (kitty's super,
 * hyper, meta and the lock keys are not). A kitty report gives the same id for press, repeat and
 * release; `parseKittySequence` tells which. A few keys only the kitty protocol reports have ids
 * that `encodeKeys` cannot send: `f13`…`f35`, `capsLock`, `scrollLock`, `numLock`, `printScreen`,
 * `pause`, `menu`, `kpEqual`, `kpBegin`, the media keys (`mediaPlay` …) and the modifier keys
 * themselves (`leftShift` …).
 *
 * @param kittyProtocolActive the program enabled the kitty keyboard protocol. Then `'\x1b\r'` and
 *   `'\n'` — what terminals send for shift+enter under it — read as `shift+enter` instead of
 *   `alt+enter` and `ctrl+j`. Default `false`.
 *
 * @example
 * ```ts
 * parseKey('\x1b[1;5A')      // 'ctrl+up'
 * parseKey('\x1bOA')         // 'up' (application cursor mode)
 * parseKey('\x1b[97;6u')     // 'ctrl+shift+a' (kitty)
 * parseKey('hello')          // null
 * ```
 */
export declare function parseKey(data: KeyData, kittyProtocolActive?: boolean): string | null

/**
 * Whether `data` is the key `keyId` names. `keyId` is any spelling `encodeKeys` takes (`'ctrl+c'`,
 * `'C-c'`, `'Ctrl+C'`, `'pgdn'`, `'shift+a'` or `'A'`). Only ctrl, alt and shift are compared; lock
 * keys and super/hyper/meta do not prevent a match. A kitty report of a key that is not ASCII also
 * matches the key at its place on a US layout (ctrl with the Cyrillic `с` matches `'ctrl+c'`); on a
 * remapped Latin layout (Dvorak) the letter the key types decides. `false` for an unknown key name
 * or data that is not one key; never throws.
 */
export declare function matchesKey(data: KeyData, keyId: string, kittyProtocolActive?: boolean): boolean

/** One key report of the kitty keyboard protocol. */
export interface KittySequence {
  /**
   * The key: its Unicode code point for a character key — always the unshifted key, `97` for both
   * `a` and `A` — 13 Enter, 9 Tab, 27 Esc, 127 Backspace, or kitty's private-use code for the other
   * keys (Insert 57348, Delete 57349, Left 57350, Right 57351, Up 57352, Down 57353, Page Up 57354,
   * Page Down 57355, Home 57356, End 57357, F1 57364 … F35 57398, keypad 0 57399 …).
   */
  codepoint: number
  /** The shifted key, when the program asked for alternate keys (`65` for shift+a). */
  shiftedKey?: number
  /** The key at the same place on a US layout, when it differs and alternate keys were asked for. */
  baseLayoutKey?: number
  /** Modifier bits, lock bits masked out: shift 1, alt 2, ctrl 4, super 8, hyper 16, meta 32. */
  modifier: number
  /** 1 press, 2 repeat, 3 release. */
  eventType: 1 | 2 | 3
  /** The text the key produced, when the program asked for associated text. */
  text?: string
}

/**
 * Parses one kitty keyboard protocol key report: `CSI code[:shifted[:base]] [; mods[:event] [; text]] u`,
 * `CSI n [; mods[:event]] ~`, or `CSI [1 ; mods[:event]] X` with `X` one of `A B C D E F H P Q S`.
 * `null` for anything else (including two reports in a row); never throws.
 *
 * @example
 * ```ts
 * parseKittySequence('\x1b[97:65;6:3u') // { codepoint: 97, shiftedKey: 65, modifier: 5, eventType: 3 }
 * ```
 */
export declare function parseKittySequence(data: KeyData): KittySequence | null

/** A mouse report read back (`parseMouseSequence`). */
export interface MouseSequence {
  /** A button went down (or the wheel turned a step), came up, or the mouse moved. */
  action: 'press' | 'release' | 'move'
  /**
   * The button; for motion, the button held. `null` for motion with no button held, and for a
   * release in an encoding that does not say which button came up (all but SGR).
   */
  button: 'left' | 'middle' | 'right' | 'wheelUp' | 'wheelDown' | 'wheelLeft' | 'wheelRight' | null
  /** Column, 0-based. */
  col: number
  /** Row, 0-based. */
  row: number
  /** Shift was held. */
  shift: boolean
  /** Alt (Meta) was held. */
  alt: boolean
  /** Ctrl was held. */
  ctrl: boolean
  /**
   * How it was written: `'default'`, `'utf8'` (1005), `'sgr'` (1006) or `'urxvt'` (1015). Default
   * and UTF-8 reports are the same bytes below column 95; such a report reads as `'default'`.
   */
  encoding: 'default' | 'utf8' | 'sgr' | 'urxvt'
}

/**
 * One mouse report, in any of the encodings a terminal writes them (what `session.mouse` sends,
 * what a program reading the terminal gets), or `null` when `data` is not exactly one. Mouse
 * reports are not keys: `parseKey` gives `null` for them. Never throws.
 *
 * @example
 * ```ts
 * parseMouseSequence('[<2;10;5m') // { action: 'release', button: 'right', col: 9, row: 4, ..., encoding: 'sgr' }
 * ```
 */
export declare function parseMouseSequence(data: KeyData): MouseSequence | null

/**
 * Whether `data` is a kitty report of the key `codepoint` with the modifiers `modifier`, given as
 * bits (shift 1, alt 2, ctrl 4 — kitty's encoded value minus one). Only shift, alt and ctrl are
 * compared; lock bits are masked. A report's base-layout key matches too, only when the key itself
 * is not ASCII. `false` when `data` is not a kitty report; never throws.
 */
export declare function matchesKittySequence(data: KeyData, codepoint: number, modifier: number): boolean

/**
 * Whether `data` is exactly one of the legacy escape sequences (xterm, VT220, rxvt, Linux console,
 * application keypad) of the key `keyName` (any spelling `encodeKeys` takes): `'\x1bOA'` and
 * `'\x1b[A'` are `up`, `'\x1b[11~'` and `'\x1bOP'` are `f1`. Single bytes and alt (`ESC x`) forms are
 * not escape sequences: `false`, as for anything else; never throws.
 */
export declare function matchesLegacySequence(data: KeyData, keyName: string): boolean
