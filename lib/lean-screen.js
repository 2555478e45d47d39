'use strict'
// Lean screens: the text a model is sent when it looks at a terminal screen
// again. A 24×80 screen is about 2 000 characters, and an agent driving vim
// or `git add -p` step by step would otherwise resend mostly the same rows.
//
// `screenView(previous, next)` renders `next` as the shortest faithful text
// given the screen last sent (`previous`): a full view (a header with the
// size and the cursor, then the rows), a partial view (a header naming what
// moved — a scroll, rows as they were — then only the rows with new text,
// each after its row number, or as an edit in place such as a status line's
// new numbers), or "[screen unchanged]". `ScreenViewTracker` keeps, per key
// (a handle id), the last screens sent and numbers its views, so that a
// partial view can also name rows of an earlier view (a pager paging back,
// an undo). `rebuildScreen(previous, text, earlier)` is the inverse: it
// applies a view to the previous screen and gives back the new one exactly.
//
// The format is documented in lib/lean-screen.d.ts (`screenView`) and in the README
// ("Lean screens").

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

/** `5` or `3-9`. */
const span = (a, b) => (a === b ? `${a}` : `${a}-${b}`)
/** `rows 3-9 were 4-10` (`of view 2` appended when from an earlier view): new rows a..b are old rows a+d..b+d. */
const moveClause = (a, b, d, from) => `${a === b ? 'row' : 'rows'} ${span(a, b)} ${a === b ? 'was' : 'were'} ${span(a + d, b + d)}${from}`
/** `rows 3,5-7 blank`: a sorted list of rows and what they are. */
const listClause = (rows, what) => `${rows.length === 1 ? 'row' : 'rows'} ${rowList(rows)} ${what}`

/**
 * The header: kind, view number (a tracker's), size (full views only: a
 * partial view has the size of the screen it applies to), cursor, and the
 * alternate screen — in a full view when it is on, in a partial view when it
 * switched (on, or back to the main screen).
 */
function header(s, kind, number, clauses, prev) {
  let out = `[${kind} view`
  if (number !== null) out += ` ${number}`
  if (kind === 'full') out += `${number !== null ? ',' : ''} ${s.cols}x${s.rows}`
  // A partial view names the cursor only when it moved (or was shown or hidden).
  const c = s.cursor
  const p = prev === null ? null : prev.cursor
  if (kind === 'full' || p === null || p.row !== c.row || p.col !== c.col || p.visible !== c.visible) {
    out += `, cursor ${c.row},${c.col}${c.visible ? '' : ' hidden'}`
  }
  if (prev === null ? s.altScreen : s.altScreen !== prev.altScreen) out += s.altScreen ? ', alternate screen' : ', main screen'
  if (clauses.length > 0) out += `; ${clauses.join('; ')}`
  return out + ']'
}

/**
 * Every row in order up to the last one with text: the rows after it (the
 * header has the size) are blank; a screen with no text says so.
 */
