// Differential fuzzer of the screen model against @xterm/headless.
//
// Generates random but well-formed output from the control functions xterm
// implements (text with wide, combining and VS15/VS16 characters at the
// margins; C0; ESC and CSI cursor movement, erase, insert/delete, scroll,
// margins, tabs, modes, charsets, save and restore, REP; OSC and DCS
// strings), feeds the same bytes to ptypilot's ScreenModel and to xterm.js
// at several sizes, and compares the rows and the cursor. Every mismatch is
// shrunk to a minimal sequence of pieces and classified by the control
// functions left in it; a class listed in KNOWN (the known-differences table,
// src/core/screen/DIFFERENCES.md) is expected, any other is a failure.
//
// xterm.js runs with the Unicode 11 width tables (@xterm/addon-unicode11), as
// embedders such as VS Code configure it; its default, Unicode 6, gives every
// emoji one column, unlike xterm and every current terminal.
//
// Run `node fuzz/differential.mjs [cases] [seed] [--count-only]` for the
// long tier (`--count-only` measures the identical share without shrinking
// the mismatches); the
// Vitest suite runs a short seeded tier (__test__/differential.test.ts).

import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

const require = createRequire(import.meta.url)
const { Terminal } = require('@xterm/headless')
const { Unicode11Addon } = require('@xterm/addon-unicode11')
const { ScreenModel } = require('../index.js')

/** A small deterministic generator (xorshift128+, as 32-bit halves). */
export class Rng {
  constructor(seed) {
    this.a = (seed >>> 0) || 1
    this.b = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0 || 2
  }
  next() {
    let t = this.a ^ (this.a << 11)
    this.a = this.b
    this.b = (this.b ^ (this.b >>> 19) ^ t ^ (t >>> 8)) >>> 0
    return this.b
  }
  below(n) {
    return this.next() % n
  }
  pick(items) {
    return items[this.below(items.length)]
  }
  chance(oneIn) {
    return this.below(oneIn) === 0
  }
}

const E = '\x1b'
const CSI = `${E}[`

/** Sizes every case is tried at: [cols, rows]. */
export const SIZES = [
  [80, 24],
  [20, 6],
  [10, 4],
  [3, 3],
]

const WORDS = ['a', 'xy', 'hello', 'q', '#', ' ', '  ', 'E', '0123456789']
const WIDE = ['日', '本語', '한', '\u{1f600}', '\u{1f44d}']
const COMBINING = ['e\u0301', 'a\u0300\u0301', '\u0301']
const EMOJI_SELECTORS = ['\u263a\ufe0f', '\u2764\ufe0f', '\u263a\ufe0e', '\u{1f600}\ufe0e', '#\ufe0f\u20e3']
const ZWJ = ['\u{1f468}\u200d\u{1f469}\u200d\u{1f467}', '\u{1f3f3}\ufe0f\u200d\u{1f308}']

/** A parameter: usually small, sometimes at or past the edges of the screen. */
function num(rng, cols, rows) {
  switch (rng.below(8)) {
    case 0:
      return ''
    case 1:
      return '0'
    case 2:
      return String(cols + rng.below(3) - 1)
    case 3:
      return String(rows + rng.below(3) - 1)
    default:
      return String(1 + rng.below(Math.max(cols, rows) + 2))
  }
}

/**
 * One piece of output: `[kind, text]`. `kind` names the control function
 * (or the kind of text), which is what classes are made of.
 */
