// Screens recorded from a real xterm (fuzz/xterm-corpus.json, made by
// `node fuzz/xterm.mjs 1000 20261207 --corpus=fuzz/xterm-corpus.json` with
// Debian's xterm, patch #379, at 80x25 in UTF-8): ptypilot shows each one
// as xterm did, after NFC (xterm precomposes; ptypilot keeps the code
// points the program wrote, see DIFFERENCES.md). The minimal streams of the
// documented differences must still differ, so that a change there also
// changes DIFFERENCES.md. Needs no X server.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ScreenModel } from '../index.js'

interface Entry {
  stream: string
  xterm: string[]
  known?: string | null
}
const corpus: { xterm: string; cols: number; rows: number; entries: Entry[] } = JSON.parse(
  readFileSync(new URL('../fuzz/xterm-corpus.json', import.meta.url), 'utf8'),
)

/** ptypilot's rows down to the last one shown, trailing spaces trimmed, NFC. */
function shown(stream: string): string[] {
  const model = new ScreenModel({ cols: corpus.cols, rows: corpus.rows })
  model.write(Buffer.from(stream))
  const rows = model.screen().lines.map((l: string) => l.replace(/ +$/, '').normalize('NFC'))
  while (rows.length > 0 && rows[rows.length - 1] === '') rows.pop()
  return rows
}

const nfc = (rows: string[]) => rows.map((l) => l.normalize('NFC'))

describe(`screens recorded from ${corpus.xterm}`, () => {
  const same = corpus.entries.filter((e) => !e.known)
  const known = corpus.entries.filter((e) => e.known)

  it('has streams of both kinds', () => {
    expect(same.length).toBeGreaterThan(100)
    expect(known.length).toBeGreaterThan(0)
  })

  it.each(same.map((e, i) => [i, JSON.stringify(e.stream).slice(0, 60), e] as const))(
    'shows stream %i (%s) as xterm does',
    (_i, _label, entry) => {
      expect(shown(entry.stream)).toEqual(nfc(entry.xterm))
    },
  )

  it.each(known.map((e) => [e.known, JSON.stringify(e.stream), e] as const))(
    'differs as documented (%s): %s',
    (_id, _label, entry) => {
      expect(shown(entry.stream)).not.toEqual(nfc(entry.xterm))
    },
  )
})
