// Lean screens: screenView renders a screen as the shortest faithful text
// given the screen sent before (a tracker: given the screens sent before),
// rebuildScreen applies that text to the previous screen (and the earlier
// views it names). Over real multi-step sessions (vim, less, git add -p, a
// Python REPL: the ones the bench case measures) every screen must come back
// exactly from the views; the unit cases cover each kind of change.
import { describe, it, expect, afterAll } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { screenView, rebuildScreen, ScreenViewTracker, ToolRegistry, terminalTools, type ViewScreen, type ModelReply } from '../index.js'
import { SESSIONS, record } from '../bench/lib/agent-sessions.js'
import { needs } from './helpers.js'

type Screen = { lines: string[]; cols: number; rows: number; cursor: { row: number; col: number; visible: boolean }; altScreen: boolean }

function screen(lines: string[], cursor: [number, number] = [0, 0], extra: Partial<Screen> = {}): Screen {
  const rows = extra.rows ?? 24
  const all = [...lines, ...Array(Math.max(0, rows - lines.length)).fill('')]
  return { lines: all, cols: 80, rows, cursor: { row: cursor[0], col: cursor[1], visible: true }, altScreen: false, ...extra }
}

/** The fields a view carries, for comparing with what rebuildScreen gives. */
function carried(s: ViewScreen) {
  return {
    lines: s.lines,
    cols: s.cols,
    rows: s.rows,
    cursor: { row: s.cursor.row, col: s.cursor.col, visible: s.cursor.visible ?? true },
    altScreen: s.altScreen ?? false,
  }
}

/** Renders `next` over `prev`, checks the rebuild, returns the view. */
function roundTrip(prev: Screen | null, next: Screen, options?: { full?: boolean }) {
  const view = screenView(prev, next, options)
  expect(rebuildScreen(prev, view.text)).toEqual(carried(next))
  return view
}

/** Sends screens through a tracker as a model would read them: each view rebuilt from the ones before. */
class Reader {
  views = new ScreenViewTracker()
  model: ReturnType<typeof rebuildScreen> | null = null
  byNumber = new Map<number, ReturnType<typeof rebuildScreen>>()
  look(next: Screen, options?: { full?: boolean }) {
    const view = this.views.view('h', next, options)
    this.model = rebuildScreen(this.model, view.text, this.byNumber)
    this.byNumber.set(view.number, this.model)
    expect(this.model, view.text).toEqual(carried(next))
    return view
  }
}

const logLine = (i: number) => `2026-11-25 10:00:${String(i % 60).padStart(2, '0')} INFO worker-${i % 4} request ${i} served in ${i * 3} ms`