export function piece(rng, cols, rows) {
  const n = () => num(rng, cols, rows)
  const r = rng.below(100)
  if (r < 22) {
    const len = rng.chance(5) ? 1 + rng.below(cols * 2) : 1 + rng.below(4)
    let s = ''
    for (let i = 0; i < len; i++) s += rng.pick(WORDS)
    return ['text', s]
  }
  if (r < 26) return ['wide', rng.pick(WIDE)]
  if (r < 28) return ['combining', rng.pick(COMBINING)]
  if (r < 30) return ['emoji-selector', rng.pick(EMOJI_SELECTORS)]
  if (r < 31) return ['zwj', rng.pick(ZWJ)]
  if (r < 34) return ['CUP', `${CSI}${n()};${n()}H`]
  if (r < 36) return ['CUP-margin', `${CSI}${1 + rng.below(rows)};${cols}H`]
  if (r < 40) {
    const c = rng.pick(['\r', '\n', '\r\n', '\b', '\t', '\x0b', '\x0c', '\x07'])
    const names = { '\r': 'CR', '\n': 'LF', '\r\n': 'CRLF', '\b': 'BS', '\t': 'HT', '\x0b': 'VT', '\x0c': 'FF', '\x07': 'BEL' }
    return [names[c], c]
  }
  if (r < 56) {
    const [kind, final] = rng.pick([
      ['CUU', 'A'], ['CUD', 'B'], ['CUF', 'C'], ['CUB', 'D'], ['CNL', 'E'], ['CPL', 'F'], ['CHA', 'G'],
      ['CHT', 'I'], ['ED', 'J'], ['EL', 'K'], ['IL', 'L'], ['DL', 'M'], ['DCH', 'P'], ['SU', 'S'], ['SD', 'T'],
      ['ECH', 'X'], ['CBT', 'Z'], ['ICH', '@'], ['HPA', '`'], ['HPR', 'a'], ['VPA', 'd'], ['VPR', 'e'],
      ['HVP', 'f'], ['REP', 'b'], ['TBC', 'g'],
    ])
    let p = n()
    if (kind === 'ED' || kind === 'EL') p = rng.pick(['', '0', '1', '2', '3'])
    if (kind === 'TBC') p = rng.pick(['', '0', '3'])
    return [kind, `${CSI}${p}${final}`]
  }
  if (r < 58) {
    const [kind, seq] = rng.pick([
      ['SL', ' @'], ['SR', ' A'], ['DECIC', "'}"], ['DECDC', "'~"],
    ])
    return [kind, `${CSI}${n()}${seq}`]
  }
  if (r < 62) {
    const top = rng.chance(4) ? '' : String(1 + rng.below(rows))
    const bottom = rng.chance(4) ? '' : String(1 + rng.below(rows + 1))
    return ['DECSTBM', `${CSI}${top};${bottom}r`]
  }
  if (r < 63) return ['DECSLRM', `${CSI}${n()};${n()}s`]
  if (r < 70) {
    const [kind, mode] = rng.pick([
      ['IRM', '4'], ['LNM', '20'], ['DECOM', '?6'], ['DECAWM', '?7'], ['DECTCEM', '?25'], ['ALT47', '?47'],
      ['ALT1047', '?1047'], ['SAVE1048', '?1048'], ['ALT1049', '?1049'], ['DECCKM', '?1'], ['DECLRMM', '?69'],
      ['REVWRAP', '?45'],
    ])
    return [kind, `${CSI}${mode}${rng.chance(2) ? 'h' : 'l'}`]
  }
  if (r < 78) {
    const [kind, seq] = rng.pick([
      ['DECSC', `${E}7`], ['DECRC', `${E}8`], ['SCOSC', `${CSI}s`], ['SCORC', `${CSI}u`], ['IND', `${E}D`],
      ['NEL', `${E}E`], ['HTS', `${E}H`], ['RI', `${E}M`], ['DECALN', `${E}#8`], ['DECSTR', `${CSI}!p`],
      ['RIS', `${E}c`], ['DECKPAM', `${E}=`],
    ])
    return [kind, seq]
  }
  if (r < 83) {
    const [kind, seq] = rng.pick([
      ['G0-DEC', `${E}(0`], ['G0-ASCII', `${E}(B`], ['G1-DEC', `${E})0`], ['G0-UK', `${E}(A`], ['SO', '\x0e'],
      ['SI', '\x0f'],
    ])
    return [kind, seq]
  }
  if (r < 90) {
    const sgr = rng.pick(['1;31', '0', '', '7', '38;5;208', '48;2;1;2;3', '4:3', '22;39'])
    return ['SGR', `${CSI}${sgr}m`]
  }
  if (r < 94) {
    const [kind, seq] = rng.pick([
      ['OSC-title', `${E}]0;title\x07`], ['OSC-title', `${E}]2;t${E}\\`], ['OSC4', `${E}]4;1;rgb:11/22/33\x07`],
      ['OSC8', `${E}]8;;http://x${E}\\`], ['DCS', `${E}P$q"p${E}\\`], ['OSC-query', `${E}]11;?\x07`],
    ])
    return [kind, seq]
  }
  if (r < 96) return ['DSR', rng.pick([`${CSI}6n`, `${CSI}5n`, `${CSI}c`])]
  if (r < 98) return ['C1-utf8', rng.pick(['\u0085', '\u009b1C', '\u0090x\u009c', '\u0084'])]
  return ['FFFD', '\ufffd']
}

/** A case: its pieces at one size. */
export function makeCase(rng, cols, rows) {
  const count = 1 + rng.below(16)
  const pieces = []
  for (let i = 0; i < count; i++) pieces.push(piece(rng, cols, rows))
  return { cols, rows, pieces }
}

