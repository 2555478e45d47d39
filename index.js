'use strict'
// The public JS surface of ptypilot. The native addon (loaded by
// lib/binding.js) is internal; this layer adds what is better done in JS
// (AbortSignal wiring, RegExp waits, promises for events, Symbol.asyncDispose)
// and stays thin. index.mjs re-exports it for `import`.

const { codedError, invalidArg, describe, mapError, wrapNative } = require('./lib/errors.js')
const { checkSignal, isInstance, jsonValue, own, read, screenAttributes } = require('./lib/args.js')
const { linesOf } = require('./lib/screen-model.js')
// Every error from the binding gets a documented code (lib/errors.js).
const native = wrapNative(require('./lib/binding.js'))

/** Bridges an AbortSignal to a native CancelToken; returns [token, detach]. */
function cancelTokenFor(signal, what) {
  if (signal === undefined || signal === null) return [undefined, () => {}]
  checkSignal(signal, what)
  const token = new native.CancelToken()
  if (signal.aborted) {
    token.cancel()
    return [token, () => {}]
  }
  const onAbort = () => token.cancel()
  signal.addEventListener('abort', onAbort, { once: true })
  return [token, () => signal.removeEventListener('abort', onAbort)]
}

/**
 * Calls `fn` when `signal` aborts (at once if it already has); returns a
 * function that removes the listener.
 */
function onAbort(signal, what, fn) {
  if (signal === undefined || signal === null) return () => {}
  checkSignal(signal, what)
  if (signal.aborted) {
    fn()
    return () => {}
  }
  signal.addEventListener('abort', fn, { once: true })
  return () => signal.removeEventListener('abort', fn)
}


/** Reports an error thrown by a user listener without crashing the process. */
function reportListenerError(what, err) {
  process.emitWarning(`an ${what} listener threw: ${err && err.stack ? err.stack : String(err)}`, {
    type: 'PtypilotListenerError',
    code: 'PTYPILOT_LISTENER_ERROR',
  })
}

/**
 * `fn` wrapped so that an exception it throws is reported as a process
 * warning instead of crashing the process; `undefined` stays `undefined`.
 */
function guarded(what, fn) {
  if (fn === undefined) return undefined
  return (value) => {
    try {
      fn(value)
    } catch (err) {
      reportListenerError(what, err)
    }
  }
}

function checkFunction(value, what) {
  if (value !== undefined && typeof value !== 'function') {
    throw invalidArg(`${what} must be a function, got ${describe(value)}`)
  }
}

function checkOptionsObject(value, what) {
  if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    throw invalidArg(`${what} must be an object, got ${describe(value)}`)
  }
}

/** Longest timeout or grace accepted, in ms (about 31 years: "practically never"). */
const MAX_MILLIS = 1e12

function checkMillis(value, what, max = MAX_MILLIS) {
  if (value === undefined) return
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) {
    throw invalidArg(`${what} must be a non-negative number of milliseconds, got ${describe(value)} (at most ${max})`)
  }
}

// Programs must not outlive the process (or worker) that started them, even
// when it ends with process.exit().
process.once('exit', () => native.killAllStarted())

// A panic the native side contained (in the screen model, the session thread,
// a callback) is never silent: it becomes a process warning on every thread
// that loaded ptypilot; a PtySession also lists its own in `incidents`.
native.onIncident((message) => {
  process.emitWarning(message, { type: 'PtypilotIncident', code: 'PTYPILOT_PANIC' })
})

/** `process.env` is per-thread in workers; the main thread's is the real environ. */
const { isMainThread } = require('node:worker_threads')
function baseEnv() {
  return isMainThread ? undefined : process.env
}

// ---------- PtySession ----------

const DEFAULT_WAIT_MS = 10000

function deferred() {
  let resolve
  const promise = new Promise((r) => (resolve = r))
  return { promise, resolve }
}

const kStartCaptured = Symbol('startCaptured')
const terminal = require('./lib/terminal-tools.js')
const { Replies, isModelError, noTools } = require('./lib/respond.js')
const { kWriteInput, kSpawnUnref } = terminal
const kCaptured = Symbol('captured')