describe('screenView and rebuildScreen', () => {
  it('the first look is a full view: a header, then the rows as they are up to the last with text', () => {
    const s = screen(['$ ls', 'a.txt  b.txt', '$'], [2, 2])
    const view = roundTrip(null, s)
    expect(view.kind).toBe('full')
    expect(view.text).toBe('[full view 80x24, cursor 2,2]\n$ ls\na.txt  b.txt\n$')
    const empty = roundTrip(null, screen([], [0, 0]))
    expect(empty.text).toBe('[full view 80x24, cursor 0,0; all rows blank]')
  })

  it('an unchanged screen is one short line; a cursor that moved alone is a header without rows', () => {
    const s = screen(['>>> x = 1', '>>>'], [1, 4])
    const same = roundTrip(s, structuredClone(s))
    expect(same).toEqual({ text: '[screen unchanged]', kind: 'unchanged', scrolled: 0 })
    const moved = roundTrip(s, screen(['>>> x = 1', '>>>'], [1, 6]))
    expect(moved.text).toBe('[partial view, cursor 1,6; no row changed]')
    const hidden = roundTrip(s, { ...s, cursor: { ...s.cursor, visible: false } })
    expect(hidden.text).toBe('[partial view, cursor 1,4 hidden; no row changed]')
  })

  it('only the changed rows are sent, numbered from 0; rows that became blank are named, not listed; a cursor that stayed is not named', () => {
    const before = screen(Array.from({ length: 20 }, (_, i) => logLine(i)), [19, 0])
    const lines = before.lines.slice()
    lines[3] = 'changed three'
    lines[12] = 'changed twelve'
    lines[18] = ''
    lines[19] = ''
    const view = roundTrip(before, screen(lines, [3, 5]))
    expect(view.kind).toBe('partial')
    expect(view.text).toBe('[partial view, cursor 3,5; rows 18,19 blank]\n 3│changed three\n12│changed twelve')
    const stayed = roundTrip(before, screen(lines, [19, 0]))
    expect(stayed.text).toBe('[partial view; rows 18,19 blank]\n 3│changed three\n12│changed twelve')
  })

  it('a log that scrolled is told as the scroll plus the new rows', () => {
    const before = screen(Array.from({ length: 24 }, (_, i) => logLine(i)), [23, 0])
    const after = screen(Array.from({ length: 24 }, (_, i) => logLine(i + 3)), [23, 0])
    const view = roundTrip(before, after)
    expect(view.kind).toBe('partial')
    expect(view.scrolled).toBe(3)
    const [head, ...rows] = view.text.split('\n')
    expect(head).toBe('[partial view; scrolled up 3]')
    expect(rows).toEqual([`21│${logLine(24)}`, `22│${logLine(25)}`, `23│${logLine(26)}`])
  })

  it('a pager that scrolled under a fixed status line, forward and back', () => {
    const page = (top: number) => screen([...Array.from({ length: 23 }, (_, i) => logLine(top + i)), ':'], [23, 1])
    const forward = roundTrip(page(0), page(2))
    // Rows 0-20 show what rows 2-22 showed; rows 21 and 22 are new; the status line stays.
    expect(forward.text).toBe(`[partial view; rows 0-22 scrolled up 2]\n21│${logLine(23)}\n22│${logLine(24)}`)
    expect(forward.scrolled).toBe(2)
    const back = roundTrip(page(2), page(1))
    expect(back.text).toBe(`[partial view; rows 0-22 scrolled down 1]\n 0│${logLine(1)}`)
    expect(back.scrolled).toBe(-1)
  })

  it('a line inserted in an editor moves the rows below it, told as one move; a status line edited in place is told as its new text', () => {
    const text = Array.from({ length: 22 }, (_, i) => `    statement_number_${i} = compute(${i})`)
    const before = screen([...text, '~', 'status 1'], [5, 4])
    const inserted = [...text.slice(0, 6), '    # a new comment', ...text.slice(6, 21), '~', 'status 2']
    const view = roundTrip(before, screen(inserted, [6, 8]))
    // Row 23 keeps "status " and gets "2" at character 7.
    expect(view.text).toBe('[partial view, cursor 6,8; rows 6-21 scrolled down 1]\n 6│    # a new comment\n23:7│2')
    const moved = screen([...text.slice(1), '~', 'status 1'], [5, 4])
    expect(roundTrip(before, moved).text).toBe('[partial view; scrolled up 1; row 23 blank]')
  })

  it('a status line or a typed line edited in place is sent as its new words, at a character', () => {
    const status = (pos: string, msg = '') => `${msg.padEnd(62)}${pos.padEnd(14)}Top`
    const code = Array.from({ length: 23 }, (_, i) => `    value_${i} = compute(${i})`)
    const a = screen([...code, status('1,1', '"app.py" 90L')], [0, 0])
    const b = screen([...code, status('2,1', '"app.py" 90L')], [1, 0])
    // The whole value ("2,1"), not a fragment of it.
    expect(roundTrip(a, b).text).toBe('[partial view, cursor 1,0]\n23:62│2,1')
    const typed = screen([...code.slice(0, 5), '    value_5 = compute(5) + 1', ...code.slice(6), status('6,28', '-- INSERT --')], [5, 28])
    expect(roundTrip(b, typed).text).toBe('[partial view, cursor 5,28]\n 5:25│+ 1\n23:0│-- INSERT --\n23:62│6,28')
    // A message cleared: written over with spaces, the rest of the row kept.
    const cleared = roundTrip(typed, { ...typed, lines: [...typed.lines.slice(0, 23), status('6,27')], cursor: { row: 5, col: 27, visible: true } })
    expect(cleared.text).toBe('[partial view, cursor 5,27]\n23:0│            \n23:62│6,27')
    // A new page whose rows look like the old ones is sent whole, not as edits.
    const page = screen([...Array.from({ length: 23 }, (_, i) => `    value_${i + 40} = compute(${i + 40})`), status('41,1')])
    expect(roundTrip(b, page).kind).toBe('full')
    // A row shortened cannot be written over: it is sent whole.
    const shorter = roundTrip(b, { ...b, lines: [...b.lines.slice(0, 23), status('2,1', '"app.py"').trimEnd().slice(0, 60)] })
    expect(shorter.text.split('\n')[1]).toMatch(/^23│"app.py"/)
  })

  it('a new size is a full view; so is a change of every row, and { full: true }', () => {
    const s = screen(['a', 'b'], [0, 0])
    const resized = roundTrip(s, screen(['a', 'b'], [0, 0], { cols: 100, rows: 30 }))
    expect(resized.kind).toBe('full')
    expect(resized.text.split('\n')[0]).toBe('[full view 100x30, cursor 0,0]')
    const all = roundTrip(
      screen(Array.from({ length: 24 }, (_, i) => `old ${i}`)),
      screen(Array.from({ length: 24 }, (_, i) => `new ${i}`)),
    )
    expect(all.kind).toBe('full')
    const asked = roundTrip(s, screen(['a', 'B'], [1, 1]), { full: true })
    expect(asked).toMatchObject({ kind: 'full', text: '[full view 80x24, cursor 1,1]\na\nB' })
  })

  it('switching to the alternate screen and back is named in the header', () => {
    const history = Array.from({ length: 20 }, (_, i) => logLine(i))
    const shell = screen([...history, '$ vim notes.txt'], [20, 15])
    const vim = screen(['hello', ...Array(22).fill('~'), '"notes.txt" 1L, 6B'], [0, 0], { altScreen: true })
    const on = roundTrip(shell, vim)
    expect(on.text.split('\n')[0]).toMatch(/^\[full view 80x24, cursor 0,0, alternate screen\]$/)
    const typed = roundTrip(vim, screen(['hello world', ...Array(22).fill('~'), '-- INSERT --'], [0, 11], { altScreen: true }))
    expect(typed.text).toBe('[partial view, cursor 0,11]\n 0│hello world\n23│-- INSERT --')
    // Back on the main screen: the shell's rows as they were, and the new prompt.
    const back = screen([...history, '$ vim notes.txt', '$'], [21, 2])
    const off = roundTrip(shell, back)
    expect(off.text).toBe('[partial view, cursor 21,2]\n21│$')
    const offFromVim = roundTrip(vim, back)
    expect(offFromVim.text.split('\n')[0]).toBe('[full view 80x24, cursor 21,2]')
    expect(rebuildScreen(vim, offFromVim.text).altScreen).toBe(false)
    const quitting = screen(['hello', ...Array(22).fill('~'), ':q'], [23, 2])
    const switched = roundTrip(vim, quitting)
    expect(switched.text).toBe('[partial view, cursor 23,2, main screen]\n23│:q')
    expect(rebuildScreen(vim, switched.text).altScreen).toBe(false)
    expect(rebuildScreen(quitting, screenView(quitting, vim).text).altScreen).toBe(true)
  })

  it('wide characters and the row mark itself come back as they were', () => {
    const text = Array.from({ length: 10 }, (_, i) => `${i} 名前: 日本語のテキストと表示の幅 ✓`)
    const before = screen([...text, 'emoji 🎉🚀 ok', 'a│b│c'], [0, 0])
    const after = screen([...text, 'emoji 🎉🚀 done', 'a│b│c│d', '┌──┐ 表'], [12, 6])
    const view = roundTrip(before, after)
    expect(view.text).toBe('[partial view, cursor 12,6]\n10│emoji 🎉🚀 done\n11│a│b│c│d\n12│┌──┐ 表')
    // Written over at a character (a code point), not a column.
    const edited = roundTrip(after, { ...after, lines: [text[0].replace('✓', '✗'), ...after.lines.slice(1)] })
    expect(edited.text).toBe('[partial view]\n 0:20│✗')
    roundTrip(null, after)
  })

  it('random edits, inserts, deletes and scrolls rebuild exactly, and never cost more than the full view', () => {
    let seed = 42
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const word = () => ['', 'x', 'def f():', '    return 1', '~', 'lorem ipsum dolor', '表示', '│'][rand(8)]
    for (let round = 0; round < 300; round++) {
      const rows = 3 + rand(30)
      let lines = Array.from({ length: rows }, word)
      let prev: Screen | null = null
      for (let step = 0; step < 8; step++) {
        const next = lines.slice()
        const op = rand(5)
        if (op === 0) next[rand(rows)] = word() + rand(100)
        if (op === 1) {
          next.splice(rand(rows), 0, `inserted ${rand(1000)}`)
          next.pop()
        }
        if (op === 2) {
          next.splice(rand(rows), 1)
          next.push(word())
        }
        if (op === 3) next.push(...next.splice(0, 1 + rand(rows - 1)).map(() => `new ${rand(1000)}`))
        if (op === 4) next.unshift(...next.splice(rows - 1 - rand(rows - 1)).map(() => word()))
        const s = screen(next, [rand(rows), rand(80)], { rows, altScreen: rand(4) === 0 })
        const view = roundTrip(prev, s)
        if (prev) expect(view.text.length).toBeLessThanOrEqual(screenView(null, s).text.length)
        prev = s
        lines = next
      }
    }
  })

  it('bad screens, options and views are ERR_INVALID_ARG naming what is wrong', () => {
    const s = screen(Array.from({ length: 10 }, (_, i) => logLine(i)))
    const bad = (f: () => unknown, message: RegExp) => expect(f).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringMatching(message) }))
    bad(() => screenView(null, { ...s, lines: 'a' as unknown as string[] }), /next\.lines must be an array/)
    bad(() => screenView(null, { ...s, rows: 25 }), /next\.lines must have one entry per row \(25\), got 24/)
    bad(() => screenView(null, { ...s, lines: ['a\nb', ...s.lines.slice(1)] }), /next\.lines\[0\] must not contain a line break/)
    bad(() => screenView(null, { ...s, lines: [...s.lines.slice(1), 7 as unknown as string] }), /next\.lines\[23\] must be a string, got number 7/)
    bad(() => screenView(null, { ...s, cursor: { row: -1, col: 0 } }), /next\.cursor\.row must be a non-negative integer/)
    bad(() => screenView({ ...s, cols: 0 }, s), /previous\.cols must be a positive integer/)
    bad(() => screenView(null, s, { full: 1 as unknown as boolean }), /options\.full must be a boolean/)
    bad(() => screenView(null, s, { fill: true } as never), /options\.fill is not an option/)
    bad(() => rebuildScreen(null, 42 as unknown as string), /view must be a string/)
    bad(() => rebuildScreen(s, 'hello'), /the first line is not a screen header/)
    bad(() => rebuildScreen(null, '[screen unchanged]'), /needs the previous screen/)
    const partial = screenView(s, { ...s, lines: ['b', ...s.lines.slice(1)] }).text
    expect(partial).toBe('[partial view]\n 0│b')
    bad(() => rebuildScreen(null, partial), /a partial view needs the previous screen/)
    bad(() => rebuildScreen(s, partial.replace(' 0│b', '30│b')), /row 30 is outside rows 0-23/)
    bad(() => rebuildScreen(s, `${partial}\n 0│c`), /row 0 is given twice/)
    bad(() => rebuildScreen(s, partial.replace(' 0│b', 'b')), /line 2 is not a row such as "12│text" or "12:40│text"/)
    bad(() => rebuildScreen(s, '[partial view; row 0 blank]\n 0│b'), /row 0 is listed and also named in the header/)
    bad(() => rebuildScreen(s, '[partial view; row 0 flipped]'), /unknown clause "row 0 flipped"/)
    bad(() => rebuildScreen(s, '[partial view; scrolled up 30]'), /a scroll by 30 does not fit rows 0-23 of 24/)
    bad(() => rebuildScreen(s, '[partial view; scrolled up 2]'), /row 22 is left empty by a scroll and not given/)
    bad(() => rebuildScreen(s, '[partial view; scrolled up 2; row 23 blank]\n22:3│x'), /row 22 is left by a scroll: it has no text to write over/)
    bad(() => rebuildScreen(s, '[partial view; rows 0-3 were 5-9]'), /not the same number of rows/)
    bad(() => rebuildScreen(s, '[partial view 80x24, cursor 0,0]'), /a partial view has no size/)
    bad(() => rebuildScreen(s, '[full view 3, cursor 0,0]'), /the first line is not a screen header|a full view has the size/)
    // A view that names an earlier view needs that view's screen.
    bad(() => rebuildScreen(s, '[partial view 4; rows 0-3 as in view 2]'), /it names view 2, and no screen of view 2 was given/)
    bad(() => rebuildScreen(s, '[partial view 4; rows 0-3 as in view 2]', new Map([[2, screen(['x'], [0, 0], { rows: 5 })]])), /view 2 is 80x5, not 80x24/)
    bad(() => rebuildScreen(s, '[partial view 4; rows 0-3 as in view 2]', 'views' as never), /earlier must be a Map \(or a function\)/)
    const earlier = screen(['e0', 'e1', 'e2', 'e3'])
    expect(rebuildScreen(s, '[partial view 4; rows 1,3 as in view 2; row 0 was 2 of view 2]', (n: number) => (n === 2 ? earlier : null)).lines.slice(0, 5)).toEqual(['e2', 'e1', s.lines[2], 'e3', s.lines[4]])
  })
})

