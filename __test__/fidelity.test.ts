// Fidelity: for the same bytes at the same size, ptypilot's screen shows what
// xterm.js (@xterm/headless) shows — row by row, plus the cursor, the
// alternate-screen flag and the title.
//
// The bytes reach ptypilot through a real pty: `cat` prints a fixture file
// with output post-processing off (`stty raw -opost`), so the terminal sees
// them exactly as they are in the file. Fixtures are outputs of real programs
// recorded with ptypilot (`__test__/fixtures/record.mjs`: vim, less, git,
// top, bash readline, a curses program) and small hand-written sequences, one
// per feature.
import { describe, it, expect, afterAll } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import headless from '@xterm/headless'
import { PtySession } from '../index.js'

const { Terminal } = headless

interface View {
  lines: string[]
  cursor: { row: number; col: number }
  altScreen: boolean
  title: string
}

const work = mkdtempSync(join(tmpdir(), 'ptypilot-fidelity-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** What @xterm/headless shows after `bytes`. */
async function viaXterm(bytes: Uint8Array, cols: number, rows: number): Promise<View> {
  // xterm keeps a title stack (XTWINOPS 22/23) by default; xterm.js only
  // with these window options.
  const term = new Terminal({
    cols,
    rows,
    scrollback: 1000,
    allowProposedApi: true,
    windowOptions: { pushTitle: true, popTitle: true },
  })
  let title = ''
  term.onTitleChange((t) => (title = t))
  await new Promise<void>((resolve) => term.write(bytes, resolve))
  const buffer = term.buffer.active
  const lines: string[] = []
  for (let i = 0; i < rows; i++) {
    // xterm keeps spaces a program wrote at the end of a row; ptypilot trims
    // every trailing blank. Compare without them.
    lines.push((buffer.getLine(buffer.baseY + i)?.translateToString(true) ?? '').replace(/ +$/, ''))
  }
  const view = {
    lines,
    // With a wrap pending after the last column xterm.js reports cursorX ===
    // cols; ptypilot reports the last column, where the cursor is shown.
    cursor: { row: buffer.cursorY, col: Math.min(buffer.cursorX, cols - 1) },
    altScreen: buffer.type === 'alternate',
    title,
  }
  term.dispose()
  return view
}

let fileCount = 0

/** What ptypilot shows after a program printed `bytes` to its terminal. */
async function viaPtypilot(bytes: Uint8Array, cols: number, rows: number): Promise<View> {
  const file = join(work, `fixture-${fileCount++}.out`)
  writeFileSync(file, bytes)
  const session = PtySession.spawn({
    command: 'sh',
    args: ['-c', 'stty raw -echo -opost && cat "$1"', 'sh', file],
    cols,
    rows,
  })
  const exit = await session.exited
  expect(exit.exitCode).toBe(0)
  const screen = session.screen()
  expect(screen.lines).toHaveLength(rows)
  return {
    lines: screen.lines,
    cursor: { row: screen.cursor.row, col: screen.cursor.col },
    altScreen: screen.altScreen,
    title: screen.title,
  }
}

async function compare(bytes: Uint8Array | string, cols = 80, rows = 24) {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes
  const [ours, theirs] = await Promise.all([viaPtypilot(data, cols, rows), viaXterm(data, cols, rows)])
  return { ours, theirs }
}

async function expectSameScreen(bytes: Uint8Array | string, cols = 80, rows = 24) {
  const { ours, theirs } = await compare(bytes, cols, rows)
  expect(ours.lines).toEqual(theirs.lines)
  expect(ours.cursor).toEqual(theirs.cursor)
  expect(ours.altScreen).toBe(theirs.altScreen)
  expect(ours.title).toBe(theirs.title)
  return ours
}

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', `${name}.out`))

describe('recorded real programs at 80x24', () => {
  it('vim: syntax colours, jumps, scrolling, insert/delete lines, split windows (alternate screen)', async () => {
    const ours = await expectSameScreen(fixture('vim'))
    expect(ours.altScreen).toBe(true)
    expect(ours.lines.join('\n')).toContain('new text 日本 é')
  })

  it('vim from a shell to :wq: the shell screen comes back', async () => {
    const ours = await expectSameScreen(fixture('vim-exit'))
    expect(ours.altScreen).toBe(false)
    expect(ours.lines).toContain('before vim 3')
  })

  it('less: paging forward and back (reverse index), a search, wrapped and tabbed lines', async () => {
    const ours = await expectSameScreen(fixture('less'))
    expect(ours.altScreen).toBe(true)
  })

  it('git: coloured graph log, diff and stat', async () => {
    const ours = await expectSameScreen(fixture('git'))
    expect(ours.lines).toContain('| * bc713bb (topic) topic work')
    expect(ours.lines).toContain(' a.txt | 3 ++-')
  })

  it('top: one interactive frame', async () => {
    const ours = await expectSameScreen(fixture('top'))
    expect(ours.lines.join('\n')).toMatch(/PID\s+USER/)
  })

  it('bash readline: coloured prompt, editing mid-line, a line longer than the screen, history', async () => {
    const ours = await expectSameScreen(fixture('readline'))
    expect(ours.lines.at(-1)).toBe('~/proj λ')
  })

  it('curses: boxes in DEC line drawing, colours, a scrolling window', async () => {
    const ours = await expectSameScreen(fixture('curses'))
    expect(ours.lines[0]).toMatch(/^┌── curses ─+┐$/)
    expect(ours.lines).toContain('│   └──────────────────────────────────┘                                       │')
  })

  it('the same recording at another size', async () => {
    await expectSameScreen(fixture('git'), 40, 10)
    await expectSameScreen(fixture('readline'), 100, 30)
  })
})

const E = '\x1b'
const rows24 = (prefix: string) => Array.from({ length: 24 }, (_, i) => `${prefix}${i}`).join('\r\n')

describe('features, one sequence each', () => {
  const cases: [string, string][] = [
    ['colours and attributes', `${E}[1;31mred${E}[0m ${E}[38;5;208morange${E}[m ${E}[38;2;1;2;3mrgb${E}[7minverse${E}[0m\r\n${E}[44m${E}[Kbg line${E}[m`],
    ['cursor movement', `hello world${E}[1;7H${E}[KWORLD${E}[5;3Hx${E}[2Ay${E}[3Bz${E}[10Cq${E}[4Dw${E}[Ee${E}[Ff${E}[30Gg${E}[7dh${E}[12\`i`],
    ['save and restore cursor (DECSC, SCOSC)', `${E}[3;3H${E}7${E}[10;10Hx${E}8y${E}[s${E}[15;15Hz${E}[uw`],
    ['scroll region: line feed at the bottom, reverse index at the top, SU/SD', `${rows24('row')}${E}[5;10r${E}[10;1H\nnew1\nnew2${E}[5;1H${E}Mtop${E}[2Sxx${E}[1Tyy${E}[r`],
    ['scroll region: writing past it and the whole screen scrolling', `${E}[2;5r${E}[2;1Ha\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng${E}[r${E}[24;1Hbottom\r\nscrolled`],
    ['origin mode', `${E}[5;10r${E}[?6h${E}[1;1Ho${E}[20;1Hbottom${E}[?6l${E}[r`],
    ['alternate screen 1049: enter, draw, leave', `main text${E}[?1049halt text${E}[5;5Hmore${E}[?1049lback`],
    ['alternate screen 1049 keeps the cursor column on entry', `main${E}[?1049hfull`],
    ['alternate screen 1047 and 47', `main text${E}[?1047halt1047${E}[?1047l 1047${E}[?47halt47${E}[?47l 47`],
    ['alternate screen 1047 left on', `main text${E}[?1047halt1047`],
    ['mode 1048 saves the cursor', `${E}[3;4H${E}[?1048h${E}[10;10Hx${E}[?1048ly`],
    ['wide characters and combining marks', `日本語 e\u0301x 한국어 a\u0300\u0301\r\n${E}[2;79H日x\r\n${'x'.repeat(79)}日`],
    ['overwriting half of a wide character', `日本語${E}[1;2Hx${E}[2;1H日本語${E}[2;3H${E}[1P${E}[3;1H日本${E}[3;1H${E}[1@`],
    ['erase in line', `${'1234567890'.repeat(3)}${E}[1;5H${E}[1K${E}[2;1H${'abcdef'.repeat(5)}${E}[2;10H${E}[K${E}[3;1H${'xyz'.repeat(10)}${E}[3;5H${E}[2K${E}[4;1Hhello world${E}[4;3H${E}[4X`],
    ['erase in display', `one\r\ntwo\r\nthree\r\nfour${E}[2;2H${E}[J${E}[1;3H${E}[1J${E}[5;1Hfive${E}[3J`],
    ['erase the whole display', `one\r\ntwo${E}[2J after`],
    ['insert and delete lines and characters', `1\r\n2\r\n3\r\n4\r\n5\r\n6${E}[2;1H${E}[2L${E}[6;1H${E}[1M${E}[1;1Habcdef${E}[1;2H${E}[2P${E}[1;1H${E}[3@`],
    ['insert and delete lines inside a scroll region', `${rows24('r')}${E}[3;8r${E}[4;1H${E}[2L${E}[6;1H${E}[3M${E}[r`],
    ['tabs at the default stops', `a\tb\tc\r\n\tx\r\n${'y'.repeat(77)}\tz`],
    ['tab stops set, cleared and moved by (HTS, TBC, CHT, CBT)', `${E}[3g${E}[5G${E}H${E}[11G${E}H\r1\t2\t3\r\n${E}[9G${E}[g\r\t\tA${E}[ZB${E}[2IC`],
    ['auto-wrap at the right margin', `${'a'.repeat(80)}b\r\n${'c'.repeat(80)}\r\nd${E}[6;1H${'e'.repeat(79)}日x`],
    ['moves from the right margin (backspace, line feed, cursor keys)', `${'p'.repeat(80)}\b!\r\n${'q'.repeat(80)}\ny\r\n\r\n${'r'.repeat(80)}${E}[Ax${E}[5;1H${'s'.repeat(80)}${E}[2D!`],
    ['auto-wrap off (DECAWM)', `${E}[?7l${'f'.repeat(85)}g${E}[?7h\r\nh${'i'.repeat(85)}`],
    ['insert mode (IRM)', `abcdef${E}[1;3H${E}[4hXY日e\u0301${E}[4lZ\r\n${'x'.repeat(78)}${E}[2;5H${E}[4hAB${E}[4l`],
    ['DEC line drawing character sets, SO/SI', `${E}(0lqqk${E}(B x\r\n${E})0a\x0elqwqk\x0fq\r\nx#`],
    ['index and next line (IND, NEL)', `a${E}Eb${E}Dc${E}[24;1Hlast${E}D${E}Dx`],
    ['repeat the last character (REP)', `a${E}[5bb${E}[3b`],
    ['screen alignment pattern (DECALN)', `${E}#8`],
    ['full reset (RIS)', `garbage${E}(0q${E}cclean q`],
    ['title stack (XTWINOPS 22/23)', `${E}]2;shell${E}\\${E}[22;0t${E}]2;vim${E}\\${E}[22t${E}]0;third\x07${E}[23;2tx${E}[23;0t`],
    ['window title (OSC 0 and 2) and other strings', `${E}]0;first\x07${E}]2;second${E}\\${E}]8;;http://example.com\x07link${E}]8;;\x07 ${E}P1$r0m${E}\\done`],
    ['strings that look like sequences, in line-drawing mode', `${E}(0q${E}Px\x07qq(0${E}\\q${E}]0;(B\x07q${E}_[4h${E}\\q${E}(B q`],
    ['line feed without carriage return and a bare carriage return', `a\nb\rc\r\n\x0bv\x0cf`],
    ['scroll margins home the cursor; margins that are not valid change nothing (DECSTBM)', `${rows24('m')}${E}[10;5Hx${E}[3;9ry${E}[12;12H${E}[9;3rz${E}[9;9r${E}[?6h${E}[5;5r!${E}[?6l${E}[r`],
    ['inserting and deleting lines returns the carriage inside the margins only (IL, DL)', `${rows24('l')}${E}[5;7H${E}[L${E}[9;4H${E}[2Mx${E}[3;6r${E}[10;5H${E}[Ly${E}[4;5H${E}[Mz${E}[r`],
    ['relative moves by HPR and VPR (CSI a, CSI e)', `${E}[3;4r${E}[2;2Ha${E}[5ab${E}[30ec${E}[200ad${E}[?6h${E}[1;1H${E}[9ee${E}[?6l${E}[r`],
    ['REP only right after a printed character', `a${E}[3bb${E}[1m${E}[3b
c
${E}[2b
d${E}]0;t${E}[2be${E}[2b`],
    ['new line mode (LNM): line feeds return the carriage', `${E}[20habc
defghijkl${E}[20l
mno`],
    ['a U+FFFD the program printed is drawn', `ok � x
${E}[4h�in${E}[4l
��`],
    ['scroll left and right, insert and delete columns (SL, SR, DECIC, DECDC)', `${rows24('0123456789')}${E}[2;20r${E}[3;3H${E}[2 @${E}[1 A${E}[4;5H${E}[3'}${E}[6;2H${E}[2'~${E}[1;1H${E}[5 @${E}[r`],
    ['tab moves wait while a wrap is pending (CHT, CBT); colours keep the wrap pending', `${'t'.repeat(80)}${E}[2I!
${'u'.repeat(80)}${E}[Z?

${'v'.repeat(80)}${E}[31mw${E}[m
${'x'.repeat(80)}${E}[1m${E}[2Dy`],
    ['a VS16 after a narrow character stays in its cell, one column wide', `a\u263a\ufe0fb #\ufe0f\u20e3c \u2764\ufe0f${E}[2;80H\u263a\ufe0f${E}[3;1Hx`],
    ['CUU, CUD, CPL and CNL from outside the scroll region stop at the margin ahead', `${E}[8;21r${E}[1;5H${E}[73Ea${E}[24;3H${E}[30Fb${E}[1;9H${E}[25Bc${E}[24;12H${E}[40Ad${E}[2;2H${E}[3Ae${E}[r`],
    ['cursors and character sets saved on each screen apart', `${E}(0${E}[3;3H${E}[?1049h${E}(B${E}[5;5H${E}7x${E}[?1049lq${E}8q`],
    ['DECSTR resets the saved cursor to home', `xy${E}7${E}[!p${E}8z`],
    ['insert mode with a wrap pending wraps, then inserts on the next row', `${E}[2;1H${'q'.repeat(10)}${E}[1;79H${E}[4habc${E}[4l`],
    ['REP through insert mode, no auto-wrap and line drawing', `${E}[?7lhel${E}[90b${E}[?7h\r\n${E}(0q${E}[3b${E}(B\r\nxyz\r${E}[4ha${E}[2b${E}[4l`],
    ['auto-wrap off: a wide character at the last column is dropped, a combining mark joins the last one', `${E}[?7l${'x'.repeat(79)}日${E}[2;1H${'y'.repeat(79)}e\u0301${E}[?7h`],
    ['insert mode makes room as wide as the character (a U+FFFD on a full row)', `${'x'.repeat(78)}yz\r${E}[4h\ufffd${E}[4l`],
    ['VPA in origin mode counts from the top margin', `${E}[8;17r${E}[?6h${E}[5dx${E}[81dy${E}[?6l${E}[r`],
  ]
  it.each(cases)('%s', async (_name, bytes) => {
    await expectSameScreen(bytes)
  })

  // A wrap pending after a character in the last column, at 20x5.
  const w = (c: string) => c.repeat(20)
  const wrapCases: [string, string][] = [
    ['a tab where a wrap is pending keeps it pending (HT, CHT)', `${w('t')}\tX\r\n${w('u')}${E}[3IY`],
    ['VPA where a wrap is pending ends it', `${w('v')}${E}[3dX`],
    ['scrolling (SD, SU) keeps a pending wrap; backspace then starts from the last column', `\r\n${w('s')}${E}[T\bX${E}[4;1H${w('t')}${E}[S\bY`],
    ['a soft reset (DECSTR) keeps a pending wrap', `${w('w')}${E}[!pX`],
    ['scrolling left or right (SL, SR) keeps a pending wrap', `${w('r')}${E}[2 AX\r\n\n${w('l')}${E}[ @Y`],
    ['switching to the alternate screen and back (47) keeps a pending wrap', `${w('a')}${E}[?47hX${E}[3;1H${w('b')}${E}[?47lY`],
    ['a line feed after a restored cursor starts from the last column (DECRC, 1048)', `${w('s')}${E}7${E}[3;3H${E}8\nX${E}[4;1H${w('t')}${E}[?1048h${E}[1;1H${E}[?1048l\nY`],
    ['reverse index above the top margin moves up, scrolling nothing (DECSTBM with a default top)', `${E}[2;4r${E}[3;1Hmid${E}[1;5HA${E}M${E}[;3r${E}[1;1H${E}MB`],
    ['backspace with reverse wraparound (mode 45) goes back over a wrapped row, not an unwrapped one', `${E}[?45h${'b'.repeat(22)}\b\b\bX\r\n\r\nc\r\bY`],
    ['insert mode with a wrap pending marks the row wrapped: backspace with reverse wraparound goes back over it', `${E}[?45h${E}[4h${'i'.repeat(20)}xy\r\bZ`],
    ['inserting inside a wide character blanks it (ICH, DECIC)', `日本語${E}[1;4H${E}[2@\r\n한국어${E}[2;2H${E}[1'}`],
    // xterm since patch #380 (2023): mode 45 goes back only over a row that
    // wrapped and stops at the home position (before it, xterm wrapped on to
    // the end of the screen and up over any row, as mode 1045 does now).
    ['reverse wraparound (mode 45) from the home position stays there; from column 0 of a row that did not wrap it stays too', `${E}[?45hfirst\r\nsecond${E}[H\b\bthe end\r\n\b\breally!`],
    // xterm's DECRC sets the wrap flag to the saved one (patch #328), so a
    // cursor saved with no wrap pending ends one that is pending, on either
    // screen.
    ['restoring a cursor saved with no wrap pending ends a pending wrap (DECRC, SCORC, on both screens)', `x${E}7${E}[2;1H${w('p')}${E}8Y${E}[3;2H${E}[s${E}[4;1H${w('q')}${E}[uZ${E}[?1049hx${E}7${E}[2;1H${w('p')}${E}8Y${E}[3;2H${E}[s${E}[4;1H${w('q')}${E}[uZ`],
  ]
  it.each(wrapCases)('%s', async (_name, bytes) => {
    await expectSameScreen(bytes, 20, 5)
  })

  it('a small screen scrolls and wraps the same', async () => {
    await expectSameScreen(`${'0123456789'.repeat(5)}\r\n${rows24('line ')}${E}[2;3Hx`, 20, 5)
  })
})

/**
 * Where xterm.js departs from xterm, ptypilot shows what xterm shows: the
 * expected screens below are written by hand from xterm's documentation
 * (ctlseqs, "XTerm Control Sequences") and DEC's, as cited in each case;
 * xterm.js is checked to show otherwise, which pins the departure.
 * `rows` lists the rows that are not blank.
 */
describe('where xterm.js departs from xterm, ptypilot follows xterm', () => {
  const cases: {
    name: string
    cite: string
    bytes: string
    size?: [cols: number, rows: number]
    rows: Record<number, string>
    cursor: [row: number, col: number]
  }[] = [
    {
      name: 'erasing where a wrap is pending takes the last column and ends the wrap (EL, ED)',
      cite: 'ctlseqs CSI Ps K (EL) and CSI Ps J (ED): erase from the cursor, which a pending wrap leaves on the last column (DECAWM); xterm.js issue 3362',
      bytes: `${'e'.repeat(20)}${E}[KX\r\n${'f'.repeat(20)}${E}[0JY`,
      rows: { 0: `${'e'.repeat(19)}X`, 1: `${'f'.repeat(19)}Y` },
      cursor: [1, 19],
    },
    {
      name: 'CBT where a wrap is pending leaves the cursor on the tab stop',
      cite: 'ctlseqs CSI Ps Z (CBT): Cursor Backward Tabulation Ps tab stops',
      bytes: `${'c'.repeat(20)}${E}[Z`,
      rows: { 0: 'c'.repeat(20) },
      cursor: [0, 16],
    },
    {
      name: 'DECIC and DECDC where a wrap is pending act on the last column',
      cite: 'ctlseqs CSI Ps \' } (DECIC) and CSI Ps \' ~ (DECDC) act at the cursor column, the last one with a wrap pending',
      bytes: `${'x'.repeat(20)}\r\n${'y'.repeat(20)}${E}['}Z`,
      rows: { 0: 'x'.repeat(19), 1: 'y'.repeat(19), 2: 'Z' },
      cursor: [2, 1],
    },
    {
      name: 'IL and DL outside the scroll margins leave a pending wrap pending',
      cite: 'ctlseqs CSI Ps L (IL), CSI Ps M (DL): no effect outside the scroll margins (DECSTBM)',
      bytes: `${E}[1;3r${E}[5;1H${'i'.repeat(20)}${E}[LX`,
      rows: { 4: `X${'i'.repeat(19)}` },
      cursor: [4, 1],
    },
    {
      name: 'a cursor saved where a wrap is pending is restored with the wrap pending (DECSC/DECRC, SCOSC/SCORC, 1048)',
      cite: 'ctlseqs ESC 7 (DECSC) / ESC 8 (DECRC), CSI s / CSI u, CSI ? 1048 h/l; DEC STD 070 keeps the Last Column Flag with the saved cursor',
      bytes: `${'s'.repeat(20)}${E}7${E}[4;4H${E}8X${E}[3;1H${'t'.repeat(20)}${E}[s${E}[1;1H${E}[uY`,
      rows: { 0: 's'.repeat(20), 1: 'X', 2: 't'.repeat(20), 3: 'Y' },
      cursor: [3, 1],
    },
    {
      name: 'on the main screen, a cursor saved with a wrap pending (DECSC/DECRC), then a line feed, text and SU, is restored with the wrap pending: the next character goes to the next row',
      cite: 'xterm patch #328: DECRC restores the last-column flag saved with the cursor (xterm\'s CursorSave/CursorRestore, wrap_flag); DEC STD 070 keeps the Last Column Flag with the saved cursor',
      bytes: `${'r'.repeat(20)}${E}7\nmid${E}[S${E}8^`,
      rows: { 0: `${' '.repeat(19)}m`, 1: '^d' },
      cursor: [1, 1],
    },
    {
      name: 'on the main screen, a cursor saved with a wrap pending (SCOSC/SCORC), then a line feed, text and SU, is restored with the wrap pending: the next character goes to the next row',
      cite: 'xterm patch #328: DECRC restores the last-column flag saved with the cursor (xterm\'s CursorSave/CursorRestore, wrap_flag); DEC STD 070 keeps the Last Column Flag with the saved cursor',
      bytes: `${'r'.repeat(20)}${E}[s\nmid${E}[S${E}[u^`,
      rows: { 0: `${' '.repeat(19)}m`, 1: '^d' },
      cursor: [1, 1],
    },
    {
      name: 'on the alternate screen, a cursor saved with a wrap pending (DECSC/DECRC), then a line feed, text and SU, is restored with the wrap pending: the next character goes to the next row',
      cite: 'xterm patch #328: DECRC restores the last-column flag saved with the cursor (xterm\'s CursorSave/CursorRestore, wrap_flag); DEC STD 070 keeps the Last Column Flag with the saved cursor',
      bytes: `${E}[?1049h${'r'.repeat(20)}${E}7\nmid${E}[S${E}8^`,
      rows: { 0: `${' '.repeat(19)}m`, 1: '^d' },
      cursor: [1, 1],
    },
    {
      name: 'on the alternate screen, a cursor saved with a wrap pending (SCOSC/SCORC), then a line feed, text and SU, is restored with the wrap pending: the next character goes to the next row',
      cite: 'xterm patch #328: DECRC restores the last-column flag saved with the cursor (xterm\'s CursorSave/CursorRestore, wrap_flag); DEC STD 070 keeps the Last Column Flag with the saved cursor',
      bytes: `${E}[?1049h${'r'.repeat(20)}${E}[s\nmid${E}[S${E}[u^`,
      rows: { 0: `${' '.repeat(19)}m`, 1: '^d' },
      cursor: [1, 1],
    },
    {
      name: 'extended reverse wraparound (mode 1045) from the home position goes on from the last column of the bottom row, and from the top margin from the bottom margin',
      cite: 'ctlseqs CSI ? 1045 h (XTREVWRAP2); xterm\'s CursorBack: with mode 1045 the cursor goes round from the top margin (ScrnTopMargin) to the bottom one (ScrnBottomMargin)',
      bytes: `${E}[?1045h${E}[H\bX${E}[2;4r${E}[2;1H\bY`,
      rows: { 3: `${' '.repeat(19)}Y`, 4: `${' '.repeat(19)}X` },
      cursor: [3, 19],
    },
    {
      name: 'reverse wraparound (mode 45) at the left edge above the scroll region goes to the top margin',
      cite: 'xterm\'s CursorBack: past the left margin, a row at or above the top margin (ScrnTopMargin, the margin itself) ends the way back on the top margin\'s row; ctlseqs CSI ? 45 h (XTREVWRAP)',
      bytes: `${E}[3;4r${E}[?45h${E}[1;1H\bX`,
      rows: { 2: 'X' },
      cursor: [2, 1],
    },
    {
      name: 'extended reverse wraparound (mode 1045) from the first row, above the scroll region, goes on from the end of the screen',
      cite: 'xterm\'s CursorBack with mode 1045 goes up from any row, round from the top margin only; from the first row above the region xterm\'s cursor leaves the screen, and ptypilot goes on from the end of the screen as the original mode 45 did, which mode 1045 imitates (xterm patch #383)',
      bytes: `${E}[3;4r${E}[?1045h${E}[1;1H\bX`,
      rows: { 4: `${' '.repeat(19)}X` },
      cursor: [4, 19],
    },
    {
      name: 'reverse wraparound (mode 45) from below the scroll region goes back over wrapped rows and stops on the top margin',
      cite: 'xterm\'s CursorBack: the rows above are followed while they wrapped, up to the top margin (ScrnTopMargin) wherever the cursor started; ctlseqs CSI ? 45 h (XTREVWRAP), for BS and CUB',
      bytes: `${E}[?45h${'w'.repeat(90)}${E}[2;3r${E}[5;11H${E}[80DX`,
      rows: { 0: 'w'.repeat(20), 1: `X${'w'.repeat(19)}`, 2: 'w'.repeat(20), 3: 'w'.repeat(20), 4: 'w'.repeat(10) },
      cursor: [1, 1],
    },
    {
      name: 'entering the alternate screen with 1049 clears it, which ends a pending wrap',
      cite: 'ctlseqs CSI ? 1049 h: save the cursor, switch to the alternate screen, clearing it first',
      bytes: `${'a'.repeat(20)}${E}[?1049hX`,
      rows: { 0: `${' '.repeat(19)}X` },
      cursor: [0, 19],
    },
    {
      name: '1049 set while on the alternate screen saves the cursor and clears the screen',
      cite: 'ctlseqs CSI ? 1049 h: save cursor as in DECSC, switch to the alternate screen, clearing it first',
      bytes: `${E}[?1049halt${E}[?1049hX`,
      rows: { 0: '   X' },
      cursor: [0, 4],
    },
    {
      name: 'the alternate screen shows again what it showed when 47 left it',
      cite: 'ctlseqs CSI ? 47 h: use the alternate screen buffer (only 1047 leaving and 1049 entering clear it)',
      bytes: `ab${E}[?47hxy${E}[?47l${E}[?47h!`,
      rows: { 0: '  xy!' },
      cursor: [0, 5],
    },
    {
      name: 'both screens share the scroll margins and origin mode',
      cite: 'ctlseqs CSI Ps ; Ps r (DECSTBM) and CSI ? 6 h (DECOM) set the terminal state, which the screen switches (CSI ? 47/1047/1049 h) do not change',
      bytes: `${E}[2;3r${E}[?1049h${E}[3;1HA\r\nB\r\nC${E}[?6h${E}[1;5HO`,
      rows: { 1: 'B   O', 2: 'C' },
      cursor: [1, 5],
    },
    {
      name: 'both screens share the tab stops',
      cite: 'ctlseqs ESC H (HTS), CSI 3 g (TBC) set the terminal\'s tab stops; the screen switches (CSI ? 1049 h) do not change them',
      bytes: `${E}[3g${E}[5G${E}H${E}[?1049h\r\tX`,
      rows: { 0: '    X' },
      cursor: [0, 5],
    },
    {
      name: 'extended reverse wraparound (mode 1045) goes back over any row',
      cite: 'ctlseqs CSI ? 1045 h: Extended Reverse-wraparound mode (XTREVWRAP2)',
      bytes: `${E}[?1045habc\r\n\bX`,
      rows: { 0: `abc${' '.repeat(16)}X` },
      cursor: [0, 19],
    },
    {
      name: 'CUB with reverse wraparound goes back over a wrapped row as backspace does',
      cite: 'ctlseqs CSI ? 45 h: Reverse-wraparound mode (XTREVWRAP), for the cursor-backward controls (BS, CUB)',
      bytes: `${E}[?45h${'b'.repeat(22)}${E}[4DX`,
      rows: { 0: `${'b'.repeat(18)}Xb`, 1: 'bb' },
      cursor: [0, 19],
    },
    {
      name: 'reverse wraparound needs auto-wrap: with DECAWM off backspace is the plain one, at the left edge and from a pending wrap',
      cite: 'ctlseqs CSI ? 45 h (XTREVWRAP, Reverse-wraparound mode) with CSI ? 7 l (DECAWM off); xterm\'s CursorBack reverse-wraps only with both modes set',
      bytes: `${E}[?45h${'w'.repeat(22)}\r${E}[?7l\bY${E}[3;1H${'n'.repeat(20)}\bX`,
      rows: { 0: 'w'.repeat(20), 1: 'Yw', 2: `${'n'.repeat(18)}Xn` },
      cursor: [2, 19],
    },
    {
      name: 'reverse wraparound goes up when the row above wrapped, after a line was inserted below it',
      cite: 'ctlseqs CSI ? 45 h (XTREVWRAP): backspace at the left margin continues at the end of the row above when that row wrapped; CSI Ps L (IL) moves the rows below it, not its wrap',
      bytes: `${E}[?45h${'a'.repeat(21)}${E}[L\r\bX`,
      rows: { 0: `${'a'.repeat(19)}X`, 2: 'a' },
      cursor: [0, 19],
    },
    {
      name: 'reverse wraparound stays when the row above did not wrap, after the wrapped row was deleted',
      cite: 'ctlseqs CSI ? 45 h (XTREVWRAP): backspace at the left margin goes up only over a row that wrapped; CSI Ps M (DL) deleted that row',
      bytes: `${E}[?45hx\r\n${'c'.repeat(21)}${E}[2;1H${E}[M\r\bZ`,
      rows: { 0: 'x', 1: 'Z' },
      cursor: [1, 1],
    },
    {
      name: 'reverse wraparound goes up over a wrapped row after a line feed came onto its continuation',
      cite: 'ctlseqs CSI ? 45 h (XTREVWRAP): backspace at the left margin continues at the end of the row above when that row wrapped; LF (IND) moves the cursor only',
      bytes: `${E}[?45h${'l'.repeat(21)}\r${E}[A\n\bX`,
      rows: { 0: `${'l'.repeat(19)}X`, 1: 'l' },
      cursor: [0, 19],
    },
    {
      name: 'a wide character that does not fit leaves the last column as it was when it wraps',
      cite: 'ctlseqs DECAWM: a character that does not fit wraps to the next line; nothing is written in the column left over',
      bytes: `${'z'.repeat(20)}${E}[1;20H日`,
      rows: { 0: 'z'.repeat(20), 1: '日' },
      cursor: [1, 2],
    },
    {
      name: 'auto-wrap off: a character written over half of a wide character blanks it',
      cite: 'ctlseqs CSI ? 7 l (DECAWM off): characters at the right margin replace the last column; overwriting part of a double-width character blanks the rest of it',
      bytes: `${E}[?7l${'a'.repeat(18)}日q`,
      rows: { 0: `${'a'.repeat(18)} q` },
      cursor: [0, 19],
    },
    {
      name: 'a combining character with nothing printed before it joins the character under the cursor, or is dropped where the cell is empty',
      cite: 'recorded from xterm 379 (fuzz/xterm.mjs): a mark after a cursor move joins the cell at the cursor; on a never-written cell nothing shows and the cursor stays',
      bytes: `abc\r\u0301${E}[2;5H\u0301x`,
      rows: { 0: 'a\u0301bc', 1: '    x' },
      cursor: [1, 5],
    },
    {
      name: 'C1 controls written as UTF-8 are neither acted on nor shown',
      cite: 'recorded from xterm 379 with -u8 and allowC1Printable off (its default): A U+0085 B shows AB, A U+009B 2CB shows A2CB',
      bytes: 'A\u0085B\u009b2C\u0090x\u009c',
      rows: { 0: 'AB2Cx' },
      cursor: [0, 5],
    },
    {
      name: 'ESC ( A with NRC mode off shows the upper half of Latin-1',
      cite: 'recorded from xterm 379: ESC ( A hello # shows èåììï, a no-break space and £',
      bytes: `${E}(Ajx #${E}(B#`,
      rows: { 0: 'êø\u00a0£#' },
      cursor: [0, 5],
    },
    {
      name: 'REP repeats the preceding character without the combining marks joined to it',
      cite: 'ctlseqs CSI Ps b (REP): "Repeat the preceding graphic character Ps times"; a combining character joins the cell before it ("UTF-8 mode") and is not a graphic character of its own, so xterm repeats the base character',
      bytes: `e\u0301${E}[2b\r\n\u65e5\u0301${E}[2b`,
      rows: { 0: 'e\u0301ee', 1: '\u65e5\u0301\u65e5\u65e5' },
      cursor: [1, 6],
    },
    {
      name: 'DECALN resets origin mode and the colours, and the margins',
      cite: 'ctlseqs ESC # 8 (DECALN); DEC STD 070: the margins are reset and the cursor homed, origin mode off',
      bytes: `${E}[?6h${E}[31m${E}#8${E}[2;3r${E}[1;1HX`,
      rows: { 0: `X${'E'.repeat(19)}`, 1: 'E'.repeat(20), 2: 'E'.repeat(20), 3: 'E'.repeat(20), 4: 'E'.repeat(20) },
      cursor: [0, 1],
    },
    {
      name: 'left and right margins: text wraps at the right margin to the left one, carriage return goes to the left margin',
      cite: 'ctlseqs CSI ? 69 h (DECLRMM) and CSI Pl ; Pr s (DECSLRM, which homes the cursor); VT420/DEC STD 070: with auto-wrap the cursor wraps from the right margin to the left margin of the next line',
      bytes: `${E}[?69h${E}[3;6sabcdefghij\r\nX`,
      size: [10, 4],
      rows: { 0: 'abcdef', 1: '  ghij', 2: '  X' },
      cursor: [2, 3],
    },
    {
      name: 'left and right margins: SU scrolls only between them',
      cite: 'ctlseqs CSI Ps S (SU) scrolls the scrolling region, bounded by DECSTBM and, with DECLRMM, by DECSLRM',
      bytes: `0123456789\r\n0123456789\r\n0123456789${E}[?69h${E}[3;6s${E}[1;3H${E}[2S`,
      size: [10, 4],
      rows: { 0: '0123456789', 1: '01    6789', 2: '01    6789' },
      cursor: [0, 2],
    },
    {
      name: 'left and right margins: ICH shifts characters only up to the right margin',
      cite: 'ctlseqs CSI Ps @ (ICH): characters right of the cursor shift right, to the right margin with DECLRMM set',
      bytes: `0123456789${E}[?69h${E}[3;6s${E}[1;4H${E}[2@X`,
      size: [10, 4],
      rows: { 0: '012X 36789' },
      cursor: [0, 4],
    },
    {
      name: 'left and right margins: IL and DL act between them, from the cursor row, and return to the left margin',
      cite: 'ctlseqs CSI Ps L (IL), CSI Ps M (DL): within the margins, the cursor to the left margin',
      bytes: `aaaaaaaaaa\r\nbbbbbbbbbb\r\ncccccccccc${E}[?69h${E}[2;5s${E}[2;3H${E}[MX`,
      size: [10, 4],
      rows: { 0: 'aaaaaaaaaa', 1: 'bXccc'.padEnd(5) + 'bbbbb', 2: 'c    ccccc' },
      cursor: [1, 2],
    },
  ]
  it.each(cases)('$name ($cite)', async ({ bytes, size, rows, cursor }) => {
    const [cols, height] = size ?? [20, 5]
    const expected = Array.from({ length: height }, (_, i) => rows[i] ?? '')
    const { ours, theirs } = await compare(bytes, cols, height)
    expect(ours.lines).toEqual(expected)
    expect([ours.cursor.row, ours.cursor.col]).toEqual(cursor)
    // xterm.js shows otherwise (the departure this case is about).
    expect(theirs.lines.join('\n') === expected.join('\n') && theirs.cursor.row === cursor[0] && theirs.cursor.col === cursor[1]).toBe(false)
  })
})

// Where vt100 and xterm.js genuinely differ. Each test pins the difference,
// so a fix in either shows up here, and asserts that the rest agrees.
describe('known differences from xterm.js', () => {
  it('emoji: xterm.js gives them one column (Unicode 6 widths)', async () => {
    const { ours, theirs } = await compare('👨‍👩‍👧 x ☺️y')
    expect(theirs.lines[0]).toBe('👨‍👩‍👧 x ☺️y')
    // The selector after ☺ stays in its one-column cell, as in xterm.js;
    // the joiners are left out of the cells, as in xterm 379.
    expect(ours.lines[0]).toBe('👨👩👧 x ☺️y')
    expect(ours.lines.slice(1)).toEqual(theirs.lines.slice(1))
    // Each of the three emoji is two columns here (Unicode 9 and later).
    expect(ours.cursor.col).toBe(theirs.cursor.col + 3)
  })
})