function fullView(s, number) {
  let last = s.rows - 1
  while (last >= 0 && s.lines[last] === '') last--
  return [header(s, 'full', number, last < 0 ? ['all rows blank'] : [], null), ...s.lines.slice(0, last + 1)].join('\n')
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
// Each estimate below is tried with a few weights (clauses costing less or
// more than they look), and the shortest rendered view is kept.
const MOVE_COST = 20 // "; rows 14-22 were 13-21"
const REF_COST = 24 // "; rows 0-22 as in view 12"
const REF_MOVE_COST = 32 // "; rows 0-17 were 5-22 of view 12"
const BLANK_COST = 3 // ",15" in a "blank" list
const LIST_COST = 6 // ",11-16" in an "as in view 12" list
const WEIGHTS = [1, 0.5, 1.5]

/**
 * A row written over the row it replaces, as a terminal redraws a status
 * line: the spans where `line` differs from `old` (both arrays of
 * characters; `old` is padded with spaces when `line` is longer), spans
 * closer than a few characters merged. Null when `line` is shorter (a
 * rewrite cannot shorten a row).
 */
function overwrites(old, line) {
  if (line.length < old.length) return null
  const spans = []
  for (let i = 0; i < line.length; i++) {
    if ((i < old.length ? old[i] : ' ') === line[i]) continue
    // A span takes whole words of the new row (`39,1`, not `9`), so that
    // what the model reads is a value, not a fragment of one.
    let at = i
    while (at > 0 && line[at - 1] !== ' ' && line[at] !== ' ') at--
    let end = i + 1
    while (end < line.length && ((end < old.length ? old[end] : ' ') !== line[end] || (line[end] !== ' ' && line[end - 1] !== ' '))) end++
    const last = spans[spans.length - 1]
    if (last && at - last.end <= 6) last.end = end
    else spans.push({ at, end })
    i = end - 1
  }
  return spans.map(({ at, end }) => ({ at, text: line.slice(at, end).join('') }))
}

/**
 * The characters a row costs in a partial view: listed whole, or as
 * overwrites of the old row when that row was edited in place — it is
 * nowhere else on the new screen (not a row that scrolled away), at most
 * two spans changed, and most of it stays — so the model reads a status
 * line's new numbers, not a puzzle of fragments.
 */
function rowCost(old, line, width, editable) {
  const chars = [...line]
  const whole = width + 2 + chars.length
  if (!editable) return { cost: whole, spans: null }
  const spans = overwrites([...old], chars)
  if (spans === null || spans.length === 0 || spans.length > 2) return { cost: whole, spans: null }
  let cost = 0
  let changed = 0
  for (const sp of spans) {
    const n = [...sp.text].length
    changed += n
    cost += width + 3 + String(sp.at).length + n
  }
  return cost < whole && 3 * changed <= chars.length ? { cost, spans } : { cost: whole, spans: null }
}

/** The most rows in a block of new text whose rows may be told as edits in place. */
const EDITED_BLOCK = 2

/**
 * Which rows a partial view may tell as edits in place (`rowCost`): a row
 * whose old text is nowhere on the new screen (not a row that scrolled
 * away), in a block of at most two rows with new text (a status line, a
 * prompt, a line being typed — not a new page, whose rows are sent whole
 * even where they look like the old ones).
 */
function editsInPlace(sources, where, next) {
  const prev = sources[0]
  const kept = new Set(next.lines)
  const R = next.rows
  // New text: on none of the screens the view can name rows of.
  const fresh = next.lines.map((line, i) => line !== prev.lines[i] && line !== '' && !where.some((at) => at.has(line)))
  const out = new Array(R).fill(false)
  for (let i = 0; i < R; ) {
    let j = i
    while (j < R && fresh[j]) j++
    for (let r = i; r < j; r++) out[r] = j - i <= EDITED_BLOCK && prev.lines[r] !== '' && !kept.has(prev.lines[r])
    i = j === i ? i + 1 : j
  }
  return out
}

// Bounds that keep planning fast on big screens of repeated rows (box
// borders, `~` lines): where a row's text is on an old screen many times,
// the few places nearest to it; and the cheapest runs going on per row.
const NEAREST = 3
const KEEP_STATES = 48

// A plan's state key: a row listed (or blank), or a run from row i+d of source src.
const LISTED = -1
const keyOf = (src, d) => src * 0x20000 + d + 0x10000

const ROWS_OF = new WeakMap()

/** A screen's text → the rows that show it (blank rows left out), kept per screen. */
function rowsOf(screen) {
  let at = ROWS_OF.get(screen)
  if (at !== undefined) return at
  at = new Map()
  screen.lines.forEach((line, j) => {
    if (line === '') return
    const list = at.get(line)
    if (list) list.push(j)
    else at.set(line, [j])
  })
  ROWS_OF.set(screen, at)
  return at
}

/** Up to NEAREST of the rows `at` (sorted) nearest to row `i`. */
function nearest(at, i) {
  if (at === undefined) return []
  if (at.length <= NEAREST) return at
  let lo = 0
  let hi = at.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (at[mid] < i) lo = mid + 1
    else hi = mid
  }
  // at[lo - 1] < i <= at[lo]: widen to the nearer side each time.
  let a = lo - 1
  let b = lo
  const out = []
  while (out.length < NEAREST) {
    if (b < at.length && (a < 0 || at[b] - i <= i - at[a])) out.push(at[b++])
    else out.push(at[a--])
  }
  return out
}

