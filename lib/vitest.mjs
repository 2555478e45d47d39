// ptypilot/vitest: the kit for Vitest suites that test terminal programs end
// to end.
//
//   import { test, expect } from 'ptypilot/vitest'
//   test('saves', async ({ pty, expect }) => {
//     const vim = pty.spawn({ command: 'vim', args: ['notes.txt'] })
//     await expect(vim).toShowText('notes.txt')
//     vim.write(':wq\r')
//     await expect(vim).toHaveExited({ code: 0 })
//   })
//
// - Matchers, registered with `expect.extend` when this module is imported:
//   `toShowText` (waits; `.not` waits for the text to go; with `row`, `fg`,
//   `bg`, `bold`, `inverse`, ... only where the text has that style),
//   `toHaveTitle`, `toMatchScreenSnapshot` (a stable text form through
//   Vitest's snapshots), `toHaveExited`, `toBeWaitingForInput` (waits until
//   the program waits for input, of a kind; `.not` looks once). A failure
//   shows the screen with row numbers and the cursor.
// - A per-test fixture, `pty` (`test.extend`): its sessions are terminated when
//   their own test ends, whatever other tests run at the same time
//   (`describe.concurrent`); their waits default to what is left of the test's
//   timeout, so a wait that gives up reports the screen before Vitest reports
//   a bare `Test timed out`; the test's AbortSignal ends them. When a test
//   fails, an SVG screenshot of each of its sessions is written (and attached
//   to the test as a Vitest artifact), and with `record` an HTML trace of each
//   recording; the failure message names them.
//
// Vitest is ESM only, hence an ES module beside the CommonJS entry.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import * as vitest from 'vitest'
import { expect, test as baseTest, Snapshots } from 'vitest'

const require = createRequire(import.meta.url)
const { PtySession } = require('./pty-session.js')
const { writeTrace } = require('./trace.js')

/** Waits default to this when no test timeout bounds them (as `PtySession`). */
const FALLBACK_WAIT_MS = 10000

// ---------- the screen as text ----------

/** Marks a message that already shows a screen (the fixture adds none then). */
const SCREEN_HEADER = 'Screen '

/**
 * A screen for a failure message: a header with the size and the cursor, the
 * rows with their numbers (0-based, as `screen().lines`), the cursor's row
 * marked `>` and a `^` under its column. Rows below the last one with text
 * (and below the cursor) are summarised.
 */
export function formatScreen(screen) {
  const { lines, cursor, cols, rows } = screen
  let last = lines.length - 1
  while (last >= 0 && lines[last] === '' && last > cursor.row) last--
  const width = String(rows - 1).length
  const out = [
    `${SCREEN_HEADER}${cols}x${rows}, cursor at row ${cursor.row}, col ${cursor.col}` +
      `${cursor.visible ? '' : ' (hidden)'}${screen.altScreen ? ', alternate screen' : ''}:`,
  ]
  for (let row = 0; row <= last; row++) {
    const mark = row === cursor.row ? '>' : ' '
    out.push(`${mark} ${String(row).padStart(width)} │${lines[row]}`)
    if (row === cursor.row) out.push(`  ${' '.repeat(width)} │${' '.repeat(cursor.col)}^`)
  }
  if (last < rows - 1) {
    out.push(last === rows - 2 ? `  ${rows - 1} blank` : `  rows ${last + 1}-${rows - 1} blank`)
  }
  return out.join('\n')
}

/**
 * The stable text form `toMatchScreenSnapshot` stores: size, cursor, the
 * alternate screen when on, and every row numbered. Without the title
 * (programs put paths and host names there) and without `seq`. With
 * `attributes` (a `screen({ attributes: true })` snapshot), each styled run
 * that is not plain gets a line under its row: `~` under its columns, then
 * its colours and attributes.
 */
export function serializeScreen(screen, options = {}) {
  const width = String(screen.rows - 1).length
  const { row, col, visible } = screen.cursor
  const head = `${screen.cols}x${screen.rows} cursor ${row},${col}${visible ? '' : ' hidden'}${screen.altScreen ? ' alt' : ''}`
  const out = [head]
  screen.lines.forEach((line, i) => {
    out.push(`${String(i).padStart(width)}│${line}`)
    if (!options.attributes) return
    for (const run of screen.attributes[i]) {
      const style = describeStyle(run)
      if (style !== '') out.push(`${' '.repeat(width)}│${' '.repeat(run.col)}${'~'.repeat(run.width)} ${style}`)
    }
  })
  return out.join('\n')
}

