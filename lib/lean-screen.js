'use strict'
// Lean screens: the text a model is sent when it looks at a terminal screen
// again. A 24×80 screen is about 2 000 characters, and an agent driving vim
// or `git add -p` step by step would otherwise resend mostly the same rows.
//
// `screenView(previous, next)` renders `next` as the shortest faithful text
// given the screen last sent (`previous`): the full screen (rows numbered),
// a partial view (a one-line header with the size and the cursor, then only
// the rows that changed), a scroll told as "scrolled up N" plus the new rows,
// or "[screen unchanged]". `rebuildScreen(previous, text)` is the inverse: it
// applies a view to the previous screen and gives back the new one exactly.
// `ScreenViewTracker` keeps the last screen sent per key (a handle id).
//
// The format (one header line in square brackets, then rows as `N│text`,
// rows counted from 0 as in `screen().lines`) is documented in index.d.ts
// (`screenView`) and in the README ("Lean screens").

const { invalidArg, describe } = require('./errors.js')
const { own, read } = require('./args.js')

const MARK = '│'
const UNCHANGED = '[screen unchanged]'

/**
 * Checks a screen-like object and copies the parts a view carries. Every
 * read goes through `read`, so a getter or proxy that throws is
 * ERR_INVALID_ARG naming the field.
 */
function normalize(screen, what) {
  if (screen === null || typeof screen !== 'object' || Array.isArray(screen)) {
    throw invalidArg(`${what} must be a screen object ({ lines, cols, rows, cursor }), got ${describe(screen)}`)
  }
  const lines = read(screen, 'lines', what)
  if (!Array.isArray(lines)) throw invalidArg(`${what}.lines must be an array of strings, got ${describe(lines)}`)
  const count = read(lines, 'length', `${what}.lines`)
  const given = read(screen, 'rows', what)
  const rows = given === undefined ? count : given
  if (!Number.isInteger(rows) || rows < 1) throw invalidArg(`${what}.rows must be a positive integer, got ${describe(rows)}`)
  if (count !== rows) throw invalidArg(`${what}.lines must have one entry per row (${rows}), got ${count}`)
  const copy = new Array(rows)
  for (let i = 0; i < rows; i++) {
    const line = read(lines, i, `${what}.lines`)
    if (typeof line !== 'string') throw invalidArg(`${what}.lines[${i}] must be a string, got ${describe(line)}`)
    if (/[\n\r]/.test(line)) throw invalidArg(`${what}.lines[${i}] must not contain a line break, got ${describe(line)}`)
    copy[i] = line
  }
  const cols = read(screen, 'cols', what)
  if (!Number.isInteger(cols) || cols < 1) throw invalidArg(`${what}.cols must be a positive integer, got ${describe(cols)}`)
  const cursor = read(screen, 'cursor', what)
  if (cursor === null || typeof cursor !== 'object') {
    throw invalidArg(`${what}.cursor must be an object ({ row, col, visible }), got ${describe(cursor)}`)
  }
  const at = {}
  for (const key of ['row', 'col']) {
    const v = read(cursor, key, `${what}.cursor`)
    if (!Number.isInteger(v) || v < 0) throw invalidArg(`${what}.cursor.${key} must be a non-negative integer, got ${describe(v)}`)
    at[key] = v
  }
  const shown = read(cursor, 'visible', `${what}.cursor`)
  const visible = shown === undefined ? true : shown
  if (typeof visible !== 'boolean') throw invalidArg(`${what}.cursor.visible must be a boolean, got ${describe(visible)}`)
  const altGiven = read(screen, 'altScreen', what)
  const alt = altGiven === undefined ? false : altGiven
  if (typeof alt !== 'boolean') throw invalidArg(`${what}.altScreen must be a boolean, got ${describe(alt)}`)
  return { cols, rows, lines: copy, cursor: { row: at.row, col: at.col, visible }, altScreen: alt }
}

function checkOptions(options) {
  if (options === undefined || options === null) return false
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw invalidArg(`options must be an object such as { full: true }, got ${describe(options)}`)
  }
  const copy = own(options, 'options')
  for (const key of Object.keys(copy)) {
    if (key !== 'full') throw invalidArg(`options.${key} is not an option (known: full)`)
  }
  const { full } = copy
  if (full !== undefined && typeof full !== 'boolean') {
    throw invalidArg(`options.full must be a boolean, got ${describe(full)}`)
  }
  return full === true
}