/** The cheapest KEEP_STATES states of a row (all of them when there are fewer). */
function prune(states) {
  if (states.size <= KEEP_STATES) return states
  const kept = [...states].sort((a, b) => a[1].cost - b[1].cost).slice(0, KEEP_STATES)
  if (!kept.some(([key]) => key === LISTED)) kept.push([LISTED, states.get(LISTED)])
  return new Map(kept)
}

/**
 * Plans a partial view of `next` given the screens sent before (`sources`,
 * newest first: `sources[0]` is the previous screen, the others earlier
 * views a tracker remembers). For each row it picks where the row comes
 * from: `{ src, d }` (row i+d of `sources[src]`; src 0 with d 0 is the row
 * left as it was), `'blank'` or `'text'` (listed). Rows from the same source
 * and shift in a run form one clause, so the plan is the cheapest path
 * through the rows, a clause costing once when its run starts.
 */
function plan(ctx, weight, listed) {
  const { sources, next, where, listing } = ctx
  const R = next.rows
  // Per row: state key → { cost, back: the key of the previous row's state, src, d }.
  const trail = []
  let before = null
  for (let i = 0; i < R; i++) {
    const line = next.lines[i]
    let bestCost = 0
    let bestKey = null
    if (before !== null) {
      bestCost = Infinity
      for (const [key, st] of before) {
        if (st.cost < bestCost) {
          bestCost = st.cost
          bestKey = key
        }
      }
    }
    const now = new Map()
    const offer = (key, src, d, cost, back) => {
      const had = now.get(key)
      if (had === undefined || cost < had.cost) now.set(key, { cost, back, src, d })
    }
    offer(LISTED, -1, 0, bestCost + (line === '' ? BLANK_COST : listing[i].cost), bestKey)
    // A run goes on where the same source and shift give this row too.
    if (before !== null) {
      for (const [key, st] of before) {
        if (st.src < 0) continue
        const j = i + st.d
        if (j >= 0 && j < R && sources[st.src].lines[j] === line) offer(key, st.src, st.d, st.cost, key)
      }
    }
    // Or a run starts here: the row as it was, or found on a screen sent before.
    if (sources[0].lines[i] === line) offer(keyOf(0, 0), 0, 0, bestCost, bestKey)
    if (line !== '') {
      for (let src = 0; src < sources.length; src++) {
        for (const j of nearest(where[src].get(line), i)) {
          const d = j - i
          // Rows as on an earlier view join one list per view: a run of a
          // view already in a list (`listed`) costs only its range.
          const same = listed !== undefined && listed.has(src) ? LIST_COST : REF_COST
          const start = weight * (src === 0 ? (d === 0 ? 0 : MOVE_COST) : d === 0 ? same : REF_MOVE_COST)
          offer(keyOf(src, d), src, d, bestCost + start, bestKey)
        }
      }
    }
    trail.push(now)
    before = prune(now)
  }
  let key = null
  let best = Infinity
  for (const [k, st] of before) {
    if (st.cost < best) {
      best = st.cost
      key = k
    }
  }
  const out = new Array(R)
  for (let i = R - 1; i >= 0; i--) {
    const st = trail[i].get(key)
    out[i] = st.src < 0 ? (next.lines[i] === '' ? 'blank' : 'text') : { src: st.src, d: st.d }
    key = st.back
  }
  return out
}


/**
 * The partial view of `next` given the screens sent before (`sources`,
 * newest first, with their view numbers in `numbers`), as `plan` finds it
 * cheapest.
 */