/**
 * A program running in a pseudo-terminal. See index.d.ts for the contract.
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

  /** Types text with named keys (`"y<enter>"`, `"<ctrl+c>"`) as a tool's apply does; bytes written. */
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
    this.#native.write(data)
  }

  sendKeys(...keys) {
    for (let i = 0; i < keys.length; i++) {
      if (typeof keys[i] !== 'string') {
        throw invalidArg(`sendKeys() takes key names such as 'enter' or 'ctrl+c'; argument ${i} is ${describe(keys[i])}`)
      }
    }
    this.#native.sendKeys(keys)
  }

  paste(text) {
    if (typeof text !== 'string') throw invalidArg(`paste() takes a string, got ${describe(text)}`)
    this.#native.paste(text)
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
      const { settled, screen } = await this.#native.waitForSettle(quietMs, timeoutMs, token)
      if (signal && signal.aborted) throw aborted('waitForSettle()', withLines(screen))
      return { ...withLines(screen), settled }
    } finally {
      detach()
    }
  }

  async waitFor(pattern, options) {
    const test = matcher(pattern)
    checkOptionsObject(options, 'options')
    const { in: whereOption, since, timeoutMs = DEFAULT_WAIT_MS, signal, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', ['in', 'since', 'timeoutMs', 'signal'])
    if (since !== undefined && since !== 'input' && !(Number.isSafeInteger(since) && since >= 0)) {
      throw invalidArg(
        `options.since must be 'input', a read() cursor or a screen().seq (a non-negative integer), got ${describe(since)}`,
      )
    }
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
        return { match, screen: where === 'output' ? this.#screenNow() : screen }
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
        throw err
      }
      const remaining = deadline - Date.now()
      if (remaining <= 0) {
        const err = codedError(
          'ERR_TIMEOUT',
          `timed out after ${timeoutMs} ms waiting for ${describePattern(pattern)} in the ${where}${after}; screen:\n${screen.text}`,
        )
        err.screen = screen
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

function rejectUnknown(rest, what, known) {
  const extra = Object.keys(rest)
  if (extra.length > 0) {
    throw invalidArg(`unknown option ${what}.${extra[0]}; known options: ${known.join(', ')}`)
  }
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

/** ERR_ABORTED for a wait whose AbortSignal fired, with the screen then. */
function aborted(what, screen) {
  const err = codedError('ERR_ABORTED', `${what} was aborted; screen:\n${screen.text}`)
  err.screen = screen
  return err
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


// ---------- Shell ----------

/**
 * A persistent shell that runs one command at a time and knows when each one
 * ends. See index.d.ts for the contract.
 */
class Shell {
  #native

  constructor(options) {
    checkOptionsObject(options, 'options')
    this.#native = new native.NativeShell(options ?? undefined, { baseEnv: baseEnv() })
  }

  /** The shell's process id while it runs (it starts on the first run), else null. */
  get pid() {
    return this.#native.pid
  }

  /** True while a run is in progress. */
  get busy() {
    return this.#native.busy
  }

  run(options, onData) {
    try {
      checkOptionsObject(options, 'options')
      checkFunction(onData, 'onData')
    } catch (err) {
      return Promise.reject(err)
    }
    const listener = guarded('onData', onData)
    let signal
    try {
      signal = options ? read(options, 'signal', 'options') : undefined
      checkSignal(signal, 'options')
    } catch (err) {
      return Promise.reject(err)
    }
    return withSignal(signal, 'options', (token) => this.#native.run(options, listener, token))
  }

  /** Sends input to the running command (one run with `stdin: 'terminal'`). */
  write(data) {
    if (typeof data !== 'string' && !isInstance(data, Uint8Array)) {
      throw invalidArg(`write() takes a string or a Uint8Array, got ${describe(data)}`)
    }
    this.#native.write(typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength))
  }

  abort() {
    return this.#native.abort()
  }

  close() {
    return this.#native.close()
  }

  async [Symbol.asyncDispose]() {
    await this.close()
  }
}

async function executeShell(options, onData) {
  checkOptionsObject(options, 'options')
  if (!options) throw invalidArg('executeShell() needs options with a `command`')
  // A fresh shell starts where and with what the command wants, so the
  // command needs no subshell; `shell` picks the shell as for `new Shell`.
  const { shell: program, cwd, env, sessionEnv, snapshotPath, ...run } = own(options, 'options')
  const shell = new Shell({ shell: program, cwd, env, sessionEnv, snapshotPath })
  try {
    return await shell.run(run, onData)
  } finally {
    await shell.close()
  }
}

// ---------- ToolRegistry ----------

const DEFINITION_FORMATS = ['anthropic', 'openai', 'openai-responses', 'mcp']

/**
 * Tools an LLM drives with spawn / fetch / apply / abort calls, and tool sets
 * (the terminal tools) beside them. See index.d.ts.
 */
class ToolRegistry {
  #native
  /** Tool sets' sessions by tool name (several names share one TerminalSessions). */
  #sets = new Map()
  #emit
  #cwd
  #firstIds
  #replies = new Replies(this, (id) => this.#native.screen(id))

  constructor(options) {
    checkOptionsObject(options, 'options')
    // `isolation: 'process'`: the registry runs in a child process (lib/host.js).
    if (options && read(options, 'isolation', 'options') !== undefined) {
      const { isolation, ...rest } = own(options, 'options')
      if (isolation === 'process') {
        return require('./lib/host.js').isolatedRegistry(options, {
          ToolRegistry,
          Process,
          guarded,
          invalidArg,
          isToolSet: terminal.isToolSet,
          toolSetData: terminal.toolSetData,
          checkAllowed: terminal.checkAllowed,
        })
      }
      if (isolation !== 'none') throw invalidArg(`options.isolation must be 'none' or 'process', got ${describe(isolation)}`)
      options = rest
    }
    const onEvent = options ? read(options, 'onEvent', 'options') : undefined
    checkFunction(onEvent, 'options.onEvent')
    const emit = guarded('onEvent', onEvent)
    const pump = emit === undefined ? undefined : (events) => events.forEach(emit)
    const firstIds = options ? options[Symbol.for('ptypilot.firstIds')] : undefined
    this.#native = new native.NativeRegistry(options, pump, baseEnv(), firstIds ? firstIds.h : undefined)
    this.#emit = emit
    this.#cwd = options ? read(options, 'cwd', 'options') : undefined
    this.#firstIds = firstIds
  }

  register(tool) {
    if (tool === null || typeof tool !== 'object' || Array.isArray(tool)) {
      throw invalidArg(`register() takes a tool object ({ name, commands }) or a tool set (terminalTools()), got ${describe(tool)}`)
    }
    if (terminal.isToolSet(tool)) {
      const taken = tool.tools.map((t) => t.name).filter((name) => this.#hasTool(name))
      if (taken.length > 0) {
        throw invalidArg(`a tool named "${taken[0]}" is already registered; unregister it first`)
      }
      const sessions = new terminal.TerminalSessions(
        tool,
        {
          emit: this.#emit,
          cwd: this.#cwd,
          firstId: this.#firstIds ? this.#firstIds.pty : undefined,
        },
        PtySession,
      )
      for (const t of tool.tools) this.#sets.set(t.name, sessions)
      return
    }
    const value = jsonValue(tool, 'tool', 'ERR_INVALID_ARG')
    if (value && typeof value.name === 'string' && this.#sets.has(value.name)) {
      throw invalidArg(`a tool named "${value.name}" is already registered; unregister it first`)
    }
    this.#native.register(value)
  }

  #hasTool(name) {
    return this.#sets.has(name) || this.#native.names().includes(name)
  }

  unregister(name) {
    checkString(name, 'name')
    const sessions = this.#sets.get(name)
    if (sessions !== undefined) {
      this.#sets.delete(name)
      // The last tool of a set takes its sessions with it.
      if (sessions.drop(name)) sessions.stopAll().catch(() => {})
      return true
    }
    return this.#native.unregister(name)
  }

  names() {
    return [...this.#native.names(), ...this.#sets.keys()].sort()
  }

  schema(name) {
    checkString(name, 'name')
    const sessions = this.#sets.get(name)
    if (sessions !== undefined) return structuredClone(sessions.tool(name).inputSchema)
    return this.#native.schema(name)
  }

  definitions(format) {
    if (format !== undefined && !DEFINITION_FORMATS.includes(format)) {
      throw invalidArg(`definitions() format must be one of ${DEFINITION_FORMATS.map((f) => `'${f}'`).join(', ')}, got ${describe(format)}`)
    }
    const all = this.#native.definitions(format)
    for (const [name, sessions] of this.#sets) all.push(terminal.definitionOf(sessions.tool(name), format))
    const nameOf = (d) => (d.function ? d.function.name : d.name)
    return all.sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0))
  }

  async call(name, input) {
    checkString(name, 'name')
    const sessions = this.#sets.get(name)
    if (sessions !== undefined) return sessions.call(name, input)
    if (this.#sets.size > 0 && !this.#hasTool(name)) {
      throw codedError('ERR_UNKNOWN_TOOL', `no tool named ${JSON.stringify(name)} is registered (registered: ${this.names().join(', ')})`)
    }
    if (typeof input === 'string') {
      // Some providers hand over tool arguments as a JSON string.
      try {
        input = JSON.parse(input)
      } catch (err) {
        throw codedError('ERR_INVALID_INPUT', `input is a string but not JSON: ${err.message}`)
      }
    }
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw codedError('ERR_INVALID_INPUT', `input must be an object such as { "action": "spawn", ... }, got ${describe(input)}`)
    }
    return this.#native.call(name, jsonValue(input, 'input', 'ERR_INVALID_INPUT'))
  }

  async respond(name, input) {
    checkString(name, 'name')
    if (this.#sets.size === 0 && this.#native.names().length === 0) throw noTools()
    // `full: true` asks for the whole screen instead of a lean view.
    const full = wantsFull(input)
    const sessions = this.#sets.get(name)
    if (sessions !== undefined) {
      try {
        const result = await sessions.call(name, input)
        // A screen goes to the model through the one content renderer: a lean view of what changed.
        let renderScreen
        if (name === 'pty_read' && result.screen !== undefined) {
          const { screen } = result
          renderScreen = (id, text) => this.#replies.renderContent(id, { id, state: 'running', content: text }, { screen, full })
        } else if (name === 'pty_stop') {
          this.#replies.forgetScreen(result.id)
        }
        return { text: terminal.resultText(name, result, renderScreen), isError: terminal.resultIsError(name, result), result }
      } catch (err) {
        if (!isModelError(err)) throw err
        return { text: terminal.errorText(name, err), isError: true }
      }
    }
    let state
    try {
      state = await this.call(name, input)
    } catch (err) {
      if (!isModelError(err)) throw err
      return this.#replies.forError(name, err)
    }
    return this.#replies.forState(state, { full })
  }

  list() {
    const all = this.#native.list()
    for (const sessions of new Set(this.#sets.values())) all.push(...sessions.list())
    return all
  }

  async wait(id, options) {
    checkString(id, 'id')
    checkOptionsObject(options, 'options')
    const { timeoutMs, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', ['timeoutMs'])
    checkMillis(timeoutMs, 'options.timeoutMs')
    for (const sessions of new Set(this.#sets.values())) {
      if (sessions.has(id)) return sessions.wait(id, timeoutMs)
    }
    return this.#native.wait(id, timeoutMs)
  }

  async abortAll() {
    await Promise.all([this.#native.abortAll(), ...[...new Set(this.#sets.values())].map((s) => s.stopAll())])
  }

  [Symbol.asyncDispose]() {
    return this.abortAll()
  }
}

/** Whether a tool call's input (an object or JSON text) has `full: true`; anything unreadable is false. */
function wantsFull(input) {
  try {
    const value = typeof input === 'string' ? JSON.parse(input) : input
    return value !== null && typeof value === 'object' && value.full === true
  } catch {
    return false
  }
}

function checkString(value, what) {
  if (typeof value !== 'string') throw invalidArg(`${what} must be a string, got ${describe(value)}`)
}

/**
 * The git tool: `stage` (git add --patch), `rebase` (git rebase --interactive),
 * both in a terminal and accepting input, and `log` (git log --oneline -20, pipes).
 */
function gitTool() {
  return {
    name: 'git',
    description:
      'Interactive git in a terminal: stage changes hunk by hunk, rebase interactively, read the recent log.',
    commands: [
      {
        name: 'stage',
        description:
          'git add --patch [paths]: shows each changed hunk and asks "Stage this hunk [y,n,q,a,d,...]?". ' +
          'Answer with apply, e.g. "y<enter>" to stage the hunk, "n<enter>" to skip it, "q<enter>" to quit.',
        program: ['git', 'add', '--patch'],
        pty: true,
        acceptsInput: true,
        argsSchema: { type: 'array', items: { type: 'string' }, description: 'Paths to limit staging to.' },
      },
      {
        name: 'rebase',
        description:
          'git rebase --interactive <base> (args, e.g. ["HEAD~3"]): the todo list opens in the terminal editor; ' +
          'edit it with keys (e.g. in vim: "cw" to change a word, "<esc>:wq<enter>" to save) to continue.',
        program: ['git', 'rebase', '--interactive'],
        pty: true,
        acceptsInput: true,
        argsSchema: { type: 'array', items: { type: 'string' }, description: 'Upstream or base commit and options.' },
      },
      {
        name: 'log',
        description: 'git log --oneline -20 [args]: the last commits, one per line.',
        program: ['git', 'log', '--oneline', '-20'],
        pty: false,
        acceptsInput: false,
        argsSchema: { type: 'array', items: { type: 'string' }, description: 'Extra git log arguments.' },
      },
    ],
  }
}

// ---------- keys ----------

/**
 * The string a terminal sends for the named keys, concatenated:
 * `encodeKeys(['ctrl+c'])` is `'\x03'`, `encodeKeys(['up'], { applicationCursor: true })`
 * is `'\x1bOA'`. Throws `ERR_INVALID_ARG` for a bad argument or an unknown key.
 */
function encodeKeys(keys, modes) {
  if (!Array.isArray(keys)) {
    throw invalidArg(`keys must be an array of key names, got ${describe(keys)}`)
  }
  const names = []
  const length = read(keys, 'length', 'keys')
  for (let i = 0; i < length; i++) {
    const name = read(keys, i, 'keys')
    if (typeof name !== 'string') {
      throw invalidArg(`keys[${i}] must be a key name string, got ${describe(name)}`)
    }
    names.push(name)
  }
  keys = names
  if (modes !== undefined && modes !== null) {
    if (typeof modes !== 'object' || Array.isArray(modes)) {
      throw invalidArg(`modes must be an object, got ${describe(modes)}`)
    }
    modes = own(modes, 'modes')
    for (const key of Object.keys(modes)) {
      if (key === 'kittyFlags') {
        const flags = modes[key]
        if (flags !== undefined && !(Number.isInteger(flags) && flags >= 0 && flags <= 31)) {
          throw invalidArg(`modes.kittyFlags must be an integer from 0 to 31, got ${describe(flags)}`)
        }
        continue
      }
      if (key !== 'applicationCursor' && key !== 'applicationKeypad') {
        throw invalidArg(`unknown key "${key}" in modes (known: applicationCursor, applicationKeypad, kittyFlags)`)
      }
      if (modes[key] !== undefined && typeof modes[key] !== 'boolean') {
        throw invalidArg(`modes.${key} must be a boolean, got ${describe(modes[key])}`)
      }
    }
  }
  return native.encodeKeys(keys, modes ?? undefined)
}

// ---------- Process ----------

const TERMINATE_OPTIONS = ['group', 'gracefulMs', 'timeoutMs', 'signal']
const WAIT_OPTIONS = ['timeoutMs', 'signal']

function checkPid(pid) {
  if (typeof pid !== 'number') throw invalidArg(`pid must be a positive integer, got ${describe(pid)}`)
}

function checkKillSignal(signal) {
  if (signal !== undefined && typeof signal !== 'string' && typeof signal !== 'number') {
    throw invalidArg(`signal must be a signal name such as 'SIGTERM' or a number, got ${describe(signal)}`)
  }
}

function checkNumber(value, what) {
  if (value !== undefined && typeof value !== 'number') {
    throw invalidArg(`${what} must be a number of milliseconds, got ${describe(value)}`)
  }
}

/** Runs a native wait with the options' AbortSignal bridged to a CancelToken. */
async function withSignal(signal, what, run) {
  const [token, detach] = cancelTokenFor(signal, what)
  try {
    return await run(token)
  } finally {
    detach()
  }
}

/**
 * One process, found by pid or by executable, remembered by pid and start
 * time so that it never reaches another process that reuses the pid. See
 * index.d.ts for the contract.
 */
class Process {
  #native

  /** Internal: use `Process.fromPid()` or `Process.fromPath()`. */
  constructor(handle) {
    if (!isInstance(handle, native.NativeProcess)) {
      const err = new TypeError('Process cannot be constructed directly; use Process.fromPid() or Process.fromPath()')
      err.code = 'ERR_INVALID_ARG'
      throw err
    }
    this.#native = handle
  }

  static fromPid(pid) {
    checkPid(pid)
    let handle
    try {
      handle = native.NativeProcess.fromPid(pid)
    } catch (err) {
      // A static of a native class: not wrapped by wrapNative.
      throw mapError(err)
    }
    return handle === null ? null : new Process(handle)
  }

  static fromPath(path) {
    if (typeof path !== 'string') throw invalidArg(`path must be a string, got ${describe(path)}`)
    let handles
    try {
      handles = native.NativeProcess.fromPath(path)
    } catch (err) {
      throw mapError(err)
    }
    return handles.map((handle) => new Process(handle))
  }

  get pid() {
    return this.#native.pid
  }

  get ppid() {
    return this.#native.ppid
  }

  args() {
    return this.#native.args()
  }

  groupId() {
    return this.#native.groupId()
  }

  children() {
    return this.#native.children().map((handle) => new Process(handle))
  }

  status() {
    return this.#native.status()
  }

  killTree(signal = 'SIGTERM') {
    checkKillSignal(signal)
    this.#native.killTree(signal)
  }

  async terminate(options) {
    checkOptionsObject(options, 'options')
    const { group, gracefulMs, timeoutMs, signal, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', TERMINATE_OPTIONS)
    if (group !== undefined && typeof group !== 'boolean') {
      throw invalidArg(`options.group must be a boolean, got ${describe(group)}`)
    }
    checkNumber(gracefulMs, 'options.gracefulMs')
    checkNumber(timeoutMs, 'options.timeoutMs')
    return withSignal(signal, 'options', (token) => this.#native.terminate(group, gracefulMs, timeoutMs, token))
  }

  async waitForExit(options) {
    checkOptionsObject(options, 'options')
    const { timeoutMs, signal, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', WAIT_OPTIONS)
    checkNumber(timeoutMs, 'options.timeoutMs')
    return withSignal(signal, 'options', (token) => this.#native.waitForExit(timeoutMs, token))
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `Process { pid: ${this.pid}, status: '${this.status()}' }`
  }
}

module.exports = { PtySession, exec, encodeKeys, Process, Shell, executeShell, ToolRegistry, gitTool }

// Surfaces built on the classes above, each in its own module under lib/.
module.exports.TaskRunner = require('./lib/tasks.js').TaskRunner
// Key parsing (parseKey, matchesKey, parseKittySequence, matchesKittySequence,
// matchesLegacySequence) and applyBashFixups.
Object.assign(module.exports, require('./lib/keys.js'))
module.exports.applyBashFixups = require('./lib/bash-fixups.js').applyBashFixups
// The terminal tool set (pty_exec, pty_start, pty_read, pty_send, pty_list, pty_stop).
module.exports.terminalTools = terminal.terminalTools
// The screen model alone (no program, no pty): ScreenModel.
module.exports.ScreenModel = require('./lib/screen-model.js').ScreenModel
// Recordings (asciicast v2, written by the `record` option): readRecording, replay.
const { readRecording, replay } = require('./lib/recording.js')
Object.assign(module.exports, { readRecording, replay })

const { screenView, rebuildScreen, ScreenViewTracker } = require('./lib/lean-screen.js')
Object.assign(module.exports, { screenView, rebuildScreen, ScreenViewTracker })