/** `fg=1 bg=#102030 bold inverse`, or `''` for a plain run. */
function describeStyle(run) {
  const parts = []
  if (run.fg !== null) parts.push(`fg=${run.fg}`)
  if (run.bg !== null) parts.push(`bg=${run.bg}`)
  for (const flag of ['bold', 'dim', 'italic', 'underline', 'inverse']) if (run[flag]) parts.push(flag)
  return parts.join(' ')
}

// ---------- how long a wait may take ----------

/** What is left of `task`'s timeout (ms), or undefined when it has none. */
function timeLeft(task) {
  if (!task || typeof task.timeout !== 'number' || task.timeout <= 0) return undefined
  const start = task.result && typeof task.result.startTime === 'number' ? task.result.startTime : Date.now()
  return start + task.timeout - Date.now()
}

/**
 * The default of a wait in `task`: what is left of its timeout less a margin
 * (a tenth of the timeout, 100 ms to 1 s) for the failure to be reported;
 * 10 s outside a test or when the test has no timeout.
 */
export function fittingWaitMs(task) {
  const left = timeLeft(task)
  if (left === undefined) return FALLBACK_WAIT_MS
  const margin = Math.min(1000, Math.max(100, task.timeout / 10))
  return Math.max(0, Math.floor(left - margin))
}

// ---------- sessions of the fixture ----------

const kTask = Symbol('task')

/**
 * A `PtySession` made by the `pty` fixture. Its waits (`waitFor`,
 * `waitForSettle`) default to what is left of its test's timeout and end when
 * the test is aborted, and their errors show the screen with row numbers.
 */
export class TestSession extends PtySession {
  /** The test that made this session. */
  [kTask] = undefined
  #signal = undefined

  /** Internal: the fixture ties a session it started to its test. */
  static tie(session, task, signal) {
    session[kTask] = task
    session.#signal = signal
  }

  async waitFor(pattern, options) {
    return this.#explained(() => super.waitFor(pattern, this.#defaults(options)))
  }

  async waitForSettle(options) {
    return this.#explained(() => super.waitForSettle(this.#defaults(options)))
  }

  async waitForInput(options) {
    return this.#explained(() => super.waitForInput(this.#defaults(options)))
  }

  #defaults(options) {
    if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
      return options // let PtySession report it
    }
    const filled = { ...options }
    if (filled.timeoutMs === undefined) filled.timeoutMs = fittingWaitMs(this[kTask])
    if (this.#signal) filled.signal = filled.signal ? AbortSignal.any([filled.signal, this.#signal]) : this.#signal
    return filled
  }

  async #explained(wait) {
    try {
      return await wait()
    } catch (err) {
      if (err && err.screen && typeof err.message === 'string') {
        err.message = `${err.message.split('; screen:\n')[0]}\n\n${formatScreen(err.screen)}`
      }
      throw err
    }
  }
}

/** Programs a test started through `pty`; see `ptyFixture`. */
class PtyFixture {
  #task
  #signal
  #settings
  #sessions = []
  /** Recordings the fixture asked for, to keep or remove at the end. */
  #recordings = []

  constructor(task, signal, settings) {
    this.#task = task
    this.#signal = signal
    this.#settings = settings
  }

