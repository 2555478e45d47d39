// Screens recorded from a real xterm (fuzz/xterm-corpus.json, made by
// `node fuzz/xterm.mjs 2000 20261207 --corpus=fuzz/xterm-corpus.json` with
// Debian's xterm, patch #379, in UTF-8, at 80x25, 20x5, 10x3 and 132x10):
// ptypilot shows each one as xterm did, rows and cursor, the rows after NFC
// (xterm precomposes; ptypilot keeps the code points the program wrote, see
// DIFFERENCES.md). The minimal streams of the documented differences must
// still differ, so that a change there also changes DIFFERENCES.md. The
// entries that back a verdict of the xterm.js tier (`backs`, an id of
// fuzz/differential.mjs's KNOWN) must show otherwise in xterm.js, and every
// follows-xterm entry of KNOWN has one. Needs no X server.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ScreenModel } from '../index.js'
import { KNOWN, viaXterm } from '../fuzz/differential.mjs'

interface Entry {
  stream: string
  size: [cols: number, rows: number]
  xterm: string[]
  cursor: [row: number, col: number]
  known?: string | null
  backs?: string
}
const corpus: { xterm: string; entries: Entry[] } = JSON.parse(
  readFileSync(new URL('../fuzz/xterm-corpus.json', import.meta.url), 'utf8'),
)

/** Rows down to the last one shown, trailing spaces trimmed, NFC. */
function trimmed(lines: string[]): string[] {
  const rows = lines.map((l) => l.replace(/ +$/, '').normalize('NFC'))
  while (rows.length > 0 && rows[rows.length - 1] === '') rows.pop()
  return rows
}

/** What ptypilot shows: the rows and the cursor. */
function shown({ stream, size: [cols, rows] }: Entry) {
  const model = new ScreenModel({ cols, rows })
  model.write(Buffer.from(stream))
  const s = model.screen()
  return { rows: trimmed(s.lines), cursor: [s.cursor.row, s.cursor.col] }
}

const recorded = (e: Entry) => ({ rows: trimmed(e.xterm), cursor: e.cursor })
const label = (e: Entry) => `${e.size.join('x')} ${JSON.stringify(e.stream).slice(0, 60)}`

describe(`screens recorded from ${corpus.xterm}`, () => {
  const same = corpus.entries.filter((e) => !e.known)
  const known = corpus.entries.filter((e) => e.known)
  const backing = corpus.entries.filter((e) => e.backs)

  it('has streams of both kinds, at several sizes', () => {
    expect(same.length).toBeGreaterThan(150)
    expect(known.length).toBeGreaterThan(0)
    expect(new Set(same.map((e) => e.size.join('x'))).size).toBeGreaterThanOrEqual(4)
  })

  it.each(same.map((e, i) => [i, label(e), e] as const))('shows stream %i (%s) as xterm does', (_i, _label, entry) => {
    expect(shown(entry)).toEqual(recorded(entry))
  })

  it.each(known.map((e) => [e.known, label(e), e] as const))('differs as documented (%s): %s', (_id, _label, entry) => {
    expect(shown(entry)).not.toEqual(recorded(entry))
  })

  it('backs every follows-xterm verdict of the xterm.js tier with a recording', () => {
    const ids = new Set(KNOWN.filter((k) => k.verdict === 'follows-xterm').map((k) => k.id))
    expect([...ids].filter((id) => !backing.some((e) => e.backs === id))).toEqual([])
  })

  it.each(backing.map((e) => [e.backs, label(e), e] as const))(
    'xterm.js shows otherwise where ptypilot follows xterm (%s): %s',
    (_id, _label, entry) => {
      const theirs = viaXterm(Buffer.from(entry.stream), entry.size[0], entry.size[1])
      const view = theirs && { rows: trimmed(theirs.lines), cursor: theirs.cursor }
      expect(view).not.toEqual(recorded(entry))
    },
  )
})
