'use strict'
// PtySession (a program in a pseudo-terminal: screen, keys, waits, output
// listeners, stop-leaving-nothing) and exec (run one program to its end and
// collect its output), with their argument checks and wait helpers. The
// contract is in lib/pty-session.d.ts.

const { codedError, invalidArg, describe } = require('./errors.js')
const { checkSignal, isInstance, own, read, screenAttributes } = require('./args.js')
const { linesOf } = require('./screen-model.js')
const { Mouse } = require('./mouse.js')
const svg = require('./svg.js')
const native = require('./addon.js')
const {
  cancelTokenFor,
  onAbort,
  guarded,
  checkFunction,
  checkOptionsObject,
  checkMillis,
  rejectUnknown,
  baseEnv,
  deferred,
  kWriteInput,
  kSpawnUnref,
} = require('./common.js')

const DEFAULT_WAIT_MS = 10000

const kStartCaptured = Symbol('startCaptured')
const kCaptured = Symbol('captured')

/**
 * A program running in a pseudo-terminal. See lib/pty-session.d.ts for the contract.
 */
class PtySession {
  #native = new native.NativeSession()
  /** The exit of the current (or next) run. */
  #exit = deferred()
  /** The exit of the last finished run. */
  #lastExit = undefined
  /** The listener given to `start()`, for that run: `{ fn, raw, active }` or undefined. */
  #runListener = undefined
  /** Listeners added with `onData()`: `{ fn, raw, active }`, in the order added. */
  #listeners = []
  /** The version and numbers of the screen in `#shown` (see #screenNow()), made at the first screen(). */
  #frame = undefined
  /** The last screen the native side sent: `{ text, title, lines }`. */
  #shown = undefined
  /** `session.mouse`, made at its first use. */
  #mouse = undefined

  constructor() {
    if (arguments.length > 0) {
      throw invalidArg('new PtySession() takes no arguments; pass options to start() or use PtySession.spawn()')
    }
  }

  start(options, onData, listenerOptions) {
    try {
      this.#start(options, onData, listenerOptions, undefined)
    } catch (err) {
      return Promise.reject(err)
    }
    return this.#exit.promise
  }

  static spawn(options, onData, listenerOptions) {
    // `new this()`: a subclass's spawn() makes an instance of the subclass.
    const session = new this()
    session.#start(options, onData, listenerOptions, undefined)
    return session
  }

  [kStartCaptured](options, onData, captureLimit, pipes) {
    this.#start(options, onData, undefined, captureLimit, pipes)
    return this.#exit.promise
  }

  /** `spawn()` of a session that does not keep the event loop alive while it runs (tool sessions). */
  static [kSpawnUnref](options, onData) {
    const session = new this()
    session.#start(options, onData, undefined, undefined, undefined, false)
    return session
  }

  [kCaptured]() {
    return this.#native.captured()
  }

  /**
   * Types text with named keys (`"y<enter>"`, `"<ctrl+c>"`) as a tool's apply does:
   * `{ bytes, hidden }`, the bytes written and whether the input is kept nowhere (see `write`).
   */
  [kWriteInput](text) {
    if (typeof text !== 'string') throw invalidArg(`input must be a string, got ${describe(text)}`)
    return this.#native.writeInput(text)
  }