const encoder = new TextEncoder()
const bytesOf = (pieces) => encoder.encode(pieces.map((p) => p[1]).join(''))

/** What xterm.js shows: rows (trailing spaces trimmed) and the cursor. */
export function viaXterm(bytes, cols, rows) {
  const term = new Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true, logLevel: 'off' })
  term.loadAddon(new Unicode11Addon())
  term.unicode.activeVersion = '11'
  try {
    term._core.writeSync(bytes)
  } catch {
    // xterm.js itself fails on some input (ED after some resets): no reference.
    term.dispose()
    return null
  }
  const buffer = term.buffer.active
  const lines = []
  for (let i = 0; i < rows; i++) {
    lines.push((buffer.getLine(buffer.baseY + i)?.translateToString(true) ?? '').replace(/ +$/, ''))
  }
  // With a wrap pending xterm.js reports cursorX === cols; terminals show
  // (and ptypilot reports) the last column.
  const view = { lines, cursor: [buffer.cursorY, Math.min(buffer.cursorX, cols - 1)] }
  term.dispose()
  return view
}

/** What ptypilot shows. */
export function viaPtypilot(bytes, cols, rows) {
  const model = new ScreenModel({ cols, rows, scrollback: 1000 })
  model.write(bytes)
  const s = model.screen()
  return { lines: s.lines, cursor: [s.cursor.row, s.cursor.col] }
}

/** True when both show the same rows and cursor. */
export function same(kase) {
  const bytes = bytesOf(kase.pieces)
  const a = viaPtypilot(bytes, kase.cols, kase.rows)
  const b = viaXterm(bytes, kase.cols, kase.rows)
  if (b === null) return true
  return a.cursor[0] === b.cursor[0] && a.cursor[1] === b.cursor[1] && a.lines.every((l, i) => l === b.lines[i])
}

/**
 * The smallest sub-sequence of `pieces` (and shortest texts) for which
 * `differs` still holds: pieces dropped in halves, then one by one, then
 * texts cut. `differs` may return a promise (the real xterm's recordings).
 */
export async function shrinkPieces(pieces, differs) {
  for (let progress = true; progress; ) {
    progress = false
    for (let len = pieces.length >> 1 || 1; len >= 1; len = len >> 1) {
      for (let i = 0; i + len <= pieces.length; ) {
        const fewer = pieces.slice(0, i).concat(pieces.slice(i + len))
        if (fewer.length > 0 && (await differs(fewer))) {
          pieces = fewer
          progress = true
        } else {
          i += len
        }
      }
      if (len === 1) break
    }
    // Shorter texts.
    for (let i = 0; i < pieces.length; i++) {
      const [kind, text] = pieces[i]
      if (kind !== 'text' || text.length < 2) continue
      for (const shorter of [text.slice(0, text.length >> 1), text.slice(1), text.slice(0, -1)]) {
        const p = pieces.slice()
        p[i] = [kind, shorter]
        if (await differs(p)) {
          pieces = p
          progress = true
          break
        }
      }
    }
  }
  return pieces
}

/** The smallest case that still differs from xterm.js. */
export async function shrink(kase) {
  return { ...kase, pieces: await shrinkPieces(kase.pieces, (p) => !same({ ...kase, pieces: p })) }
}

/** Pieces that save the cursor, and those that restore it (in xterm). */
const SAVES = new Set(['DECSC', 'SCOSC'])
const RESTORES = new Set(['DECRC', 'SCORC'])

/** Pieces after which xterm may have dropped a row's wrapped mark. */
const WRAP_EDITS = new Set(['ED', 'EL', 'ECH', 'ICH', 'DCH', 'DECIC', 'DECDC', 'SL', 'SR', 'DECALN', 'RIS'])

/** Pieces that print characters. */
const PRINTS = new Set(['text', 'wide', 'combining', 'emoji-selector', 'zwj', 'FFFD'])

/** Columns a character takes (the fuzzer's wide and emoji characters). */
function widthOf(ch) {
  const c = ch.codePointAt(0)
  if (c === 0x200d || (c >= 0x300 && c < 0x370) || c === 0xfe0e || c === 0xfe0f || c === 0x20e3) return 0
  if (c >= 0x1100 && (c < 0x2000 || c >= 0x2e80)) return 2
  return 1
}

/** True when the text starts with a combining character (no base before it). */
const startsWithMark = (text) => widthOf(text) === 0 && text.codePointAt(0) !== 0x200d