  /**
   * Starts a program like `PtySession.spawn` (throws on bad options or a
   * spawn failure); it is terminated when the test ends.
   */
  spawn(options, onData) {
    const recording = this.#recordingFor(options)
    const session = TestSession.spawn(recording ? { ...options, record: recording } : options, onData)
    if (recording) this.#recordings.push(recording)
    TestSession.tie(session, this.#task, this.#signal)
    this.#sessions.push(session)
    return session
  }

  /** The sessions this test started, oldest first. */
  get sessions() {
    return [...this.#sessions]
  }

  /**
   * Internal: terminates this test's programs. On failure: shows their
   * screens in the errors, writes (and attaches) their screenshots, keeps
   * their recordings and writes their traces; else removes recordings kept
   * only for failures.
   */
  async close(task) {
    const failed = Boolean(task.result && task.result.state === 'fail')
    // The screens as the failure left them, before TERM can change them.
    const evidence = failed ? this.#evidence() : []
    await Promise.all(
      this.#sessions.map(async (session) => {
        if (session.running) await session.terminate({ graceMs: this.#settings.graceMs })
      }),
    )
    if (failed) {
      await this.#explainFailure(task, evidence)
    } else if (this.#settings.record === 'failed') {
      for (const path of this.#recordings) rmSync(path, { force: true })
    }
  }

  /** Each session's screen now, as text and as SVG (either null when it cannot be had). */
  #evidence() {
    return this.#sessions.map((session, i) => {
      let text = null
      let svg = null
      try {
        const state = session.running ? `pid ${session.pid}, running` : 'exited'
        text = `session ${i + 1} of the test (${state}):\n${formatScreen(session.screen())}`
        if (this.#settings.screenshots === 'failed') svg = session.screenshot({ format: 'svg' })
      } catch {
        // A session that never started has no screen.
      }
      return { text, svg }
    })
  }

  /** The directory for this test's files (recordings, screenshots, traces), made when needed. */
  #dir() {
    const dir = this.#settings.recordDir ?? join(dirname(this.#task.file.filepath), '__recordings__')
    mkdirSync(dir, { recursive: true })
    return dir
  }

  /** The file name of this test's files: the test's full name, and the run when repeated or retried. */
  #baseName() {
    const task = this.#task
    const name = String(task.fullTestName ?? task.name)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 100)
    const { repeatCount = 0, retryCount = 0 } = task.result || {}
    const runs = `${repeatCount > 0 ? `-repeat${repeatCount}` : ''}${retryCount > 0 ? `-retry${retryCount}` : ''}`
    return `${name || 'test'}${runs}`
  }

  /** Where the next session is recorded, or undefined. */
  #recordingFor(options) {
    const { record } = this.#settings
    if (record === 'off' || options === null || typeof options !== 'object' || options.record !== undefined) return undefined
    return join(this.#dir(), `${this.#baseName()}-${this.#sessions.length + 1}.cast`)
  }

  /**
   * Appends the screens of the test's sessions to each error that does not
   * show one yet (a `Test timed out`, an assertion on something else); writes
   * the screenshots and the traces, attaches them to the test, and names
   * them and the recordings in the first error.
   */
  async #explainFailure(task, evidence) {
    const errors = (task.result && task.result.errors) || []
    if (errors.length === 0 || this.#sessions.length === 0) return
    const screens = evidence
      .map((e) => e.text)
      .filter(Boolean)
      .join('\n\n')
    for (const error of errors) {
      if (error && typeof error.message === 'string' && !error.message.includes(`\n${SCREEN_HEADER}`)) {
        error.message = `${error.message}\n\n${screens}`
      }
    }
    const notes = []
    const shots = []
    evidence.forEach((e, i) => {
      if (e.svg === null) return
      try {
        const path = join(this.#dir(), `${this.#baseName()}-${i + 1}.svg`)
        writeFileSync(path, e.svg)
        shots.push(path)
      } catch (err) {
        notes.push(`(the screenshot of session ${i + 1} could not be written: ${err.message})`)
      }
    })
    const traces = []
    for (const cast of this.#recordings) {
      try {
        traces.push(writeTrace(cast))
      } catch (err) {
        notes.push(`(the trace of ${cast} could not be written: ${err.message})`)
      }
    }
    await attach(task, shots, traces)
    const first = errors[0]
    if (!first || typeof first.message !== 'string') return
    const list = (title, paths) => (paths.length > 0 ? `\n\n${title}:\n${paths.map((p) => `  ${p}`).join('\n')}` : '')
    first.message +=
      list('Screenshots (SVG)', shots) +
      list('Recordings (asciinema play <file>)', this.#recordings) +
      list('Traces (open in a browser)', traces) +
      (notes.length > 0 ? `\n\n${notes.join('\n')}` : '')
  }
}

/**
 * Attaches a failed test's screenshots and traces to it as a Vitest artifact
 * (reporters show or link them), where the installed Vitest records
 * artifacts; the files stay on disk either way.
 */
async function attach(task, shots, traces) {
  if (typeof vitest.recordArtifact !== 'function' || shots.length + traces.length === 0) return
  try {
    await vitest.recordArtifact(task, {
      type: 'ptypilot:failure',
      attachments: [
        ...shots.map((path) => ({ path, contentType: 'image/svg+xml' })),
        ...traces.map((path) => ({ path, contentType: 'text/html' })),
      ],
    })
  } catch {
    // A runner without artifacts: the message names the files.
  }
}

/**
 * The `pty` fixture for `test.extend`: `pty.spawn(options)` starts a program
 * for this test only; when the test ends its programs are terminated (TERM,
 * `graceMs`, KILL; whole tree) and, if it failed, their screens are added to
 * the failure. With `record: 'failed'` every session is recorded (asciicast
 * v2) into `recordDir` and the recordings of passing tests are removed;
 * `'all'` keeps them all. A failing test's recordings get an HTML trace
 * each, and its sessions an SVG screenshot (unless `screenshots: 'off'`),
 * in `recordDir` too; both are attached to the test.
 *
 *   const test = base.extend({ pty: ptyFixture({ record: 'failed' }) })
 */
export function ptyFixture(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidArg(`ptyFixture() takes an options object, got ${typeof options}`)
  }
  const { graceMs = 1000, record = 'off', recordDir, screenshots = 'failed', ...rest } = options
  const unknown = Object.keys(rest)
  if (unknown.length > 0) throw invalidArg(`unknown option ${unknown[0]}; known options: graceMs, record, recordDir, screenshots`)
  if (typeof graceMs !== 'number' || !(graceMs >= 0)) {
    throw invalidArg(`graceMs must be a non-negative number of milliseconds, got ${String(graceMs)}`)
  }
  if (record !== 'off' && record !== 'failed' && record !== 'all') {
    throw invalidArg(`record must be 'off', 'failed' or 'all', got ${String(record)}`)
  }
  if (recordDir !== undefined && (typeof recordDir !== 'string' || recordDir === '')) {
    throw invalidArg(`recordDir must be a directory path, got ${String(recordDir)}`)
  }
  if (screenshots !== 'failed' && screenshots !== 'off') {
    throw invalidArg(`screenshots must be 'failed' or 'off', got ${String(screenshots)}`)
  }
  const settings = { graceMs, record, recordDir, screenshots }
  // Vitest reads the names of the first parameter's properties from the
  // source: keep it destructured.
  return async ({ task, signal }, use) => {
    const pty = new PtyFixture(task, signal, settings)
    try {
      await use(pty)
    } finally {
      await pty.close(task)
    }
  }
}