/** `3`, `5-7`, `3,5-7,9`: a sorted list of row numbers as ranges. */
function rowList(rows) {
  const parts = []
  for (let i = 0; i < rows.length; ) {
    let j = i
    while (j + 1 < rows.length && rows[j + 1] === rows[j] + 1) j++
    parts.push(j === i ? `${rows[i]}` : j === i + 1 ? `${rows[i]},${rows[j]}` : `${rows[i]}-${rows[j]}`)
    i = j + 1
  }
  return parts.join(',')
}

function parseRowList(text, rows, view) {
  const out = []
  for (const part of text.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part)
    if (!m) throw badView(view, `row list ${JSON.stringify(text)} is not like 3,5-7`)
    const a = Number(m[1])
    const b = m[2] === undefined ? a : Number(m[2])
    if (b < a || b >= rows) throw badView(view, `row list ${JSON.stringify(text)} is outside rows 0-${rows - 1}`)
    for (let r = a; r <= b; r++) out.push(r)
  }
  return out
}

const plural = (rows, what) => `${rows.length === 1 ? 'row' : 'rows'} ${rowList(rows)} ${what}`

/**
 * The header: size, kind of view, cursor, and the alternate screen — in a
 * full view when it is on, in a partial view when it switched (on, or back
 * to the main screen).
 */
function header(s, kind, clauses, prev) {
  let out = `[${kind} view ${s.cols}x${s.rows}, cursor ${s.cursor.row},${s.cursor.col}`
  if (!s.cursor.visible) out += ' hidden'
  if (prev === null ? s.altScreen : s.altScreen !== prev.altScreen) out += s.altScreen ? ', alternate screen' : ', main screen'
  if (clauses.length > 0) out += `; ${clauses.join('; ')}`
  return out + ']'
}

function range(a, b) {
  const out = []
  for (let i = a; i <= b; i++) out.push(i)
  return out
}

const rowsWord = (rows, one, many) => (rows.length === 1 ? one : many)
const listClause = (rows, what) => `${rowsWord(rows, 'row', 'rows')} ${rowList(rows)} ${what}`

/** Every row in order, trailing blank rows left out and told in the header. */
function fullView(s) {
  let last = s.rows - 1
  while (last >= 0 && s.lines[last] === '') last--
  const clauses = []
  if (last < 0) clauses.push('all rows blank')
  else if (last < s.rows - 1) clauses.push(listClause(range(last + 1, s.rows - 1), 'blank'))
  return [header(s, 'full', clauses, null), ...s.lines.slice(0, last + 1)].join('\n')
}

function sameMeta(a, b) {
  return (
    a.cols === b.cols &&
    a.rows === b.rows &&
    a.altScreen === b.altScreen &&
    a.cursor.row === b.cursor.row &&
    a.cursor.col === b.cursor.col &&
    a.cursor.visible === b.cursor.visible
  )
}

// What a partial view costs, roughly, in characters: the planner below
// minimises this, then the rendered text is compared with the full view.
const BLOCK_COST = 23 // "; rows 14-22 were 13-21"
const BLANK_COST = 3 // ",15" in a "blank" list
const LISTED_COST = 3 // ",13" in the "changed" list, beside the row itself

/**
 * Plans a partial view: for each new row, where it comes from. `plan[i]` is
 * `{ move: d }` (the old row i+d; d = 0 is the row left as it was), `'blank'`
 * or `'text'` (listed). Rows moved by the same d in a run form one block
 * ("rows a-b were a+d-b+d"), so the plan is the cheapest path
 * through the rows, a block costing once when it starts.
 */