/**
 * The cell xterm.js's REP repeats: the one before the cursor (the last column
 * with a wrap pending), moved to the start of a wide character; `wide` when
 * it is one (two columns).
 */
function repeatedCell(buffer, cols) {
  const line = buffer.lines.get(buffer.ybase + buffer.y)
  const x = Math.min(buffer.x, cols)
  let at = x - 1
  if (at > 0 && line?.getWidth(at) === 0) at -= 1
  return { line, at, wide: at === x - 2 && line?.getWidth(at) === 2 }
}

/**
 * What happens in xterm.js on the way through a case, piece by piece, that
 * marks a departure of xterm.js from xterm (the tags of the known classes):
 *
 * - `pending`: a wrap is pending (the cursor past the last column) after
 *   some piece but the last;
 * - `scrolled-save`: the main screen restores a cursor saved before its
 *   rows scrolled or the scrollback above them was erased (xterm.js keeps
 *   the saved row in the buffer, so it moves with the text; xterm and DEC
 *   keep the screen row). A soft reset (DECSTR) saves the home position;
 * - `erase-at-wrap`: ED or EL with a wrap pending (xterm erases the last
 *   column and ends the wrap; xterm.js neither, its issue 3362);
 * - `back-tab-at-wrap`: CBT with a wrap pending (xterm moves back and keeps
 *   the wrap flag; xterm.js does not move);
 * - `columns-at-wrap`: DECIC or DECDC with a wrap pending (xterm acts on the
 *   last column; xterm.js on none);
 * - `lines-outside-at-wrap`: IL or DL outside the scroll margins with a wrap
 *   pending (xterm leaves it pending; xterm.js ends it);
 * - `restore-wrap`: a cursor saved with a wrap pending is restored (xterm
 *   restores the wrap flag; xterm.js does not);
 * - `switch-clears-at-wrap`: a screen switch that clears a screen (1049
 *   entering, 1047 leaving) with a wrap pending (xterm's clear ends it);
 * - `alt-twice`: 1049 set while on the alternate screen (xterm clears it);
 * - `alt-kept`: 47 or 1047 enters the alternate screen after 47 or 1049
 *   left it showing text (xterm shows that text again; xterm.js clears it);
 * - `switch-margins`: a screen switch where the screens' scroll margins
 *   differ in xterm.js (xterm keeps one set for both screens);
 * - `switch-tabs`: a screen switch after tab stops were changed (xterm keeps
 *   one set for both screens; xterm.js starts the alternate one with the
 *   defaults);
 * - `wide-no-fit`: a wide character that does not fit in the last column,
 *   auto-wrap on (xterm leaves the last column as it was; xterm.js blanks
 *   it);
 * - `lone-mark`: a combining character with no character before it (xterm
 *   joins it to the character under the cursor, or gives it a cell of its
 *   own that shows it; xterm.js joins it to the cell before the cursor, or
 *   gives it a cell that shows nothing);
 * - `lr-margins`: `CSI Pl ; Pr s` with mode 69 set: DECSLRM, left and right
 *   margins (xterm.js has neither);
 * - `lrmm-save`: `CSI s` with mode 69 set (DECSLRM in xterm, which resets
 *   the left and right margins and homes the cursor);
 * - `reverse-cub`: CUB with reverse wraparound and auto-wrap set, from the
 *   left edge or with a wrap pending (xterm reverse-wraps CUB as it does
 *   backspace; xterm.js only backspace);
 * - `revwrap-nowrap`: backspace with reverse wraparound set and auto-wrap
 *   off, with a wrap pending or at the left edge of a continuation row
 *   (xterm's reverse wraparound needs auto-wrap too; xterm.js's does not);
 * - `revwrap-row`: backspace with reverse wraparound at the left edge where
 *   xterm's mark on the row above (it wrapped) and xterm.js's flag on the
 *   cursor's row (a continuation) disagree: lines moved between them, or
 *   xterm.js dropped its flag (line feed onto the row, an earlier reverse
 *   wrap) where xterm keeps its mark;
 * - `revwrap-outside`: backspace with reverse wraparound at the left edge
 *   outside the scroll region: above it (xterm goes to the top margin's
 *   row), or below it with the row above marked wrapped (xterm goes up);
 *   xterm.js reverse-wraps only inside the region;
 * - `decaln-origin`: DECALN in origin mode (xterm resets origin mode);
 * - `nowrap-wide`: auto-wrap off, printing in the last column where a wide
 *   character ends, or a wide character there (xterm blanks a wide
 *   character written over in half and drops one that does not fit;
 *   xterm.js keeps the wide character and drops what comes);
 * - `rep-marks`: REP after a character with combining marks or a variation
 *   selector joined to it (xterm repeats the character alone; xterm.js the
 *   cell with its marks);
 * - `tab-mark`: a combining character right after a tab (HT, CHT, CBT)
 *   that followed a printed character (xterm joins it to that character;
 *   xterm.js to the cell before the cursor);
 * - `sd-zero`: `CSI 0 T` (xterm's mouse highlight tracking, no scroll;
 *   xterm.js scrolls one line).
 */