/** Vitest's `test` with the `pty` fixture. */
export const test = baseTest.extend({ pty: ptyFixture() })
export const it = test

function invalidArg(message) {
  const err = new Error(message)
  err.code = 'ERR_INVALID_ARG'
  return err
}

// ---------- matchers ----------

function isSession(value) {
  return value instanceof PtySession
}

function isScreen(value) {
  return (
    value !== null &&
    typeof value === 'object' &&
    Array.isArray(value.lines) &&
    value.cursor !== null &&
    typeof value.cursor === 'object' &&
    typeof value.rows === 'number' &&
    typeof value.cols === 'number'
  )
}

function notASession(name, received) {
  const what = received === null ? 'null' : typeof received
  return new TypeError(`expect(received).${name}() needs a PtySession as received, got ${what}`)
}

/** The test a wait belongs to: the session's own, else the assertion's. */
function taskOf(session, state) {
  return session[kTask] || state.task
}

function timeoutOption(options, name) {
  if (options === undefined) return undefined
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${name}() options must be an object such as { timeout: 1000 }`)
  }
  const { timeout } = options
  if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout >= 0))) {
    throw new TypeError(`${name}() options.timeout must be a non-negative number of milliseconds, got ${String(timeout)}`)
  }
  return timeout
}

function describeText(expected) {
  return typeof expected === 'string' ? JSON.stringify(expected) : String(expected)
}

function describeExit(exit) {
  if (exit.signal) return `was killed by ${exit.signal}`
  return `exited with code ${exit.exitCode}`
}

/** Whether `session`'s screen shows `expected` now (with waitFor's rules). */
async function showsNow(session, expected) {
  try {
    await PtySession.prototype.waitFor.call(session, expected, { in: 'screen', timeoutMs: 0 })
    return true
  } catch (err) {
    if (err && (err.code === 'ERR_TIMEOUT' || err.code === 'ERR_NOT_RUNNING')) return false
    throw err
  }
}


/** Style options `toShowText` takes, and the type each wants. */
const STYLE_KEYS = ['fg', 'bg', 'bold', 'dim', 'italic', 'underline', 'inverse']

/** The style (and row) `toShowText` options ask for, checked: `{ row, style }` or null for none. */
function styleOption(options) {
  if (options === undefined) return null
  const style = {}
  let row
  for (const key of Object.keys(options)) {
    const value = options[key]
    if (value === undefined) continue
    if (key === 'row') {
      if (!Number.isInteger(value) || value < 0) throw new TypeError(`toShowText() options.row must be a row number (0-based), got ${String(value)}`)
      row = value
    } else if (key === 'fg' || key === 'bg') {
      const ok = value === null || (Number.isInteger(value) && value >= 0 && value <= 255) || (typeof value === 'string' && /^#[0-9a-f]{6}$/i.test(value))
      if (!ok) throw new TypeError(`toShowText() options.${key} must be a colour: 0-255, '#rrggbb' or null (the default), got ${String(value)}`)
      style[key] = typeof value === 'string' ? value.toLowerCase() : value
    } else if (STYLE_KEYS.includes(key)) {
      if (typeof value !== 'boolean') throw new TypeError(`toShowText() options.${key} must be a boolean, got ${String(value)}`)
      style[key] = value
    } else if (key !== 'timeout') {
      throw new TypeError(`toShowText() has no option ${key}; known: timeout, row, ${STYLE_KEYS.join(', ')}`)
    }
  }
  if (row === undefined && Object.keys(style).length === 0) return null
  return { row, style }
}

/** `fg=1 bold` for the keys of `style` as a run has them. */
function styleOf(run, keys) {
  return keys.map((k) => (typeof run[k] === 'boolean' ? (run[k] ? k : `not ${k}`) : `${k}=${run[k] === null ? 'default' : run[k]}`)).join(' ')
}

/**
 * Where `expected` shows on a styled screen (rows of runs), in the row asked
 * for if any: `{ hits, misses }`, each `{ row, col, text, style }`; a hit has
 * every cell of the match in `style`, a miss is a match where some cell is not.
 */
function styledMatches(screen, expected, { row, style }) {
  const keys = Object.keys(style)
  const hits = []
  const misses = []
  screen.attributes.forEach((runs, r) => {
    if (row !== undefined && r !== row) return
    let line = ''
    const runAt = []
    runs.forEach((run, k) => {
      for (let i = 0; i < run.text.length; i++) runAt.push(k)
      line += run.text
    })
    const found = []
    if (typeof expected === 'string') {
      for (let at = line.indexOf(expected); at !== -1 && expected !== ''; at = line.indexOf(expected, at + expected.length)) {
        found.push([at, expected])
      }
    } else {
      const re = new RegExp(expected.source, expected.flags.includes('g') ? expected.flags : `${expected.flags}g`)
      for (const m of line.matchAll(re)) if (m[0] !== '') found.push([m.index, m[0]])
    }
    for (const [at, text] of found) {
      const covered = [...new Set(runAt.slice(at, at + text.length))].map((k) => runs[k])
      const bad = covered.find((run) => keys.some((k) => run[k] !== style[k]))
      const first = runs[runAt[at]]
      // The column of the match's first character: its run's, plus where it is in the run.
      let offset = 0
      for (let k = 0; k < runAt[at]; k++) offset += runs[k].text.length
      const where = { row: r, col: first.col + (at - offset), text }
      if (bad) misses.push({ ...where, style: styleOf(bad, keys) })
      else hits.push({ ...where, style: styleOf(first, keys) })
    }
  })
  return { hits, misses }
}

/**
 * Waits until `test(session)` is true (or, with `not`, false), looking again
 * whenever the screen changes, up to `timeout` ms or the program's exit.
 * Returns whether the wanted answer came.
 */
async function untilScreen(session, test, timeout, not = false) {
  const deadline = Date.now() + timeout
  for (;;) {
    const { seq } = session.screen()
    if (test(session) !== not) return true
    const left = deadline - Date.now()
    if (left <= 0 || !session.running) return false
    try {
      await PtySession.prototype.waitFor.call(session, /(?:)/, { in: 'screen', since: seq, timeoutMs: left })
    } catch (err) {
      if (!err || (err.code !== 'ERR_TIMEOUT' && err.code !== 'ERR_NOT_RUNNING')) throw err
    }
  }
}

/**
 * `toShowText` with a `row` or a style: waits until the text shows there with
 * every cell in that style (with `.not`, until it no longer does).
 */
async function showsStyled(received, expected, styled, timeout, hint) {
  let last = null
  const check = (session) => {
    last = styledMatches(session.screen({ attributes: true }), expected, styled)
    return last.hits.length > 0
  }
  const wanted = await untilScreen(received, check, timeout, this.isNot)
  const screen = received.screen()
  const asked = [
    styled.row !== undefined ? `on row ${styled.row}` : '',
    Object.keys(styled.style).length > 0 ? `with ${styleOf(styled.style, Object.keys(styled.style))}` : '',
  ]
    .filter(Boolean)
    .join(' ')
  const describeAll = (list) => list.map((m) => `  row ${m.row}, col ${m.col}: ${m.style}`).join('\n')
  const found =
    last.hits.length > 0
      ? `Shown ${asked} at:\n${describeAll(last.hits)}`
      : last.misses.length > 0
        ? `Shown, but not ${asked}:\n${describeAll(last.misses)}`
        : `Not shown${styled.row !== undefined ? ` on row ${styled.row}` : ''}.`
  const why = this.isNot
    ? wanted
      ? 'The screen no longer shows the text so.'
      : `The screen still showed the text so after ${timeout} ms.`
    : wanted
      ? 'The screen shows the text so.'
      : received.running
        ? `The screen did not show the text so within ${timeout} ms.`
        : 'The program exited without showing the text so.'
  const pass = this.isNot ? !wanted : wanted
  return {
    pass,
    message: () =>
      `${hint}\n\n${why}\nExpected: ${this.isNot ? 'not ' : ''}${describeText(expected)} ${asked}\n${found}\n\n${formatScreen(screen)}`,
  }
}

const INPUT_KINDS = ['line', 'password', 'key']

/** `waits for password input (python3, pid 42, decided by the kernel)`. */
function describeInput(state) {
  if (!state.waiting) return state.how === null ? 'has no terminal to wait on (it exited)' : 'is not waiting for input'
  const who = state.program ? `${state.program}, pid ${state.pid}` : `pid ${state.pid}`
  const how = state.how === 'quiet' ? 'a guess from 300 ms of quiet' : 'as the kernel tells'
  return `waits for ${state.kind} input (${who}; ${how})`
}

const matchers = {
  /**
   * Waits (up to `timeout`) until the screen shows `expected`; with `.not`,
   * until it no longer does.
   */
  async toShowText(received, expected, options) {
    if (!isSession(received)) throw notASession('toShowText', received)
    if (typeof expected !== 'string' && !(expected instanceof RegExp)) {
      throw new TypeError(`toShowText() expects a string or a RegExp, got ${typeof expected}`)
    }
    const timeout = timeoutOption(options, 'toShowText') ?? fittingWaitMs(taskOf(received, this))
    const hint = this.utils.matcherHint(`${this.isNot ? '.not' : ''}.toShowText`, 'session', 'text', {
      isNot: this.isNot,
    })
    const styled = styleOption(options)
    if (styled !== null) return showsStyled.call(this, received, expected, styled, timeout, hint)
    const report = (screen, what) => () =>
      `${hint}\n\n${what}\nExpected: ${this.isNot ? 'not ' : ''}${describeText(expected)}\n\n${formatScreen(screen)}`
    if (!this.isNot) {
      try {
        const { screen } = await PtySession.prototype.waitFor.call(received, expected, { in: 'screen', timeoutMs: timeout })
        return { pass: true, message: report(screen, 'The screen shows the text.') }
      } catch (err) {
        if (!err || !err.screen) throw err
        const why =
          err.code === 'ERR_NOT_RUNNING'
            ? `The program ${describeExit(err.exit)} without showing the text.`
            : `The screen did not show the text within ${timeout} ms.`
        return { pass: false, message: report(err.screen, why) }
      }
    }
    // `.not`: wait for a screen without the text.
    const deadline = Date.now() + timeout
    for (;;) {
      const screen = received.screen()
      if (!(await showsNow(received, expected))) {
        return { pass: false, message: report(received.screen(), 'The screen no longer shows the text.') }
      }
      const left = deadline - Date.now()
      if (left <= 0 || !received.running) {
        const why = received.running
          ? `The screen still showed the text after ${timeout} ms.`
          : 'The program exited with the text on the screen.'
        return { pass: true, message: report(received.screen(), why) }
      }
      // The next change of the screen.
      try {
        await PtySession.prototype.waitFor.call(received, /(?:)/, { in: 'screen', since: screen.seq, timeoutMs: left })
      } catch (err) {
        if (!err || (err.code !== 'ERR_TIMEOUT' && err.code !== 'ERR_NOT_RUNNING')) throw err
      }
    }
  },

  /**
   * Waits (up to `timeout`) until the window title (OSC 0 / 2) is `expected`
   * (a string, compared whole, or a RegExp); with `.not`, until it is not.
   */
  async toHaveTitle(received, expected, options) {
    if (!isSession(received)) throw notASession('toHaveTitle', received)
    if (typeof expected !== 'string' && !(expected instanceof RegExp)) {
      throw new TypeError(`toHaveTitle() expects a string or a RegExp, got ${typeof expected}`)
    }
    const timeout = timeoutOption(options, 'toHaveTitle') ?? fittingWaitMs(taskOf(received, this))
    const matches = (title) => (typeof expected === 'string' ? title === expected : new RegExp(expected.source, expected.flags.replace('g', '')).test(title))
    const wanted = await untilScreen(received, (session) => matches(session.screen().title), timeout, this.isNot)
    const screen = received.screen()
    const hint = this.utils.matcherHint(`${this.isNot ? '.not' : ''}.toHaveTitle`, 'session', 'title', { isNot: this.isNot })
    const why = wanted
      ? 'The title is as expected.'
      : received.running
        ? `The title was not as expected within ${timeout} ms.`
        : 'The program exited with another title.'
    return {
      pass: this.isNot ? !wanted : wanted,
      message: () =>
        `${hint}\n\n${why}\nExpected: ${this.isNot ? 'not ' : ''}${describeText(expected)}\nReceived: ${JSON.stringify(screen.title)}\n\n${formatScreen(screen)}`,
    }
  },

  /**
   * Compares the screen (of a session now, or a snapshot) in a stable text
   * form — size, cursor, every row numbered — with the stored snapshot.
   */
  toMatchScreenSnapshot(received, options) {
    if (typeof options === 'string') options = { hint: options }
    if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
      throw new TypeError('toMatchScreenSnapshot() takes a hint string or options such as { attributes: true }')
    }
    const { hint, attributes = false } = options || {}
    if (hint !== undefined && typeof hint !== 'string') {
      throw new TypeError(`toMatchScreenSnapshot() options.hint must be a string, got ${typeof hint}`)
    }
    if (typeof attributes !== 'boolean') {
      throw new TypeError(`toMatchScreenSnapshot() options.attributes must be a boolean, got ${typeof attributes}`)
    }
    let screen
    if (isSession(received)) screen = received.screen({ attributes })
    else if (isScreen(received)) screen = received
    else throw new TypeError('toMatchScreenSnapshot() needs a PtySession or a screen snapshot as received')
    if (attributes && !Array.isArray(screen.attributes)) {
      throw new TypeError('toMatchScreenSnapshot({ attributes: true }) needs a session or a screen({ attributes: true }) snapshot')
    }
    if (!Snapshots || typeof Snapshots.toMatchSnapshot !== 'function') {
      throw new Error('toMatchScreenSnapshot() needs Vitest 4.1 or newer (Snapshots in the vitest package)')
    }
    return Snapshots.toMatchSnapshot.call(this, serializeScreen(screen, { attributes }), hint)
  },

  /**
   * Waits (up to `timeout`) until the program waits for input, of `kind`
   * when given. With `.not`: looks once (no wait) and passes while the
   * program does not wait for input (of `kind`).
   */
  async toBeWaitingForInput(received, kind, options) {
    if (!isSession(received)) throw notASession('toBeWaitingForInput', received)
    if (received.pid === null) throw new TypeError('toBeWaitingForInput() needs a session that was started')
    if (kind !== undefined && kind !== null && !INPUT_KINDS.includes(kind)) {
      throw new TypeError(`toBeWaitingForInput() kind must be 'line', 'password' or 'key', got ${String(kind)}`)
    }
    const timeout = timeoutOption(options, 'toBeWaitingForInput') ?? fittingWaitMs(taskOf(received, this))
    const wanted = kind ? `${kind} input` : 'input'
    const hint = this.utils.matcherHint(`${this.isNot ? '.not' : ''}.toBeWaitingForInput`, 'session', kind ? 'kind' : '', {
      isNot: this.isNot,
    })
    let state
    let screen
    let why = ''
    if (this.isNot) {
      state = received.inputState()
      screen = received.screen()
    } else {
      const wait = await PtySession.prototype.waitForInput.call(received, { timeoutMs: timeout })
      state = wait.state
      screen = wait.screen
      if (wait.reason === 'timeout') why = ` after ${timeout} ms`
      if (wait.reason === 'exit') why = ` (the program ${describeExit(wait.exit)})`
    }
    const pass = state.waiting && (!kind || state.kind === kind)
    const message = () =>
      `${hint}\n\nExpected: the program ${this.isNot ? 'not ' : ''}to wait for ${wanted}\n` +
      `Received: the program ${describeInput(state)}${why}\n\n${formatScreen(screen)}`
    return { pass, message }
  },

  /**
   * Waits (up to `timeout`) for the program to exit, with `code` or `signal`
   * when given. With `.not`: passes while the program is running (no wait).
   */
  async toHaveExited(received, options) {
    if (!isSession(received)) throw notASession('toHaveExited', received)
    if (received.pid === null) throw new TypeError('toHaveExited() needs a session that was started')
    const timeout = timeoutOption(options, 'toHaveExited') ?? fittingWaitMs(taskOf(received, this))
    const { code, signal } = options || {}
    if (code !== undefined && code !== null && !Number.isInteger(code)) {
      throw new TypeError(`toHaveExited() options.code must be an integer, got ${String(code)}`)
    }
    if (signal !== undefined && typeof signal !== 'string') {
      throw new TypeError(`toHaveExited() options.signal must be a signal name such as 'SIGTERM', got ${typeof signal}`)
    }
    const wanted = [code !== undefined ? `with code ${code}` : '', signal !== undefined ? `by ${signal}` : '']
      .filter(Boolean)
      .join(' ')
    const hint = this.utils.matcherHint(`${this.isNot ? '.not' : ''}.toHaveExited`, 'session', wanted ? 'options' : '', {
      isNot: this.isNot,
    })
    let exit
    if (this.isNot) {
      exit = received.running ? undefined : await received.exited
    } else {
      let timer
      exit = await Promise.race([
        received.exited,
        new Promise((resolve) => {
          timer = setTimeout(resolve, timeout)
        }),
      ]).finally(() => clearTimeout(timer))
    }
    const matches =
      exit !== undefined &&
      (code === undefined || exit.exitCode === code) &&
      (signal === undefined || exit.signal === signal)
    const expected = `Expected: the program ${this.isNot ? 'not ' : ''}to have exited${wanted ? ` ${wanted}` : ''}`
    const got =
      exit === undefined
        ? `Received: pid ${received.pid} still running${this.isNot ? '' : ` after ${timeout} ms`}`
        : `Received: the program ${describeExit(exit)}${exit.timedOut ? ' (its timeoutMs ran out)' : ''}${exit.cancelled ? ' (it was terminated)' : ''}`
    let screen
    try {
      screen = formatScreen(received.screen())
    } catch {
      screen = '(no screen: the session was never started)'
    }
    return { pass: matches, message: () => `${hint}\n\n${expected}\n${got}\n\n${screen}` }
  },
}

expect.extend(matchers)

export { expect, matchers }
