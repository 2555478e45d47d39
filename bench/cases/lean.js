'use strict'
// Case 8: lean screens — characters sent to the model over multi-step agent
// sessions, lean views (screenView) against full screens.
//
// The sessions (bench/lib/agent-sessions.js) drive real programs at 80×24:
// vim editing a file, `less` paging a log, `git add -p` over 5 hunks, a
// Python REPL. After each step the screen is taken as an agent's tool call
// would return it. "Full" is the screen text a call returns (rows
// right-trimmed, trailing blank rows dropped); "lean" is what
// ScreenViewTracker renders for the same screens, as respond() sends them.
// A screen after which the program exited is the stopped handle's final
// content: respond() sends it as a view of the last screen when that is a
// partial view shorter than the content, else whole (counted so here).
// Every lean view is rebuilt with rebuildScreen (given the screens of the
// earlier views it names) and compared with the screen: a mismatch fails
// the case. "New rows" counts the characters of the rows that were nowhere
// on the previous screen (the first screen whole); "on no earlier screen"
// those that were on no screen sent before.
//
//   node bench/cases/lean.js [--rounds=1]

const { ScreenViewTracker, rebuildScreen } = require('../..')
const { SESSIONS, record } = require('../lib/agent-sessions')
const { argv, emit, log } = require('../lib/stats')

const opts = argv()
const ROUNDS = Number(opts.rounds || 1)

/** Characters as a model's tokenizer sees text: code points. */
const chars = (text) => [...text].length

function measure(steps) {
  const views = new ScreenViewTracker()
  let model = null
  const byNumber = new Map()
  let prev = null
  const sent = new Set()
  const out = { steps: steps.length, full: 0, lean: 0, newRows: 0, unseenRows: 0, kinds: { full: 0, partial: 0, unchanged: 0, exited: 0 } }
  for (const { screen, exited } of steps) {
    const full = chars(screen.text)
    out.full += full
    const seen = new Set(prev ? prev.lines : [])
    for (const line of screen.lines) {
      if (line === '') continue
      if (!seen.has(line)) out.newRows += chars(line) + 1
      if (!sent.has(line)) out.unseenRows += chars(line) + 1
    }
    for (const line of screen.lines) sent.add(line)
    prev = screen
    if (exited) {
      // As respond() sends a finished handle's final content (lib/respond.js).
      const last = views.last('h')
      const view = views.view('h', { ...last, lines: screen.lines })
      out.kinds.exited++
      if (view.kind === 'full' || view.text.length >= screen.text.length) {
        out.lean += full
        continue
      }
      out.lean += chars(view.text)
      model = rebuildScreen(model, view.text, byNumber)
      if (JSON.stringify(model.lines) !== JSON.stringify(screen.lines)) throw new Error(`a final view did not rebuild the screen:\n${view.text}`)
      continue
    }
    const view = views.view('h', screen)
    out.lean += chars(view.text)
    out.kinds[view.kind]++
    model = rebuildScreen(model, view.text, byNumber)
    byNumber.set(view.number, model)
    if (JSON.stringify(model.lines) !== JSON.stringify(screen.lines) || model.cursor.row !== screen.cursor.row || model.cursor.col !== screen.cursor.col) {
      throw new Error(`a lean view did not rebuild the screen:\n${view.text}`)
    }
  }
  return out
}

async function main() {
  const rows = []
  for (const [name, session] of Object.entries(SESSIONS)) {
    const runs = []
    for (let round = 0; round < ROUNDS; round++) runs.push(measure(await record(session)))
    // The screens are the same from run to run but for timing details
    // (vim's "1 second ago"); the first run is reported, the others checked.
    const r = runs[0]
    const ratios = runs.map((x) => x.lean / x.full)
    rows.push({ session: name, title: session.title, ...r, ratio: r.lean / r.full, ratioRange: [Math.min(...ratios), Math.max(...ratios)] })
    log(`${name}: ${r.steps} screens, full ${r.full}, lean ${r.lean} (${((100 * r.lean) / r.full).toFixed(1)} %), new rows ${r.newRows}; views ${JSON.stringify(r.kinds)}`)
  }
  const total = rows.reduce(
    (a, r) => ({ full: a.full + r.full, lean: a.lean + r.lean, newRows: a.newRows + r.newRows, unseenRows: a.unseenRows + r.unseenRows, steps: a.steps + r.steps }),
    { full: 0, lean: 0, newRows: 0, unseenRows: 0, steps: 0 },
  )
  log(`total: full ${total.full}, lean ${total.lean} (${((100 * total.lean) / total.full).toFixed(1)} %)`)
  emit({ rounds: ROUNDS, rows, total: { ...total, ratio: total.lean / total.full } })
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