function trace(kase) {
  const { cols } = kase
  const term = new Terminal({ cols, rows: kase.rows, scrollback: 1000, allowProposedApi: true, logLevel: 'off' })
  term.loadAddon(new Unicode11Addon())
  term.unicode.activeVersion = '11'
  const tags = new Set()
  let savedAt = null
  // Per buffer: a wrap was pending when the cursor was saved there.
  const savedPending = { normal: false, alternate: false }
  let tabsChanged = false
  let lrmm = false
  // The alternate screen was left by 47 or 1049 showing text, which xterm
  // shows again when 47 or 1047 enters it (xterm.js clears it each time).
  let altKept = false
  // A tab came after the last character printed, with only colours, titles
  // or bells since.
  let afterTab = false
  // xterm's marks of wrapped rows, followed on xterm.js's line objects: each
  // continuation row (xterm.js's isWrapped) with the row that was above it
  // when it wrapped (the one xterm marks, LINEWRAPPED, moving with it), and
  // the rows that were continuations at the last look. After an erase or an
  // edit in a row xterm may have dropped a mark: no longer followed then.
  const wrappedFrom = new Map()
  let wrappedNow = new Set()
  let marksKnown = true
  try {
    kase.pieces.forEach(([kind, text], i) => {
      const core = term._core
      const buffer = core.buffer
      const type = term.buffer.active.type
      const normal = type === 'normal'
      const set = text.endsWith('h')
      const pending = buffer.x >= cols
      const margins = [buffer.scrollTop, buffer.scrollBottom]
      const modes = core.coreService.decPrivateModes
      if (pending) {
        if (kind === 'EL' || (kind === 'ED' && !text.endsWith('3J'))) tags.add('erase-at-wrap')
        if (kind === 'CBT') tags.add('back-tab-at-wrap')
        if (kind === 'DECIC' || kind === 'DECDC') tags.add('columns-at-wrap')
        if ((kind === 'IL' || kind === 'DL') && (buffer.y < margins[0] || buffer.y > margins[1])) {
          tags.add('lines-outside-at-wrap')
        }
        if ((kind === 'ALT1049' && set && normal) || (kind === 'ALT1047' && !set && !normal)) {
          tags.add('switch-clears-at-wrap')
        }
      }
      if (kind === 'ALT1049' && set && !normal) tags.add('alt-twice')
      if (kind === 'DECSLRM') tags.add(lrmm ? 'lr-margins' : 'slrm')
      if (kind === 'SCOSC' && lrmm) tags.add('lrmm-save')
      if (kind === 'DECALN' && modes.origin) tags.add('decaln-origin')
      if (kind === 'BS' && modes.reverseWraparound) {
        const y = buffer.ybase + buffer.y
        const inRegion = buffer.y > margins[0] && buffer.y <= margins[1]
        const line = buffer.lines.get(y)
        const above = buffer.lines.get(y - 1)
        if (!modes.wraparound) {
          // xterm.js reverse-wraps with auto-wrap off too.
          if (pending || (buffer.x === 0 && inRegion && line?.isWrapped)) tags.add('revwrap-nowrap')
        } else if (buffer.x === 0 && inRegion && line && above && marksKnown) {
          // xterm.js goes up when the cursor's row is a continuation, xterm
          // when the row above is marked wrapped. They disagree once lines
          // moved between the two, or xterm.js dropped its flag (a line feed
          // onto the row, a reverse wrap out of it) where xterm keeps its
          // mark.
          const aboveWrapped = [...wrappedFrom.values()].includes(above)
          if (aboveWrapped !== line.isWrapped) tags.add('revwrap-row')
        } else if (buffer.x === 0 && (buffer.y < margins[0] || buffer.y > margins[1])) {
          // Outside the scroll region xterm.js does not reverse-wrap. xterm
          // bounds the way back by the margins wherever the cursor is: from
          // above the region it goes to the top margin's row, from below it
          // goes up over a row it marked wrapped.
          const aboveMarked = !marksKnown || [...wrappedFrom.values()].includes(above)
          if (buffer.y < margins[0] || aboveMarked) tags.add('revwrap-outside')
        }
      }
      if (kind === 'CUB' && modes.reverseWraparound && modes.wraparound) {
        const n = Number(text.slice(2, -1)) || 1
        if (pending || buffer.x < n) tags.add('reverse-cub')
      }
      if (kind === 'combining' && startsWithMark(text)) tags.add('lone-mark')
      if (kind === 'combining' && afterTab) tags.add('tab-mark')
      if (kind === 'SD' && text === `${CSI}0T`) tags.add('sd-zero')
      if (!modes.wraparound && PRINTS.has(kind)) {
        // A wide character that reaches the right margin, or printing where
        // one ends there.
        const line = buffer.lines.get(buffer.ybase + buffer.y)
        if (buffer.x >= cols - 1 && line?.getWidth(cols - 1) === 0) tags.add('nowrap-wide')
        let x = Math.min(buffer.x, cols - 1)
        for (const ch of text) {
          const w = core.unicodeService.wcwidth(ch.codePointAt(0))
          if (w === 2 && x + 2 >= cols) tags.add('nowrap-wide')
          x = Math.min(x + w, cols - 1)
        }
      }
      if (modes.wraparound && (['wide', 'zwj', 'emoji-selector'].includes(kind) || kind === 'REP')) {
        // The columns each character takes, as xterm.js counts them; for REP
        // the character before the cursor, repeated.
        let widths = [...text].map((ch) => core.unicodeService.wcwidth(ch.codePointAt(0)))
        if (kind === 'REP') {
          const { wide } = repeatedCell(buffer, cols)
          widths = Array(wide ? Number(text.slice(2, -1)) || 1 : 0).fill(2)
        }
        let x = buffer.x
        for (const w of widths) {
          if (w === 0) continue
          if (x >= cols) x = 0
          if (w === 2 && x === cols - 1) tags.add('wide-no-fit')
          x = x + w > cols ? w : x + w
        }
      }
      if (kind === 'REP') {
        const { line, at } = repeatedCell(buffer, cols)
        const chars = at >= 0 && line ? line.translateToString(false, at, at + 1) : ''
        if ([...chars].length > 1) tags.add('rep-marks')
      }
      if (['HT', 'CHT', 'CBT'].includes(kind)) afterTab = true
      else if (!['SGR', 'OSC-title', 'OSC4', 'OSC8', 'BEL'].includes(kind)) afterTab = false
      const lrmmBefore = lrmm
      if (kind === 'TBC' || kind === 'HTS') tabsChanged = true
      if (kind === 'DECLRMM') lrmm = set
      // `CSI Pl ; Pr s` with mode 69 off saves the cursor, as SCOSC.
      const save = SAVES.has(kind) || (kind === 'DECSLRM' && !lrmmBefore)
      const saves = save || ((kind === 'SAVE1048' || kind === 'ALT1049') && set) || kind === 'DECSTR'
      if (saves) savedPending[type] = pending
      if (normal && (save || ((kind === 'SAVE1048' || kind === 'ALT1049') && set))) {
        savedAt = term.buffer.normal.baseY
      }
      if (!normal && !set && (kind === 'ALT47' || kind === 'ALT1047' || kind === 'ALT1049')) {
        // Leaving the alternate screen: xterm keeps what it shows for the
        // next visit unless 1047 leaves it (which clears it).
        const shown = (y) => term.buffer.active.getLine(y)?.translateToString(true) ?? ''
        altKept = kind !== 'ALT1047' && Array.from({ length: kase.rows }, (_, y) => shown(y)).some((l) => l !== '')
      }
      term._core.writeSync(encoder.encode(text))
      const after = term.buffer.active.type
      if (normal && after === 'alternate') {
        if (kind === 'ALT1049') altKept = false
        else if (altKept) tags.add('alt-kept')
      }
      if (after !== type) {
        const now = term._core.buffer
        if (now.scrollTop !== margins[0] || now.scrollBottom !== margins[1]) tags.add('switch-margins')
        if (tabsChanged) tags.add('switch-tabs')
      }
      const restores = RESTORES.has(kind) || ((kind === 'SAVE1048' || kind === 'ALT1049') && !set)
      if (restores) {
        const from = kind === 'ALT1049' ? 'normal' : after
        if (savedPending[from]) tags.add('restore-wrap')
      }
      if (restores && term.buffer.active.type === 'normal' && savedAt !== null) {
        if (term.buffer.normal.baseY !== savedAt) tags.add('scrolled-save')
      }
      // RIS forgets the saved cursor; DECSTR saves home, which xterm.js keeps
      // as a buffer row like any other save.
      if (kind === 'RIS') {
        savedAt = null
        savedPending.normal = savedPending.alternate = false
        tabsChanged = lrmm = altKept = false
      }
      if (kind === 'DECSTR' && term.buffer.active.type === 'normal') savedAt = term.buffer.normal.baseY
      if (WRAP_EDITS.has(kind)) marksKnown = false
      {
        const { lines, ybase } = term._core.buffer
        const now = new Set()
        for (let y = Math.max(ybase, 1); y < ybase + kase.rows; y++) {
          const line = lines.get(y)
          if (!line?.isWrapped) continue
          now.add(line)
          if (!wrappedNow.has(line)) wrappedFrom.set(line, lines.get(y - 1))
        }
        wrappedNow = now
      }
      if (i < kase.pieces.length - 1 && term.buffer.active.cursorX >= cols) tags.add('pending')
    })
  } catch {
    // As in viaXterm.
  }
  term.dispose()
  return tags
}

