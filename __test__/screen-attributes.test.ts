// screen({ attributes: true }): each row's styled runs (colours, bold,
// italic, underline, inverse), from real programs and from ScreenModel.
import { describe, it, expect } from 'vitest'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PtySession, ScreenModel, type PtypilotError, type StyledRun } from '../index.js'

const menu = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'kit', 'menu.py')

/** The highlighted (inverse) text of a row, trimmed, or undefined. */
function highlighted(runs: StyledRun[]): string | undefined {
  return runs.find((run) => run.inverse)?.text.trim()
}

describe.concurrent('styled runs', () => {
  it('colours and attributes from printf, joined to the row', async () => {
    const s = PtySession.spawn({
      command: 'printf',
      args: ['plain \\033[1;31mbold red\\033[0m \\033[3;4;38;5;208mit\\033[0m \\033[48;2;16;32;48;2mrgb\\033[0m\\n'],
    })
    await s.exited
    const screen = s.screen({ attributes: true })
    const row = screen.attributes[0]
    expect(row.map((r) => r.text).join('')).toBe(screen.lines[0])
    expect(row.map((r) => r.text)).toEqual(['plain ', 'bold red', ' ', 'it', ' ', 'rgb'])
    expect(row[0]).toEqual({ col: 0, width: 6, text: 'plain ', fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, inverse: false })
    expect(row[1]).toMatchObject({ col: 6, width: 8, fg: 1, bold: true })
    expect(row[3]).toMatchObject({ fg: 208, italic: true, underline: true, bold: false })
    expect(row[5]).toMatchObject({ bg: '#102030', dim: true, fg: null })
    expect(screen.attributes.slice(1).every((runs) => runs.length === 0)).toBe(true)
    expect(screen.attributes).toHaveLength(screen.rows)
  })

  it('a curses menu: the highlighted row follows the keys', async () => {
    await using s = PtySession.spawn({ command: 'python3', args: [menu] })
    await s.waitFor('Cherry')
    await s.waitForSettle()
    const rows = () => s.screen({ attributes: true }).attributes.slice(2, 5).map(highlighted)
    expect(rows()).toEqual(['Apple', undefined, undefined])
    s.sendKeys('down')
    await s.waitForSettle()
    expect(rows()).toEqual([undefined, 'Banana', undefined])
    s.sendKeys('down', 'down')
    await s.waitForSettle()
    expect(rows()).toEqual(['Apple', undefined, undefined])
    // The title row is bold; the padding of the highlight is part of its run.
    const { attributes } = s.screen({ attributes: true })
    expect(attributes[0][0]).toMatchObject({ text: 'Pick a fruit:', bold: true })
    expect(attributes[2].find((r) => r.inverse)).toMatchObject({ col: 2, width: 11, text: ' Apple     ' })
  })

  it('wide characters cover two columns', async () => {
    const s = PtySession.spawn({ command: 'printf', args: ['a\\033[7m日本\\033[0mb'] })
    await s.exited
    const row = s.screen({ attributes: true }).attributes[0]
    expect(row.map((r) => [r.col, r.width, r.text])).toEqual([
      [0, 1, 'a'],
      [1, 4, '日本'],
      [5, 1, 'b'],
    ])
  })

  it('the plain snapshot has no attributes; bad options are ERR_INVALID_ARG', async () => {
    await using s = PtySession.spawn({ command: 'cat' })
    expect('attributes' in s.screen()).toBe(false)
    expect('attributes' in s.screen({ attributes: false })).toBe(false)
    for (const bad of [{ attributes: 1 }, { colors: true }, 'yes', [true]]) {
      let err: PtypilotError | undefined
      try {
        s.screen(bad as never)
      } catch (e) {
        err = e as PtypilotError
      }
      expect(err?.code, JSON.stringify(bad)).toBe('ERR_INVALID_ARG')
    }
  })

  it('ScreenModel gives the same runs as a session for the same output', async () => {
    const bytes = '\x1b[44mblue\x1b[K\x1b[0m\r\n\x1b[1mB\x1b[22m \x1b[4mu\x1b[0m'
    const model = new ScreenModel({ cols: 20, rows: 3 })
    model.write(bytes)
    const s = PtySession.spawn({ command: 'printf', args: ['%s', bytes], cols: 20, rows: 3 })
    await s.exited
    const fromModel = model.screen({ attributes: true }).attributes
    expect(fromModel).toEqual(s.screen({ attributes: true }).attributes)
    // An erase with a background colour paints the rest of the row: one run.
    expect(fromModel[0]).toEqual([expect.objectContaining({ col: 0, width: 20, bg: 4, text: 'blue'.padEnd(20) })])
    expect(fromModel[1].map((r) => [r.text, r.bold, r.underline])).toEqual([
      ['B', true, false],
      [' ', false, false],
      ['u', false, true],
    ])
  })
})