function partialView(sources, numbers, next, number) {
  const width = String(next.rows - 1).length
  const where = sources.map(rowsOf)
  const editable = editsInPlace(sources, where, next)
  const ctx = {
    sources,
    numbers,
    next,
    number,
    width,
    where,
    // Per row: what listing it costs, whole or as edits in place.
    listing: next.lines.map((line, i) => rowCost(sources[0].lines[i], line, width, editable[i])),
  }
  let best = null
  for (const weight of WEIGHTS) {
    const steps = plan(ctx, weight)
    // Planned again knowing which earlier views the plan lists rows of.
    const listed = new Set(steps.filter((st) => typeof st === 'object' && st.src > 0 && st.d === 0).map((st) => st.src))
    for (const candidate of listed.size > 0 ? [steps, plan(ctx, weight, listed)] : [steps]) {
      const text = renderPlan(ctx, candidate)
      if (best === null || text.length < best.length) best = text
    }
  }
  return best
}

/** A plan (see `plan`) as the text of a partial view. */
function renderPlan(ctx, steps) {
  const { sources, numbers, next, number, width, listing } = ctx
  const prev = sources[0]
  const R = next.rows
  // A listed row is written whole, or as overwrites of the row it replaces.
  const spans = steps.map((st, i) => (st === 'text' ? listing[i].spans : null))
  // Rows a scroll leaves must be given whole (listed or blank).
  const fresh = (a, b) => steps.slice(a, b).every((st, k) => typeof st !== 'object' && spans[a + k] === null)
  const clauses = []
  const listed = []
  const blank = []
  const same = new Map()
  for (let i = 0; i < R; ) {
    const st = steps[i]
    if (st === 'text') listed.push(i)
    else if (st === 'blank') blank.push(i)
    if (typeof st !== 'object' || (st.src === 0 && st.d === 0)) {
      i++
      continue
    }
    let j = i
    while (j + 1 < R && typeof steps[j + 1] === 'object' && steps[j + 1].src === st.src && steps[j + 1].d === st.d) j++
    const d = st.d
    if (st.src > 0 && d === 0) {
      // Rows as they were on an earlier view: one list per view.
      const list = same.get(st.src) || []
      for (let r = i; r <= j; r++) list.push(r)
      same.set(st.src, list)
    } else if (st.src > 0) {
      clauses.push(moveClause(i, j, d, ` of view ${numbers[st.src]}`))
    } else if (d > 0 && j + d < R && fresh(j + 1, j + d + 1)) {
      // Rows i..j came up by d and the d rows below them are new: the
      // region i..j+d scrolled, as a pager or a shell with a fixed line does.
      clauses.push(i === 0 && j + d === R - 1 ? `scrolled up ${d}` : `rows ${i}-${j + d} scrolled up ${d}`)
    } else if (d < 0 && i + d >= 0 && fresh(i + d, i)) {
      clauses.push(i + d === 0 && j === R - 1 ? `scrolled down ${-d}` : `rows ${i + d}-${j} scrolled down ${-d}`)
    } else {
      clauses.push(moveClause(i, j, d, ''))
    }
    i = j + 1
  }
  for (const [src, list] of same) clauses.push(listClause(list, `as in view ${numbers[src]}`))
  if (blank.length > 0) clauses.push(listClause(blank, 'blank'))
  if (clauses.length === 0 && listed.length === 0) clauses.push('no row changed')
  const out = [header(next, 'partial', number, clauses, prev)]
  for (const row of listed) {
    const num = String(row).padStart(width)
    if (spans[row] === null) out.push(`${num}${MARK}${next.lines[row]}`)
    else for (const sp of spans[row]) out.push(`${num}:${sp.at}${MARK}${sp.text}`)
  }
  return out.join('\n')
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
  const prev = previous === null || previous === undefined ? [] : [{ number: null, screen: normalize(previous, 'previous') }]
  return viewOf(prev, s, full, null)
}

/** The largest shift of the scrolls in a view's text (positive: up), for statistics. */
function scrollOf(text) {
  let most = 0
  for (const m of text.split('\n', 1)[0].matchAll(/scrolled (up|down) (\d+)/g)) {
    const d = (m[1] === 'up' ? 1 : -1) * Number(m[2])
    if (Math.abs(d) > Math.abs(most)) most = d
  }
  return most
}