/**
 * The class of a minimal case: the kinds of its pieces, sorted, without
 * plain text; plus the tags `trace` found on the way (what xterm.js did
 * there that xterm does not).
 */
export function classOf(kase) {
  const kinds = new Set(kase.pieces.map((p) => p[0]))
  if (kinds.size > 1) kinds.delete('text')
  for (const tag of trace(kase)) kinds.add(tag)
  return [...kinds].sort().join('+')
}

/**
 * The known differences: a class is expected when it contains every kind
 * (or tag) of one entry. `verdict` says why ptypilot shows otherwise than
 * xterm.js: `follows-xterm` where xterm.js departs from xterm and ptypilot
 * does what xterm does (each backed by a screen recorded from a real xterm,
 * fuzz/xterm-corpus.json, checked by __test__/xterm-corpus.test.ts, and by
 * a hand-written expected screen in __test__/fidelity.test.ts), `cannot`
 * where vt100's grid cannot show what xterm shows. Reasons are in src/core/screen/DIFFERENCES.md (same ids).
 */
export const KNOWN = [
  ...[
    ['erase-at-wrap', ['erase-at-wrap']],
    ['back-tab-at-wrap', ['back-tab-at-wrap']],
    ['columns-at-wrap', ['columns-at-wrap']],
    ['lines-outside-at-wrap', ['lines-outside-at-wrap']],
    ['restore-wrap', ['restore-wrap']],
    ['switch-clears-at-wrap', ['switch-clears-at-wrap']],
    ['alt-twice', ['alt-twice']],
    ['alt-kept', ['alt-kept']],
    ['switch-margins', ['switch-margins']],
    ['switch-tabs', ['switch-tabs']],
    ['wide-no-fit', ['wide-no-fit']],
    ['lone-mark', ['lone-mark']],
    ['lr-margins', ['lr-margins']],
    ['lrmm-save', ['lrmm-save']],
    ['reverse-cub', ['reverse-cub']],
    ['revwrap-nowrap', ['revwrap-nowrap']],
    ['revwrap-row', ['revwrap-row']],
    ['revwrap-outside', ['revwrap-outside']],
    ['decaln-origin', ['decaln-origin']],
    ['nowrap-wide', ['nowrap-wide']],
    ['rep-marks', ['rep-marks']],
    ['tab-mark', ['tab-mark']],
    ['sd-zero', ['sd-zero']],
    ['c1-utf8', ['C1-utf8']],
    ['latin1-g0', ['G0-UK']],
    ['format-chars', ['zwj']],
    ['saved-cursor-scroll', ['scrolled-save']],
    ['lnm-ris', ['LNM', 'RIS']],
    ['decaln-margins', ['DECALN', 'DECSTBM']],
  ].map(([id, kinds]) => ({ id, kinds, verdict: 'follows-xterm' })),
  ...['ALT1049', 'SCORC', 'DECRC', 'SAVE1048'].flatMap((restore) =>
    ['G0-DEC', 'G0-UK', 'G1-DEC'].map((set) => ({ id: 'charset-restore', kinds: [restore, set], verdict: 'follows-xterm' })),
  ),
  ...['DECRC', 'SCORC', 'SAVE1048', 'ALT1049'].map((restore) => ({
    id: 'origin-restore',
    kinds: ['DECOM', restore],
    verdict: 'follows-xterm',
  })),
  ...['CUU', 'CUD', 'CUF', 'CUB', 'CNL', 'CPL', 'CHA', 'HPA', 'HPR', 'VPR'].map((move) => ({
    id: 'origin-moves',
    kinds: ['DECOM', 'DECSTBM', move],
    verdict: 'follows-xterm',
  })),
]