function plan(prev, next) {
  const R = next.rows
  const width = String(R - 1).length
  const D = 2 * R - 1 // offsets -(R-1)..R-1 at index d + R - 1
  const X = D // the state "not from an old row"
  let cost = new Float64Array(D + 1).fill(Infinity)
  const from = [] // from[i][state]: the state of row i-1 on the cheapest path
  for (let i = 0; i < R; i++) {
    const line = next.lines[i]
    let bestPrev = 0
    let bestCost = i === 0 ? 0 : Infinity
    if (i > 0) {
      for (let st = 0; st <= D; st++) {
        if (cost[st] < bestCost) {
          bestCost = cost[st]
          bestPrev = st
        }
      }
    }
    const now = new Float64Array(D + 1).fill(Infinity)
    const back = new Int16Array(D + 1).fill(-1)
    for (let idx = 0; idx < D; idx++) {
      const d = idx - (R - 1)
      const j = i + d
      if (j < 0 || j >= R || prev.lines[j] !== line) continue
      const start = d === 0 ? 0 : BLOCK_COST
      const stay = i > 0 ? cost[idx] : Infinity
      if (stay <= bestCost + start) {
        now[idx] = stay
        back[idx] = idx
      } else {
        now[idx] = bestCost + start
        back[idx] = bestPrev
      }
    }
    now[X] = bestCost + (line === '' ? BLANK_COST : width + 2 + line.length + LISTED_COST)
    back[X] = bestPrev
    from.push(back)
    cost = now
  }
  let state = 0
  for (let st = 1; st <= D; st++) if (cost[st] < cost[state]) state = st
  const out = new Array(R)
  for (let i = R - 1; i >= 0; i--) {
    out[i] = state === X ? (next.lines[i] === '' ? 'blank' : 'text') : { move: state - (R - 1) }
    state = from[i][state]
  }
  return out
}

/** The partial view of `next` over `prev` that `plan` finds cheapest. */
function partialView(prev, next) {
  const steps = plan(prev, next)
  const width = String(next.rows - 1).length
  const clauses = []
  const changed = []
  const blank = []
  for (let i = 0; i < next.rows; ) {
    const st = steps[i]
    if (st === 'text') changed.push(i)
    else if (st === 'blank') blank.push(i)
    else if (st.move !== 0) {
      const d = st.move
      let j = i
      while (j + 1 < next.rows && typeof steps[j + 1] === 'object' && steps[j + 1].move === d) j++
      // A block from the top (moving up) or to the bottom (moving down) with
      // every other row listed or blank (the new rows, a status line) is the
      // whole screen scrolling: said as the scroll alone.
      const edge = d > 0 ? i === 0 : j === next.rows - 1
      const whole = edge && steps.every((st, r) => (r >= i && r <= j) || typeof st !== 'object')
      clauses.push(whole ? `scrolled ${d > 0 ? 'up' : 'down'} ${Math.abs(d)}` : moveClause(i, j, d, next.rows))
      i = j + 1
      continue
    }
    i++
  }
  if (changed.length > 0) clauses.push(listClause(changed, 'changed'))
  if (blank.length > 0) clauses.push(listClause(blank, 'blank'))
  if (clauses.length === 0) clauses.push('no row changed')
  const out = [header(next, 'partial', clauses, prev)]
  for (const row of changed) out.push(`${String(row).padStart(width)}${MARK}${next.lines[row]}`)
  return out.join('\n')
}

/**
 * New rows a..b are old rows a+d..b+d: `rows 3-9 were 4-10`, with
 * `(scrolled up 4)` added for a block of half the screen or more, or one
 * that starts at the top (moving up) or ends at the bottom (moving down): the
 * scrolling part of a screen with a fixed status line, or of an editor's
 * text below an inserted line.
 */
function moveClause(a, b, d, rows) {
  const dir = `scrolled ${d > 0 ? 'up' : 'down'} ${Math.abs(d)}`
  const span = (x, y) => (x === y ? `${x}` : `${x}-${y}`)
  let out = a === b ? `row ${a} was ${a + d}` : `rows ${span(a, b)} were ${span(a + d, b + d)}`
  if ((a === 0 && d > 0) || (b === rows - 1 && d < 0) || 2 * (b - a + 1) >= rows) out += ` (${dir})`
  return out
}

/**
 * `next` as text, given the screen last sent for the same program
 * (`previous`, or null for the first look): the shorter of the full view and
 * the cheapest partial view (unchanged rows left out, rows that moved — a
 * scroll, an inserted or deleted line — told as a move), or
 * `[screen unchanged]`. `options.full` forces the full view.
 */
function screenView(previous, next, options) {
  const full = checkOptions(options)
  const s = normalize(next, 'next')
  const prev = previous === null || previous === undefined ? null : normalize(previous, 'previous')
  return viewOf(prev, s, full)
}