/**
 * The view of `s` given `history` (the screens sent before that a partial
 * view may name, newest first: `{ number, screen }`), numbered `number`
 * (null: no numbers, so no screen before the last one can be named).
 */
function viewOf(history, s, forceFull, number) {
  const prev = history.length > 0 ? history[0].screen : null
  if (forceFull || prev === null || prev.cols !== s.cols || prev.rows !== s.rows) {
    return { text: fullView(s, number), kind: 'full', scrolled: 0 }
  }
  let unchangedRows = true
  for (let i = 0; i < s.rows && unchangedRows; i++) unchangedRows = prev.lines[i] === s.lines[i]
  if (unchangedRows && sameMeta(prev, s)) return { text: UNCHANGED, kind: 'unchanged', scrolled: 0 }
  // Only screens of the same size can lend rows.
  const usable = history.filter((h, i) => i === 0 || (h.number !== null && h.screen.cols === s.cols && h.screen.rows === s.rows))
  const text = partialView(
    usable.map((h) => h.screen),
    usable.map((h) => h.number),
    s,
    number,
  )
  const fullText = fullView(s, number)
  if (text.length < fullText.length) return { text, kind: 'partial', scrolled: scrollOf(text) }
  return { text: fullText, kind: 'full', scrolled: 0 }
}

function badView(view, why) {
  const first = view.split('\n', 1)[0]
  return invalidArg(`view is not a screen view from screenView(): ${why} (first line ${describe(first)})`)
}

const HEADER = /^\[(full|partial) view(?: (\d+))?(?:,? (\d+)x(\d+))?(?:, cursor (\d+),(\d+)( hidden)?)?(, alternate screen|, main screen)?(?:; (.*))?\]$/
const RANGE = '(\\d+)(?:-(\\d+))?'
const MOVE = new RegExp(`^rows? ${RANGE} (?:was|were) ${RANGE}(?: of view (\\d+))?$`)
const SAME = /^rows? ([\d,-]+) as in view (\d+)$/
const SCROLL = new RegExp(`^(?:rows ${RANGE} )?scrolled (up|down) (\\d+)$`)

/** The screen view `number` named, from `earlier` (a Map or a function). */
function earlierScreen(earlier, number, view) {
  let s
  if (typeof earlier === 'function') s = earlier(number)
  else if (earlier !== null && earlier !== undefined && typeof earlier.get === 'function') s = earlier.get(number)
  if (s === null || s === undefined) throw badView(view, `it names view ${number}, and no screen of view ${number} was given`)
  return normalize(s, `the screen of view ${number}`)
}

/**
 * The screen `view` (a text from `screenView` or a tracker) describes, given
 * the screen the previous view described (`previous`; null before the first
 * one) and, for a view that names earlier views (`as in view 3`), `earlier`:
 * a Map (or a function) from view numbers to the screens they described.
 */