/** The known entry that covers a class, if any. */
export function knownFor(cls) {
  const kinds = new Set(cls.split('+'))
  return KNOWN.find((k) => k.kinds.every((kind) => kinds.has(kind)))
}

/** Shows a case as a JS string literal with its size. */
export function show(kase) {
  const text = kase.pieces.map((p) => p[1]).join('')
  return `${kase.cols}x${kase.rows} ${JSON.stringify(text)}`
}

/**
 * Runs `cases` random cases from `seed`, each at every size in SIZES.
 * Returns the counts and the classes found (one shrunk example each), and
 * the counts of the cases with no piece of the kinds `apart`. The
 * event loop turns every 250 cases: Node runs the finalizers of native
 * objects (each case's ScreenModel) only then, so a long run that never
 * yielded would keep every screen model it made.
 */
export async function run({ cases, seed, onClass, onProgress, classify = true, apart = [] }) {
  const rng = new Rng(seed)
  const classes = new Map()
  let identical = 0
  let tried = 0
  // The cases with no piece of the kinds `apart`, counted on their own.
  const rest = { tried: 0, identical: 0 }
  for (let c = 0; c < cases; c++) {
    for (const [cols, rows] of SIZES) {
      const kase = makeCase(rng, cols, rows)
      tried++
      const inRest = !kase.pieces.some(([kind]) => apart.includes(kind))
      if (inRest) rest.tried++
      if (same(kase)) {
        identical++
        if (inRest) rest.identical++
        continue
      }
      if (!classify) continue
      const small = await shrink(kase)
      const cls = classOf(small)
      const entry = classes.get(cls)
      if (entry) {
        entry.count++
      } else {
        const found = { cls, count: 1, example: small, known: knownFor(cls) }
        classes.set(cls, found)
        onClass?.(found)
      }
    }
    if (onProgress && (c + 1) % 1000 === 0) onProgress({ tried, identical, classes: classes.size })
    if ((c + 1) % 250 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  return { tried, identical, rest, classes: [...classes.values()] }
}

async function main() {
  const args = process.argv.slice(2)
  // --count-only: count identical cases without shrinking and classifying
  // the others (much faster when most cases differ).
  const classify = !args.includes('--count-only')
  const [casesArg, seedArg] = args.filter((a) => !a.startsWith('--'))
  const cases = Number(casesArg ?? 50000)
  const seed = Number(seedArg ?? Date.now() % 2 ** 31)
  const start = Date.now()
  const result = await run({
    cases,
    seed,
    classify,
    onClass: (c) => console.log(`${c.known ? 'known' : 'NEW'} class ${c.cls}: ${show(c.example)}`),
    onProgress: (p) =>
      console.error(
        `  ${p.tried} cases, ${p.identical} identical (${((100 * p.identical) / p.tried).toFixed(2)} %), ` +
          `${p.classes} classes, ${((Date.now() - start) / 1000).toFixed(0)} s`,
      ),
  })
  const unknown = result.classes.filter((c) => !c.known)
  const count = (verdict) => result.classes.filter((c) => c.known?.verdict === verdict).reduce((n, c) => n + c.count, 0)
  const follows = count('follows-xterm')
  const cannot = count('cannot')
  const pct = (n) => ((100 * n) / result.tried).toFixed(2)
  console.log(
    `differential fuzz (seed ${seed}): ${result.tried} cases in ${((Date.now() - start) / 1000).toFixed(1)} s, ` +
      `${result.identical} identical to xterm.js (${pct(result.identical)} %), ` +
      `${result.tried - result.identical} mismatches ` +
      (classify
        ? `in ${result.classes.length} classes (${unknown.length} not known); ` +
          `${follows} follow xterm where xterm.js departs from it, so ${pct(result.identical + follows)} % ` +
          `identical or following xterm; ${cannot} in classes ptypilot cannot show as xterm does`
        : '(not classified)'),
  )
  for (const c of result.classes.sort((a, b) => b.count - a.count)) {
    console.log(`  ${String(c.count).padStart(7)}  ${c.known ? `${c.known.verdict}:${c.known.id}` : 'NEW'}  ${c.cls}`)
  }
  process.exitCode = unknown.length ? 1 : 0
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