describe('ScreenViewTracker', () => {
  it('remembers the last screen per key, forgets on request', () => {
    const views = new ScreenViewTracker()
    const history = Array.from({ length: 10 }, (_, i) => logLine(i))
    const a = screen([...history, 'one'])
    expect(views.view('h1', a).kind).toBe('full')
    expect(views.view('h1', a).text).toBe('[screen unchanged]')
    expect(views.view('h2', a).kind).toBe('full')
    expect(views.size).toBe(2)
    expect(views.last('h1')).toEqual(carried(a))
    const b = screen([...history, 'two'])
    const partial = views.view('h1', b)
    // One count for the tracker: views 1 (h1) and 2 (h2) came first; the unchanged look had no number of its own.
    expect(partial).toEqual({ text: '[partial view 3]\n10│two', kind: 'partial', scrolled: 0, number: 3 })
    expect(views.view('h1', b, { full: true }).kind).toBe('full')
    expect(views.forget('h1')).toBe(true)
    expect(views.forget('h1')).toBe(false)
    expect(views.last('h1')).toBeNull()
    expect(views.view('h1', b).kind).toBe('full')
    views.clear()
    expect(views.size).toBe(0)
    expect(() => views.view(7 as unknown as string, a)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
  })
})

describe('ScreenViewTracker: rows of earlier views', () => {
  it('a pager paging back, an undo and a jump back name the earlier view instead of sending its rows again', () => {
    const page = (top: number, status = ':') => screen([...Array.from({ length: 23 }, (_, i) => logLine(top + i)), status], [23, 1])
    const reader = new Reader()
    expect(reader.look(page(0)).text.split('\n')[0]).toBe('[full view 1, 80x24, cursor 23,1]')
    expect(reader.look(page(23)).kind).toBe('full') // a new page: all new text
    expect(reader.look(page(46)).number).toBe(3)
    // Back one page: every row is on view 2.
    expect(reader.look(page(23)).text).toBe('[partial view 4; rows 0-23 as in view 2]')
    // Half a page back: rows from two earlier views.
    expect(reader.look(page(12)).text).toBe('[partial view 5; rows 0-10 were 12-22 of view 1; rows 11-22 were 0-11]')
    // The top again, with a new status line.
    expect(reader.look(page(0, ':top')).text).toBe('[partial view 6; rows 0-22 as in view 1]\n23│:top')
    // Unchanged: no new number.
    expect(reader.look(page(0, ':top'))).toEqual({ text: '[screen unchanged]', kind: 'unchanged', scrolled: 0, number: 6 })
  })

  it('names only the last 16 views of the same key and size; other keys count on', () => {
    const views = new ScreenViewTracker()
    const page = (top: number) => screen(Array.from({ length: 24 }, (_, i) => logLine(top + i)))
    const first = views.view('a', page(0))
    for (let k = 1; k <= 16; k++) views.view('a', page(100 * k))
    // View 1 is 16 views back: too old to name, so its rows are sent again.
    expect(views.view('a', page(0)).kind).toBe('full')
    expect(views.view('b', page(0)).number).toBe(first.number + 18)
    // A screen of another size lends no rows.
    const c = new Reader()
    c.look(page(0))
    c.look(screen(['small'], [0, 0], { rows: 10 }))
    expect(c.look(page(0)).kind).toBe('full')
  })

  it('random pages, scrolls, edits and returns rebuild exactly through a reader', () => {
    let seed = 7
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    for (let round = 0; round < 40; round++) {
      const reader = new Reader()
      const rows = 5 + rand(20)
      let top = 0
      let status = 'status 0'
      for (let step = 0; step < 30; step++) {
        const op = rand(5)
        if (op === 0) top = rand(200)
        if (op === 1) top += 1 + rand(rows)
        if (op === 2) top = Math.max(0, top - 1 - rand(rows))
        if (op === 3) status = `${'message'.slice(0, rand(8))} ${rand(1000)},${rand(80)}`.padEnd(30) + 'Top'
        const lines = [...Array.from({ length: rows - 1 }, (_, i) => (rand(20) === 0 ? '' : logLine(top + i))), status]
        const view = reader.look(screen(lines, [rand(rows), rand(80)], { rows }), { full: rand(30) === 0 })
        expect(view.text.length).toBeLessThanOrEqual(screenView(null, screen(lines, [0, 0], { rows })).text.length + 8)
      }
    }
  })
})

describe('real sessions: every screen rebuilt from the lean views', () => {
  for (const session of Object.values(SESSIONS)) {
    it(session.title, { timeout: 120_000 }, async (ctx) => {
      needs(ctx, session.command)
      const steps = await record(session)
      expect(steps.length).toBeGreaterThan(8)
      const reader = new Reader()
      let lean = 0
      let full = 0
      const kinds = new Set<string>()
      for (const step of steps.filter((s) => !s.exited)) {
        // What the model holds after this view: the previous screen with the view applied
        // (and the rows it names from earlier views); Reader checks it is the screen.
        const view = reader.look(step.screen)
        kinds.add(view.kind)
        expect(reader.model!.lines.join('\n').replace(/\n+$/, '')).toBe(step.screen.text)
        lean += view.text.length
        full += step.screen.text.length
      }
      expect(kinds).toContain('partial')
      expect(lean).toBeLessThan(full)
    })
  }
})

describe('respond() sends lean screens; call() keeps full ones', () => {
  const dirs: string[] = []
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-lean-respond-'))
    dirs.push(dir)
    return dir
  }
  const editor = (dir: string) => ({
    name: 'editor',
    cwd: dir,
    commands: [{ name: 'vim', program: ['vim', '-u', 'NONE', '-i', 'NONE', '-N', '-n'], acceptsInput: true, env: { HOME: dir } }],
  })
  /** The view in a reply: the text after the `[h1 running]` (or `[h1 waiting for input (key)]`) line. */
  const viewOf = (reply: ModelReply) => reply.text.slice(reply.text.indexOf('\n') + 1)
  /** The screen a model keeps from the views it is sent, with the numbered views a later one may name. */
  class Model {
    screen: ReturnType<typeof rebuildScreen> | null = null
    views = new Map<number, ReturnType<typeof rebuildScreen>>()
    apply(view: string) {
      this.screen = rebuildScreen(this.screen, view, this.views)
      const number = /^\[(?:full|partial) view (\d+)/.exec(view)
      if (number) this.views.set(Number(number[1]), this.screen)
      return this.screen
    }
  }
  /** A ToolState's content as the rows a screen of `rows` rows shows. */
  const rowsOf = (content: string, rows: number) => {
    const lines = content.split('\n')
    return [...lines, ...Array(rows - lines.length).fill('')]
  }

  it('a vim session: partial views whose rebuild is exactly the screen call() returned each time', { timeout: 60_000 }, async (ctx) => {
    needs(ctx, 'vim')
    const dir = tempDir()
    writeFileSync(join(dir, 'notes.txt'), Array.from({ length: 40 }, (_, i) => `line ${i}: some text to edit in vim`).join('\n') + '\n')
    await using registry = new ToolRegistry()
    registry.register(editor(dir))
    const spawned = await registry.respond('editor', { action: 'spawn', command: 'vim', args: ['notes.txt'] })
    expect(spawned.isError).toBe(false)
    const id = spawned.state!.id
    // vim reads keys: it waits for input.
    expect(spawned.text.split('\n')[0]).toBe(`[${id} waiting for input (key)]`)
    const model = new Model()
    model.apply(viewOf(spawned))
    expect(viewOf(spawned)).toMatch(/^\[full view \d+, 80x24, cursor 0,0, alternate screen\]\nline 0: /)
    const kinds: string[] = ['full']
    let lean = viewOf(spawned).length
    let full = (spawned.state as { content: string }).content.length
    const steps: unknown[] = [
      { action: 'apply', id, input: 'jjj' },
      { action: 'apply', id, input: 'A and more<esc>' },
      { action: 'apply', id, input: 'dd' },
      { action: 'apply', id, input: 'o' },
      { action: 'apply', id, input: 'a new line<esc>' },
      { action: 'apply', id, input: '<ctrl+d>' },
      { action: 'fetch', id },
      JSON.stringify({ action: 'fetch', id, full: true }),
      { action: 'apply', id, input: 'G' },
      { action: 'apply', id, input: 'gg' },
    ]
    for (const input of steps) {
      const reply = await registry.respond('editor', input)
      expect(reply.isError, reply.text).toBe(false)
      const state = reply.state as { state: string; content: string }
      expect(state.state).toBe('running')
      const view = viewOf(reply)
      kinds.push(view === '[screen unchanged]' ? 'unchanged' : /^\[(full|partial) view/.exec(view)![1])
      const screen = model.apply(view)
      expect(screen.lines, `after ${JSON.stringify(input)}:\n${view}`).toEqual(rowsOf(state.content, screen.rows))
      expect(screen.altScreen).toBe(true)
      lean += view.length
      full += state.content.length
    }
    expect(kinds).toContain('partial')
    expect(kinds[7]).toBe('unchanged') // the fetch: nothing moved
    expect(kinds[8]).toBe('full') // full: true
    expect(lean).toBeLessThan(full * 0.7)
    // call() is untouched by respond's views: the whole screen, as ever.
    const direct = await registry.call('editor', { action: 'fetch', id, full: true })
    expect(direct).toMatchObject({ state: 'running' })
    expect((direct as { content: string }).content).toMatch(/^line 0: /)
    // vim left the alternate screen: its final content is the shell's screen (blank here),
    // sent whole or as a view of what changed; either way the model gets exactly that content.
    const quit = await registry.respond('editor', { action: 'apply', id, input: ':q!<enter>' })
    expect(quit.text).toMatch(new RegExp(`^\\[${id} finished; the handle is closed\\]\\n`))
    const final = quit.text.slice(quit.text.indexOf('\n') + 1)
    const content = (quit.state as { result: { content: string } }).result.content.replace(/\n+$/, '')
    if (/^\[partial view/.test(final)) expect(model.apply(final).lines.join('\n').replace(/\n+$/, '')).toBe(content)
    else expect(final).toBe(content === '' ? '(empty)' : content)
  })

  it('a finished program\'s final screen is a partial view of the last one sent when it changed in part', { timeout: 30_000 }, async () => {
    await using registry = new ToolRegistry()
    registry.register({ name: 'py', commands: [{ name: 'repl', program: ['python3', '-q'], env: { PYTHONSTARTUP: '' } }] })
    const spawned = await registry.respond('py', { action: 'spawn', command: 'repl' })
    const id = spawned.state!.id
    const model = new Model()
    model.apply(viewOf(spawned))
    model.apply(viewOf(await registry.respond('py', { action: 'apply', id, input: '6*7<enter>' })))
    model.apply(viewOf(await registry.respond('py', { action: 'apply', id, input: 'for i in range(12): print("row", i, i * i)<enter>' })))
    model.apply(viewOf(await registry.respond('py', { action: 'apply', id, input: '<enter>' })))
    const done = await registry.respond('py', { action: 'apply', id, input: 'print("bye"); exit()<enter>' })
    expect(done.state).toMatchObject({ state: 'stopped', result: { ok: true } })
    const [first, ...rest] = done.text.split('\n')
    expect(first).toBe(`[${id} finished; the handle is closed]`)
    const view = rest.join('\n')
    expect(view).toMatch(/^\[partial view \d+/)
    // The rows are the final content call() gives; the view leaves out the rows the model has.
    const content = (done.state as { result: { content: string } }).result.content
    expect(model.apply(view).lines.join('\n').replace(/\n+$/, '')).toBe(content.replace(/\n+$/, ''))
    expect(view.length).toBeLessThan(content.length)
    expect(content.replace(/\n+$/, '')).toMatch(/^>>> 6\*7\n42\n[\s\S]*\nrow 11 121\n>>> print\("bye"\); exit\(\)\nbye$/)
  })

  it('an isolated registry (isolation: process) sends the same lean views', { timeout: 30_000 }, async () => {
    await using registry = new ToolRegistry({ isolation: 'process' })
    registry.register({ name: 'py', commands: [{ name: 'repl', program: ['python3', '-q'], env: { PYTHONSTARTUP: '' } }] })
    const spawned = await registry.respond('py', { action: 'spawn', command: 'repl' })
    const id = spawned.state!.id
    expect(viewOf(spawned)).toBe('[full view 1, 80x24, cursor 0,4]\n>>>')
    const answered = await registry.respond('py', { action: 'apply', id, input: '6*7<enter>' })
    expect(viewOf(answered)).toBe('[full view 2, 80x24, cursor 2,4]\n>>> 6*7\n42\n>>>') // not longer than a partial one
    const model = new Model()
    model.apply(viewOf(spawned))
    expect(model.apply(viewOf(answered)).lines.slice(0, 3)).toEqual(['>>> 6*7', '42', '>>>'])
    expect((await registry.respond('py', { action: 'fetch', id })).text).toBe(`[${id} waiting for input (key)]\n[screen unchanged]`)
  })

  it('a bad full field is the model\'s mistake, answered with the valid calls', async () => {
    const dir = tempDir()
    await using registry = new ToolRegistry()
    registry.register(editor(dir))
    const reply = await registry.respond('editor', { action: 'fetch', id: 'h1', full: 'yes' })
    expect(reply).toMatchObject({ isError: true })
    expect(reply.text).toContain('input.full must be a boolean, got "yes"')
    expect(reply.text).toContain('"full"?: …')
    const [definition] = registry.definitions('anthropic')
    expect(definition.input_schema.properties.full).toMatchObject({ type: 'boolean' })
  })

  it('pty_read with screen: true is lean in respond(); full: true and call() give every row', { timeout: 60_000 }, async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'long.txt'), Array.from({ length: 200 }, (_, i) => `row ${i} of a long file`).join('\n') + '\n')
    await using registry = new ToolRegistry()
    registry.register(terminalTools({ cwd: dir }))
    const started = await registry.call('pty_start', { command: 'less', args: ['long.txt'] })
    const id = started.id
    const read = async (input: Record<string, unknown>) => {
      const reply = await registry.respond('pty_read', { id, screen: true, wait_ms: 1000, ...input })
      expect(reply.isError, reply.text).toBe(false)
      const lines = reply.text.split('\n')
      expect(lines[0]).toBe(`[screen of ${id}]`)
      expect(lines.at(-1)).toMatch(/: waiting for input \(key\)\] \[cursor: \d+\]$/)
      return { view: lines.slice(1, -1).join('\n'), result: reply.result as { screen: { lines: string[] } } }
    }
    const first = await read({})
    const model = new Model()
    model.apply(first.view)
    // The terminal tools' default size is 120x30.
    expect(first.view).toMatch(/^\[full view \d+, 120x30, cursor 29,\d+, alternate screen\]\nrow 0 of a long file/)
    await registry.call('pty_send', { id, input: 'j' })
    const second = await read({})
    expect(second.view).toMatch(/^\[partial view \d+(, cursor 29,\d+)?; (rows 0-28 )?scrolled up 1\]\n28│row 29 of a long file/)
    expect(model.apply(second.view).lines).toEqual(second.result.screen.lines)
    const again = await read({ full: true })
    expect(again.view).toMatch(/^\[full view \d+, 120x30/)
    expect(rebuildScreen(null, again.view).lines).toEqual(again.result.screen.lines)
    const direct = await registry.call('pty_read', { id, screen: true })
    expect(direct.screen.lines[0]).toBe('row 1 of a long file')
    await registry.respond('pty_stop', { id })
  })
})