function rebuildScreen(previous, view, earlier) {
  if (typeof view !== 'string') throw invalidArg(`view must be a string from screenView(), got ${describe(view)}`)
  if (earlier !== undefined && earlier !== null && typeof earlier !== 'function' && (typeof earlier !== 'object' || typeof earlier.get !== 'function')) {
    throw invalidArg(`earlier must be a Map (or a function) from view numbers to screens, got ${describe(earlier)}`)
  }
  const prev = previous === null || previous === undefined ? null : normalize(previous, 'previous')
  const lines = view.split('\n')
  if (lines[0] === UNCHANGED) {
    if (lines.length !== 1) throw badView(view, 'text follows "[screen unchanged]"')
    if (prev === null) throw badView(view, 'an unchanged screen needs the previous screen')
    return prev
  }
  const m = HEADER.exec(lines[0])
  if (!m) throw badView(view, 'the first line is not a screen header')
  const full = m[1] === 'full'
  if (full !== (m[3] !== undefined)) throw badView(view, full ? 'a full view has the size' : 'a partial view has no size')
  if (full && m[5] === undefined) throw badView(view, 'a full view has the cursor')
  const [row, col] = [m[5], m[6]].map(Number)
  const clauses = m[9] === undefined ? [] : m[9].split('; ')
  if (full) {
    const [cols, rows] = [m[3], m[4]].map(Number)
    if (cols < 1 || rows < 1) throw badView(view, `a ${cols}x${rows} screen has no cells`)
    if (m[8] === ', main screen') throw badView(view, 'a full view names the alternate screen only when it is on')
    // The rows follow in order; the rest are blank.
    for (const clause of clauses) {
      if (clause !== 'all rows blank' && !/^rows? [\d,-]+ blank$/.test(clause)) {
        throw badView(view, `unknown clause ${JSON.stringify(clause)}`)
      }
    }
    if (lines.length - 1 > rows) throw badView(view, `${lines.length - 1} rows follow the header of a screen of ${rows}`)
    const out = lines.slice(1)
    while (out.length < rows) out.push('')
    return { cols, rows, lines: out, cursor: { row, col, visible: m[7] === undefined }, altScreen: m[8] === ', alternate screen' }
  }
  if (prev === null) throw badView(view, 'a partial view needs the previous screen')
  const { cols, rows } = prev
  const cursor = m[5] === undefined ? { ...prev.cursor } : { row, col, visible: m[7] === undefined }
  const s = { cols, rows, lines: null, cursor, altScreen: m[8] === undefined ? prev.altScreen : m[8] === ', alternate screen' }
  // Each row gets at most one value from the clauses and the listed rows; a
  // row a scroll leaves must get one; every other row is as it was.
  const value = new Array(rows).fill(undefined)
  const vacant = new Set()
  const set = (r, text) => {
    if (r < 0 || r >= rows) throw badView(view, `row ${r} is outside rows 0-${rows - 1}`)
    if (value[r] !== undefined) throw badView(view, `row ${r} is given twice`)
    value[r] = text
  }
  const bounds = (c, at) => {
    const a = Number(c[at])
    const b = c[at + 1] === undefined ? a : Number(c[at + 1])
    if (b < a) throw badView(view, `bad range ${a}-${b}`)
    return [a, b]
  }
  const moveFrom = (src, a, b, oa, ob) => {
    if (ob - oa !== b - a) throw badView(view, `rows ${a}-${b} and ${oa}-${ob} are not the same number of rows`)
    if (ob >= src.rows) throw badView(view, `row ${ob} is outside rows 0-${src.rows - 1}`)
    for (let r = a; r <= b; r++) set(r, src.lines[r - a + oa])
  }
  const sourceOf = (n) => {
    const src = earlierScreen(earlier, n, view)
    if (src.cols !== cols || src.rows !== rows) throw badView(view, `view ${n} is ${src.cols}x${src.rows}, not ${cols}x${rows}`)
    return src
  }
  let c
  for (const clause of clauses) {
    if ((c = SCROLL.exec(clause))) {
      const [a, b] = c[1] === undefined ? [0, rows - 1] : bounds(c, 1)
      const n = Number(c[4])
      if (b >= rows || n < 1 || n > b - a) throw badView(view, `a scroll by ${n} does not fit rows ${a}-${b} of ${rows}`)
      if (c[3] === 'up') {
        moveFrom(prev, a, b - n, a + n, b)
        for (let r = b - n + 1; r <= b; r++) vacant.add(r)
      } else {
        moveFrom(prev, a + n, b, a, b - n)
        for (let r = a; r < a + n; r++) vacant.add(r)
      }
    } else if ((c = MOVE.exec(clause))) {
      const [a, b] = bounds(c, 1)
      const [oa, ob] = bounds(c, 3)
      moveFrom(c[5] === undefined ? prev : sourceOf(Number(c[5])), a, b, oa, ob)
    } else if ((c = SAME.exec(clause))) {
      const src = sourceOf(Number(c[2]))
      for (const r of parseRowList(c[1], rows, view)) set(r, src.lines[r])
    } else if ((c = /^rows? ([\d,-]+) blank$/.exec(clause))) {
      for (const r of parseRowList(c[1], rows, view)) set(r, '')
    } else if (clause !== 'no row changed' || clauses.length > 1 || lines.length > 1) {
      throw badView(view, `unknown clause ${JSON.stringify(clause)}`)
    }
  }
  // Listed rows: `12│text` (the whole row) or `12:40│text` (written over the
  // row as it was, from character 40; spaces pad a shorter row).
  const whole = new Set()
  const written = new Map()
  for (let i = 1; i < lines.length; i++) {
    const at = lines[i].indexOf(MARK)
    const m = at < 0 ? null : /^ *(\d+)(?::(\d+))?$/.exec(lines[i].slice(0, at))
    if (!m) throw badView(view, `line ${i + 1} is not a row such as "12${MARK}text" or "12:40${MARK}text"`)
    const r = Number(m[1])
    if (r >= rows) throw badView(view, `row ${r} is outside rows 0-${rows - 1}`)
    if (whole.has(r)) throw badView(view, `row ${r} is given twice`)
    if (value[r] !== undefined && !written.has(r)) throw badView(view, `row ${r} is listed and also named in the header`)
    if (vacant.has(r) && m[2] !== undefined) throw badView(view, `row ${r} is left by a scroll: it has no text to write over`)
    const text = lines[i].slice(at + MARK.length)
    if (m[2] === undefined) {
      if (written.has(r)) throw badView(view, `row ${r} is given twice`)
      whole.add(r)
      value[r] = text
      continue
    }
    const from = Number(m[2])
    const old = [...(written.has(r) ? written.get(r) : prev.lines[r])]
    while (old.length < from) old.push(' ')
    const chars = [...text]
    const row = [...old.slice(0, from), ...chars, ...old.slice(from + chars.length)].join('')
    written.set(r, row)
    value[r] = row
  }
  s.lines = value.map((v, r) => {
    if (v !== undefined) return v
    if (vacant.has(r)) throw badView(view, `row ${r} is left empty by a scroll and not given`)
    return prev.lines[r]
  })
  return s
}