/** The largest shift of the moves in a view's text (positive: up), for statistics. */
function scrollOf(text) {
  const m = /[(;] ?scrolled (up|down) (\d+)/.exec(text.split('\n', 1)[0])
  return m ? (m[1] === 'up' ? 1 : -1) * Number(m[2]) : 0
}

function viewOf(prev, s, forceFull) {
  const fullText = fullView(s)
  if (forceFull || prev === null || prev.cols !== s.cols || prev.rows !== s.rows) {
    return { text: fullText, kind: 'full', scrolled: 0 }
  }
  let unchangedRows = true
  for (let i = 0; i < s.rows && unchangedRows; i++) unchangedRows = prev.lines[i] === s.lines[i]
  if (unchangedRows && sameMeta(prev, s)) return { text: UNCHANGED, kind: 'unchanged', scrolled: 0 }
  const text = partialView(prev, s)
  if (text.length < fullText.length) return { text, kind: 'partial', scrolled: scrollOf(text) }
  return { text: fullText, kind: 'full', scrolled: 0 }
}

function badView(view, why) {
  const first = view.split('\n', 1)[0]
  return invalidArg(`view is not a screen view from screenView(): ${why} (first line ${describe(first)})`)
}

const HEADER = /^\[(full|partial) view (\d+)x(\d+), cursor (\d+),(\d+)( hidden)?(, alternate screen|, main screen)?(?:; (.*))?\]$/
const MOVE = /^rows? (\d+)(?:-(\d+))? (?:was|were) (\d+)(?:-(\d+))?(?: \(scrolled (up|down) (\d+)\))?$/

/**
 * The screen `view` (a text from `screenView`) describes, given the screen
 * the previous view described (`previous`; null before the first one). For a
 * full view `previous` is not needed; for a partial view or
 * `[screen unchanged]` it must be the screen the view was computed from.
 */
function rebuildScreen(previous, view) {
  if (typeof view !== 'string') throw invalidArg(`view must be a string from screenView(), got ${describe(view)}`)
  const prev = previous === null || previous === undefined ? null : normalize(previous, 'previous')
  const lines = view.split('\n')
  if (lines[0] === UNCHANGED) {
    if (lines.length !== 1) throw badView(view, 'text follows "[screen unchanged]"')
    if (prev === null) throw badView(view, 'an unchanged screen needs the previous screen')
    return prev
  }
  const m = HEADER.exec(lines[0])
  if (!m) throw badView(view, 'the first line is not a screen header')
  const [cols, rows, row, col] = [m[2], m[3], m[4], m[5]].map(Number)
  if (cols < 1 || rows < 1) throw badView(view, `a ${cols}x${rows} screen has no cells`)
  const s = { cols, rows, lines: null, cursor: { row, col, visible: m[6] === undefined }, altScreen: m[7] === ', alternate screen' }
  const clauses = m[8] === undefined ? [] : m[8].split('; ')
  if (m[1] === 'full') {
    if (m[7] === ', main screen') throw badView(view, 'a full view names the alternate screen only when it is on')
    // The rows follow in order; the rest are blank.
    for (const clause of clauses) {
      if (clause !== 'all rows blank' && !/^rows? [\d,-]+ blank$/.test(clause)) {
        throw badView(view, `unknown clause ${JSON.stringify(clause)}`)
      }
    }
    if (lines.length - 1 > rows) throw badView(view, `${lines.length - 1} rows follow the header of a screen of ${rows}`)
    s.lines = lines.slice(1)
    while (s.lines.length < rows) s.lines.push('')
    return s
  }
  if (prev === null) throw badView(view, 'a partial view needs the previous screen')
  if (prev.cols !== cols || prev.rows !== rows) {
    throw badView(view, `a partial view of a ${cols}x${rows} screen cannot apply to a ${prev.cols}x${prev.rows} one`)
  }
  if (m[7] === undefined) s.altScreen = prev.altScreen
  const base = prev.lines.slice()
  const set = new Set()
  const claim = (r) => {
    if (set.has(r)) throw badView(view, `row ${r} is named twice`)
    set.add(r)
  }
  const changed = new Set()
  // A whole-screen scroll comes first; the other clauses name the rows it
  // does not give (and may name rows it moved, such as a fixed status line).
  const scroll = clauses.filter((c) => /^scrolled (up|down) \d+$/.test(c))
  if (scroll.length > 1) throw badView(view, 'more than one whole-screen scroll')
  if (scroll.length === 1) {
    const [, dir, n] = /^scrolled (up|down) (\d+)$/.exec(scroll[0])
    const d = (dir === 'up' ? 1 : -1) * Number(n)
    if (Math.abs(d) >= rows || d === 0) throw badView(view, `a scroll by ${n} does not fit ${rows} rows`)
    for (let r = 0; r < rows; r++) base[r] = r + d >= 0 && r + d < rows ? prev.lines[r + d] : undefined
  }
  for (const clause of clauses) {
    let c
    if (clause === scroll[0]) {
      continue
    } else if ((c = MOVE.exec(clause))) {
      const a = Number(c[1])
      const b = c[2] === undefined ? a : Number(c[2])
      const oa = Number(c[3])
      const ob = c[4] === undefined ? oa : Number(c[4])
      const d = oa - a
      if (b < a || ob - oa !== b - a || b >= rows || ob >= rows) throw badView(view, `bad move ${JSON.stringify(clause)}`)
      if (c[5] !== undefined && (c[5] === 'up' ? d : -d) !== Number(c[6])) {
        throw badView(view, `the scroll in ${JSON.stringify(clause)} does not match its rows`)
      }
      for (let r = a; r <= b; r++) {
        claim(r)
        base[r] = prev.lines[r + d]
      }
    } else if ((c = /^rows? ([\d,-]+) changed$/.exec(clause))) {
      for (const r of parseRowList(c[1], rows, view)) {
        claim(r)
        changed.add(r)
      }
    } else if ((c = /^rows? ([\d,-]+) blank$/.exec(clause))) {
      for (const r of parseRowList(c[1], rows, view)) {
        claim(r)
        base[r] = ''
      }
    } else if (clause !== 'no row changed') {
      throw badView(view, `unknown clause ${JSON.stringify(clause)}`)
    }
  }
  const seen = new Set()
  for (let i = 1; i < lines.length; i++) {
    const at = lines[i].indexOf(MARK)
    const num = at < 0 ? '' : lines[i].slice(0, at).trim()
    if (!/^\d+$/.test(num)) throw badView(view, `line ${i + 1} is not a row such as "12${MARK}text"`)
    const r = Number(num)
    if (!changed.has(r)) throw badView(view, `row ${r} is listed but the header does not name it as changed`)
    if (seen.has(r)) throw badView(view, `row ${r} is listed twice`)
    seen.add(r)
    base[r] = lines[i].slice(at + MARK.length)
  }
  if (seen.size !== changed.size) throw badView(view, 'a row the header names as changed is missing')
  const gap = base.indexOf(undefined)
  if (gap >= 0) throw badView(view, `row ${gap} is left empty by the scroll and not given`)
  s.lines = base
  return s
}

/**
 * Remembers, per key (a handle or session id), the screen last sent, and
 * renders each new screen as a view of what changed since.
 */
class ScreenViewTracker {
  #last = new Map()

  /** `screen` as a view against the last screen sent for `key`; remembers it. */
  view(key, screen, options) {
    if (typeof key !== 'string') throw invalidArg(`key must be a string, got ${describe(key)}`)
    const full = checkOptions(options)
    const s = normalize(screen, 'screen')
    const view = viewOf(this.#last.get(key) || null, s, full)
    this.#last.set(key, s)
    return view
  }

  /** The screen last sent for `key`, or null. */
  last(key) {
    const s = this.#last.get(key)
    return s ? { ...s, lines: s.lines.slice(), cursor: { ...s.cursor } } : null
  }

  /** Forgets `key` (the next view for it is full); true when it was known. */
  forget(key) {
    return this.#last.delete(key)
  }

  /** The keys that have a remembered screen. */
  keys() {
    return [...this.#last.keys()]
  }

  /** Forgets every key. */
  clear() {
    this.#last.clear()
  }

  /** How many keys have a remembered screen. */
  get size() {
    return this.#last.size
  }
}

module.exports = { screenView, rebuildScreen, ScreenViewTracker }