  #start(options, onData, listenerOptions, captureLimit, pipes, keepAlive) {
    checkOptionsObject(options, 'options')
    checkFunction(onData, 'onData')
    const runListener = onData === undefined ? undefined : listenerEntry(onData, listenerOptions, 'listenerOptions')
    if (this.#native.running) {
      throw codedError(
        'ERR_ALREADY_RUNNING',
        'start() was called while the session is running; wait for `exited` or call terminate() first',
      )
    }
    const signal = options ? read(options, 'signal', 'options') : undefined
    checkSignal(signal, 'options')
    const exit = this.#exit
    let detach = () => {}
    const pump = (data, result, raw) => {
      const run = this.#runListener
      if (data !== null) {
        if (run !== undefined && !run.raw) run.fn(data)
        for (const entry of this.#listeners) if (entry.active && !entry.raw) entry.fn(data)
      }
      if (raw !== null && raw !== undefined) {
        if (run !== undefined && run.raw) run.fn(raw)
        for (const entry of this.#listeners) if (entry.active && entry.raw) entry.fn(raw)
      }
      if (result !== null) {
        detach()
        this.#lastExit = result
        this.#exit = deferred()
        exit.resolve(result)
      }
    }
    this.#runListener = runListener
    this.#native.start(options, pump, {
      streamOutput: this.#wants(false),
      streamRaw: this.#wants(true),
      baseEnv: baseEnv(),
      captureLimit,
      pipes,
      keepAlive,
    })
    // Abort terminates the tree (TERM, grace, KILL); the exit says `cancelled`.
    detach = onAbort(signal, 'options', () => {
      this.#native.resume()
      this.#native.terminate()
    })
  }

  get exited() {
    return this.#native.running || this.#lastExit === undefined
      ? this.#exit.promise
      : Promise.resolve(this.#lastExit)
  }

  get pid() {
    return this.#native.pid
  }

  get sandbox() {
    return this.#native.sandbox()
  }

  takeNetworkRefusals() {
    return this.#native.takeNetworkRefusals()
  }

  get running() {
    return this.#native.running
  }

  get incidents() {
    return this.#native.incidents
  }

  write(data) {
    if (typeof data !== 'string' && !isInstance(data, Uint8Array)) {
      throw invalidArg(`write() takes a string or a Uint8Array, got ${describe(data)}`)
    }
    return { hidden: this.#native.write(data) }
  }

  sendKeys(...keys) {
    for (let i = 0; i < keys.length; i++) {
      if (typeof keys[i] !== 'string') {
        throw invalidArg(`sendKeys() takes key names such as 'enter' or 'ctrl+c'; argument ${i} is ${describe(keys[i])}`)
      }
    }
    return { hidden: this.#native.sendKeys(keys) }
  }

  paste(text) {
    if (typeof text !== 'string') throw invalidArg(`paste() takes a string, got ${describe(text)}`)
    return { hidden: this.#native.paste(text) }
  }

  resize(cols, rows) {
    if (typeof cols !== 'number' || typeof rows !== 'number') {
      throw invalidArg(`resize(cols, rows) takes two numbers, got ${describe(cols)} and ${describe(rows)}`)
    }
    this.#native.resize(cols, rows)
  }

  screen(options) {
    if (!screenAttributes(options)) return this.#screenNow()
    const { screen, attributes } = this.#native.screenStyled()
    screen.attributes = attributes
    return withLines(screen)
  }

  /**
   * The screen now, as `screen()` returns it. The native side sends a screen
   * only when it may have changed since the one it sent last (output, a
   * resize: see NativeSession::screen_frame); otherwise the strings kept
   * from that one are used again. Every call returns new objects: a caller
   * may change what it got.
   */
  #screenNow() {
    // Slots: generation, seq, cursor row, cursor col, cursor visible, cols, rows, alternate screen.
    if (this.#frame === undefined) this.#frame = new Float64Array(8).fill(-1)
    const f = this.#frame
    const fresh = this.#native.screenFrame(f)
    if (fresh != null) this.#shown = { text: fresh[0], title: fresh[1], lines: linesOf(fresh[0], f[6]) }
    const { text, title, lines } = this.#shown
    return {
      text,
      cursor: { row: f[2], col: f[3], visible: f[4] === 1 },
      cols: f[5],
      rows: f[6],
      altScreen: f[7] === 1,
      title,
      seq: f[1],
      lines: lines.slice(),
    }
  }

  /** The mouse: clicks, drags and the wheel, encoded as the program asked (lib/mouse.js). */
  get mouse() {
    if (this.#mouse === undefined) this.#mouse = new Mouse(this.#native, this)
    return this.#mouse
  }

  /** A picture of the screen now: an SVG document (lib/svg.js). */
  screenshot(options) {
    return svg.screenshot(this.#native, options)
  }

  read(options) {
    return this.#native.read(options)
  }

  kill(signal) {
    if (signal !== undefined && typeof signal !== 'string') {
      throw invalidArg(`kill() takes a signal name such as 'SIGINT', got ${describe(signal)}`)
    }
    // Ending the program: what it wrote and its exit must be able to come.
    if (signal === undefined) this.#native.resume()
    this.#native.kill(signal)
  }

  terminate(options) {
    try {
      checkOptionsObject(options, 'options')
      const { graceMs, ...rest } = own(options, 'options') || {}
      rejectUnknown(rest, 'options', ['graceMs'])
      checkMillis(graceMs, 'options.graceMs')
      this.#native.resume()
      this.#native.terminate(graceMs)
    } catch (err) {
      return Promise.reject(err)
    }
    return this.exited
  }

  async waitForSettle(options) {
    checkOptionsObject(options, 'options')
    const { quietMs = 100, timeoutMs = DEFAULT_WAIT_MS, signal, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', ['quietMs', 'timeoutMs', 'signal'])
    checkMillis(quietMs, 'options.quietMs')
    checkMillis(timeoutMs, 'options.timeoutMs')
    const [token, detach] = cancelTokenFor(signal, 'options')
    try {
      if (signal && signal.aborted) throw aborted('waitForSettle()', this.#screenNow())
      const { settled, reason, input, screen } = await this.#native.waitForSettle(quietMs, timeoutMs, token)
      if (reason === 'aborted' || (signal && signal.aborted)) throw aborted('waitForSettle()', withLines(screen))
      return { ...withLines(screen), settled, reason, input }
    } finally {
      detach()
    }
  }

  inputState() {
    return this.#native.inputState()
  }

  async waitForInput(options) {
    checkOptionsObject(options, 'options')
    const { since, timeoutMs = DEFAULT_WAIT_MS, signal, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', ['since', 'timeoutMs', 'signal'])
    checkSince(since)
    checkMillis(timeoutMs, 'options.timeoutMs')
    checkSignal(signal, 'options')
    // The point, resolved now: a later write must not move it.
    const from = since === undefined ? undefined : since === 'input' ? this.#native.inputSeq : since
    if (from !== undefined && from > this.#screenNow().seq) {
      throw invalidArg(`options.since must be a position this session reached (at most ${this.#screenNow().seq}), got ${from}`)
    }
    const [token, detach] = cancelTokenFor(signal, 'options')
    try {
      if (signal && signal.aborted) throw aborted('waitForInput()', this.#screenNow())
      const { reason, state, screen } = await this.#native.waitForInput(from, timeoutMs, token)
      if (reason === 'aborted' || (signal && signal.aborted)) throw aborted('waitForInput()', withLines(screen))
      const exit = reason === 'exit' ? await this.exited : null
      return { reason, state, screen: withLines(screen), exit }
    } finally {
      detach()
    }
  }

  async waitFor(pattern, options) {
    const test = matcher(pattern)
    checkOptionsObject(options, 'options')
    const { in: whereOption, since, timeoutMs = DEFAULT_WAIT_MS, signal, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', ['in', 'since', 'timeoutMs', 'signal'])
    checkSince(since)
    // Without `since` the screen is where a prompt or a menu is looked for;
    // with it, text still showing from before the point would match at once,
    // so only output after the point is searched unless `in` says otherwise.
    const where = whereOption === undefined ? (since === undefined ? 'screen' : 'output') : whereOption
    if (where !== 'screen' && where !== 'output') {
      throw invalidArg(`options.in must be 'screen' or 'output', got ${describe(where)}`)
    }
    checkMillis(timeoutMs, 'options.timeoutMs')
    checkSignal(signal, 'options')
    // The point, resolved now: a later write must not move it.
    const from = since === undefined ? undefined : since === 'input' ? this.#native.inputSeq : since
    const [token, detach] = cancelTokenFor(signal, 'options')
    try {
      return await this.#waitFor(pattern, test, where, from, timeoutMs, signal, token)
    } finally {
      detach()
    }
  }

  async #waitFor(pattern, test, where, from, timeoutMs, signal, token) {
    const deadline = Date.now() + timeoutMs
    let cursor = from ?? 0
    let output = ''
    const after = from === undefined ? '' : ` after output position ${from}`
    for (;;) {
      // Read `running` before looking: if it was already false, what we look
      // at includes every byte of output.
      const ended = !this.#native.running
      const screen = this.#screenNow()
      let match = null
      if (from !== undefined && from > screen.seq) {
        throw invalidArg(`options.since must be a position this session reached (at most ${screen.seq}), got ${from}`)
      }
      if (where === 'screen') {
        // With a point, a screen is only looked at once output after the
        // point changed it.
        if (from === undefined || screen.seq > from) match = test(screen.text)
      } else {
        const chunk = this.#native.read({ since: cursor })
        output += chunk.text
        cursor = chunk.cursor
        match = test(output)
      }
      if (match !== null) {
        // Output can arrive between the screen above and the read: the
        // screen returned is taken after the read, so it shows at least the
        // text that matched.
        return { match, screen: where === 'output' ? this.#screenNow() : screen, reason: 'match' }
      }
      if (signal && signal.aborted) {
        throw aborted(`waiting for ${describePattern(pattern)} in the ${where}${after}`, screen)
      }
      if (ended) {
        const exit = await this.exited
        const err = codedError(
          'ERR_NOT_RUNNING',
          `the program exited (${describeExit(exit)}) before ${describePattern(pattern)} appeared in the ${where}${after}; screen:\n${screen.text}`,
        )
        err.exit = exit
        err.screen = screen
        err.reason = 'exit'
        throw err
      }
      const remaining = deadline - Date.now()
      if (remaining <= 0) {
        const err = codedError(
          'ERR_TIMEOUT',
          `timed out after ${timeoutMs} ms waiting for ${describePattern(pattern)} in the ${where}${after}; screen:\n${screen.text}`,
        )
        err.screen = screen
        err.reason = 'timeout'
        throw err
      }
      await this.#native.waitOutput(screen.seq, remaining, token)
    }
  }

  onScreen(listener, options) {
    if (typeof listener !== 'function') throw invalidArg(`onScreen() needs a listener function, got ${describe(listener)}`)
    checkOptionsObject(options, 'options')
    const { throttleMs = 50, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', ['throttleMs'])
    // A timer longer than 2^31-1 ms would fire at once.
    checkMillis(throttleMs, 'options.throttleMs', 2 ** 31 - 1)
    const notify = guarded('onScreen', listener)
    let active = true
    let last = ''
    const loop = async () => {
      while (active) {
        const screen = this.#screenNow()
        const key = `${screen.rows}x${screen.cols}|${screen.cursor.row},${screen.cursor.col},${screen.cursor.visible}|${screen.altScreen}|${screen.title}|${screen.text}`
        if (key !== last) {
          last = key
          notify(screen)
        }
        if (!this.#native.running) return
        await this.#native.waitOutput(screen.seq, 2 ** 31 - 1)
        // The timer does not keep the process alive: the running program does.
        if (throttleMs > 0 && active) await new Promise((r) => setTimeout(r, throttleMs).unref())
      }
    }
    // Before start there is nothing to watch.
    this.#native.screen()
    loop()
    return () => {
      active = false
    }
  }

  onData(listener, options) {
    if (typeof listener !== 'function') throw invalidArg(`onData() needs a listener function, got ${describe(listener)}`)
    const entry = listenerEntry(listener, options, 'options')
    // A new array: a delivery in progress goes on over the listeners it started with.
    this.#listeners = [...this.#listeners, entry]
    this.#updateStreams()
    return () => {
      if (!entry.active) return
      entry.active = false
      this.#listeners = this.#listeners.filter((e) => e !== entry)
      this.#updateStreams()
    }
  }

  /** Whether some listener takes raw bytes (`raw`) or text (`!raw`). */
  #wants(raw) {
    const run = this.#runListener
    return (run !== undefined && run.raw === raw) || this.#listeners.some((e) => e.raw === raw)
  }

  /** Tells the native side which output the listeners take. */
  #updateStreams() {
    if (!this.#native.running) return
    this.#native.setStreams(this.#wants(false), this.#wants(true))
  }

  pause() {
    this.#native.pause()
  }

  resume() {
    this.#native.resume()
  }

  get paused() {
    return this.#native.paused
  }

  async [Symbol.asyncDispose]() {
    if (this.#native.running) {
      this.#native.resume()
      this.#native.terminate()
      await this.exited
    }
  }
}

/**
 * Adds `lines` (every visible row, `lines.length === rows`) to a native
 * snapshot. The native side sends only `text` — the rows right-trimmed,
 * trailing blank rows dropped, joined by `\n` — because splitting it here is
 * cheaper than one N-API string per row; a row never contains a newline.
 */
function withLines(screen) {
  screen.lines = linesOf(screen.text, screen.rows)
  return screen
}

/** An output listener's record, its options checked: `{ fn, raw, active }`. */
function listenerEntry(listener, options, what) {
  checkOptionsObject(options, what)
  const { raw = false, ...rest } = own(options, what) || {}
  rejectUnknown(rest, what, ['raw'])
  if (typeof raw !== 'boolean') throw invalidArg(`${what}.raw must be a boolean, got ${describe(raw)}`)
  return { fn: guarded('onData', listener), raw, active: true }
}

function matcher(pattern) {
  if (typeof pattern === 'string') {
    if (pattern.length === 0) throw invalidArg('waitFor() pattern must not be empty')
    const trimmed = pattern.trimEnd()
    if (trimmed === pattern || trimmed.length === 0) return (text) => (text.includes(pattern) ? pattern : null)
    // Screen rows are right-trimmed, so a pattern's trailing spaces (a prompt
    // such as '>>> ') also match at the end of a row.
    return (text) => {
      if (text.includes(pattern)) return pattern
      const at = `${text}\n`.indexOf(`${trimmed}\n`)
      return at === -1 ? null : trimmed
    }
  }
  if (isInstance(pattern, RegExp)) {
    const re = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''))
    return (text) => {
      const m = re.exec(text)
      return m === null ? null : m[0]
    }
  }
  throw invalidArg(`waitFor() pattern must be a string or a RegExp, got ${describe(pattern)}`)
}

/** ERR_ABORTED for a wait whose AbortSignal fired, with the screen then (`reason: 'aborted'`). */
function aborted(what, screen) {
  const err = codedError('ERR_ABORTED', `${what} was aborted; screen:\n${screen.text}`)
  err.screen = screen
  err.reason = 'aborted'
  return err
}

/** A wait's `since`: `'input'`, or an output position (a non-negative integer). */
function checkSince(since) {
  if (since !== undefined && since !== 'input' && !(Number.isSafeInteger(since) && since >= 0)) {
    throw invalidArg(
      `options.since must be 'input', a read() cursor or a screen().seq (a non-negative integer), got ${describe(since)}`,
    )
  }
}

function describePattern(pattern) {
  return typeof pattern === 'string' ? JSON.stringify(pattern) : String(pattern)
}

function describeExit(exit) {
  if (!exit) return 'unknown status'
  if (exit.signal) return `signal ${exit.signal}`
  return `exit code ${exit.exitCode}`
}

// ---------- exec ----------

const DEFAULT_MAX_OUTPUT = 8 * 1024 * 1024

async function exec(options, onData) {
  checkOptionsObject(options, 'options')
  if (!options) throw invalidArg('exec() needs options with a `command`')
  const { pty = true, maxOutputBytes = DEFAULT_MAX_OUTPUT, ...rest } = own(options, 'options')
  if (typeof pty !== 'boolean') throw invalidArg(`options.pty must be a boolean, got ${describe(pty)}`)
  if (typeof maxOutputBytes !== 'number' || !Number.isInteger(maxOutputBytes) || maxOutputBytes < 0) {
    throw invalidArg(`options.maxOutputBytes must be a non-negative integer, got ${describe(maxOutputBytes)}`)
  }
  const session = new PtySession()
  const exit = await session[kStartCaptured](rest, onData, maxOutputBytes, !pty)
  const { output, truncated } = session[kCaptured]()
  return { ...exit, output, truncated, screen: pty ? session.screen() : null }
}

module.exports = { PtySession, exec }