/** How many views a tracker remembers per key, and so the oldest a partial view can name. */
const HISTORY = 16

/**
 * Remembers, per key (a handle or session id), the screens last sent, and
 * renders each new screen as a view of what changed since. Views are
 * numbered (one count for the tracker, so a number names one view); a
 * partial view may name rows of one of the last 16 views of its key.
 */
class ScreenViewTracker {
  #history = new Map()
  #count = 0

  /** `screen` as a view against the screens sent for `key`; remembers it. */
  view(key, screen, options) {
    if (typeof key !== 'string') throw invalidArg(`key must be a string, got ${describe(key)}`)
    const full = checkOptions(options)
    const s = normalize(screen, 'screen')
    const history = this.#history.get(key) || []
    const number = this.#count + 1
    const view = viewOf(history, s, full, number)
    if (view.kind === 'unchanged') return { ...view, number: history[0].number }
    this.#count = number
    this.#history.set(key, [{ number, screen: s }, ...history.slice(0, HISTORY - 1)])
    return { ...view, number }
  }

  /** The screen last sent for `key`, or null. */
  last(key) {
    const h = this.#history.get(key)
    if (!h) return null
    const s = h[0].screen
    return { ...s, lines: s.lines.slice(), cursor: { ...s.cursor } }
  }

  /** Forgets `key` (the next view for it is full); true when it was known. */
  forget(key) {
    return this.#history.delete(key)
  }

  /** The keys that have a remembered screen. */
  keys() {
    return [...this.#history.keys()]
  }

  /** Forgets every key. */
  clear() {
    this.#history.clear()
  }

  /** How many keys have a remembered screen. */
  get size() {
    return this.#history.size
  }
}

module.exports = { screenView, rebuildScreen, ScreenViewTracker }
