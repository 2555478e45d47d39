'use strict'
// ptypilot/node-pty: node-pty 1.x's Unix API on ptypilot's session engine, so
// that switching is one line: `import { spawn } from 'ptypilot/node-pty'`.
//
// `spawn(file, args, options)` returns an IPty (node-pty's options, members
// and event shapes; see node-pty.d.ts) whose program runs in a ptypilot
// session: the output is read on the session's own thread and handed to JS
// in order, every byte before the exit; input goes through the session's
// writer queue (a write never blocks and never spins); the child is reaped
// off the JS thread; the pty's descriptors are close-on-exec and nothing of
// the Node process leaks into the program. The session runs without a
// screen model and without answering terminal queries: the caller's own
// emulator (xterm.js) renders the output and answers them, as with node-pty.
//
// What follows node-pty exactly: the defaults (`sh`, 80×24, `TERM` from
// `name`, else the environment's `TERM`, else `xterm`; `PWD`; the
// multiplexer variables removed from `process.env`), the exit numbers
// (`exitCode` 0 when a signal ended the program, `signal` its number, 0
// otherwise), a program or directory that cannot be used ending in exit
// code 1 with the reason printed on the terminal instead of a throw, flow
// control by `pause()`/`resume()` and by the `handleFlowControl` messages,
// the legacy `on`/`once`/`removeListener`, `fd`, `ptsName`, `destroy()` and
// `open()`. Where it differs (and why) the README's "Switching from
// node-pty" says.

const fs = require('node:fs')
const os = require('node:os')
const tty = require('node:tty')
const { StringDecoder } = require('node:string_decoder')
const { invalidArg, describe } = require('./errors.js')
const { reportListenerError } = require('./common.js')
const native = require('./addon.js')

const DEFAULT_FILE = 'sh'
const DEFAULT_NAME = 'xterm'
const DEFAULT_COLS = 80
const DEFAULT_ROWS = 24
/** XOFF and XON: node-pty's default flow control messages. */
const FLOW_CONTROL_PAUSE = '\x13'
const FLOW_CONTROL_RESUME = '\x11'
/** What node-pty removes from `process.env` (not from an `env` the caller gives). */
const SANITIZED_VARS = ['TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'TERMCAP', 'COLUMNS', 'LINES']
/** After `destroy()`'s SIGHUP, how long a program may take to end before its tree is terminated. */
const DESTROY_GRACE_MS = 2000
/** The largest size a terminal can have (a `winsize` holds 16 bits). */
const MAX_DIMENSION = 65535

/** node-pty's type checks (a falsy value counts as not given), with coded errors. */
function checkType(options, name, type) {
  const value = options[name]
  if (value && typeof value !== type) {
    throw invalidArg(`options.${name} must be a ${type}, got ${describe(value)}`)
  }
}

/** A size as node-pty takes it: 0 or missing is the default; fractions are cut off. */
function dimension(value, fallback, what) {
  if (!value) return fallback
  const n = Math.trunc(value)
  if (!(n >= 1 && n <= MAX_DIMENSION)) {
    throw invalidArg(`${what} must be a number from 1 to ${MAX_DIMENSION}, got ${describe(value)}`)
  }
  return n
}

/** The signal's name for the session (`'SIGHUP'`), from a name or a number. */
function signalName(signal) {
  if (typeof signal === 'number') {
    for (const [name, number] of Object.entries(os.constants.signals)) if (number === signal) return name
    throw invalidArg(`kill() takes a signal name such as 'SIGTERM' or its number, got ${describe(signal)}`)
  }
  if (typeof signal !== 'string') {
    throw invalidArg(`kill() takes a signal name such as 'SIGTERM' or its number, got ${describe(signal)}`)
  }
  const name = signal.toUpperCase().startsWith('SIG') ? signal.toUpperCase() : `SIG${signal.toUpperCase()}`
  if (!(name in os.constants.signals)) {
    throw invalidArg(`kill() takes a signal name such as 'SIGTERM' or its number, got ${describe(signal)}`)
  }
  return name
}

/** `true` for the encodings the session decodes itself (UTF-8); checks the others. */
function isUtf8(encoding) {
  if (encoding === null) return false
  if (typeof encoding !== 'string' || !Buffer.isEncoding(encoding)) {
    throw invalidArg(`options.encoding must be a Node encoding such as 'utf8' or null, got ${describe(encoding)}`)
  }
  return /^utf-?8$/i.test(encoding)
}

/**
 * The program's environment as node-pty builds it: `env` (default
 * `process.env`, then without the multiplexer variables), `PWD` and `TERM`
 * set. A variable whose value is `undefined` is left out.
 */
function childEnv(options, cwd) {
  const given = options.env || process.env
  const env = {}
  for (const key of Object.keys(given)) {
    const value = given[key]
    if (value !== undefined) env[key] = String(value)
  }
  if (given === process.env) for (const key of SANITIZED_VARS) delete env[key]
  env.PWD = cwd
  const name = options.name || env.TERM || DEFAULT_NAME
  env.TERM = name
  return { env, name }
}

/**
 * An `IEvent`: called with a listener, it adds it and returns a disposable
 * that removes it.
 */
function eventOf(emitter, event, wrap) {
  return (listener) => {
    if (typeof listener !== 'function') throw invalidArg(`a listener must be a function, got ${describe(listener)}`)
    const entry = emitter.add(event, wrap ? wrap(listener) : listener, false, listener)
    return { dispose: () => emitter.remove(event, entry) }
  }
}

/**
 * The listeners of one IPty, for both APIs: `onData`/`onExit` and the legacy
 * `on`/`once`. One list per event, so both kinds are called in the order
 * they were added, as node-pty (whose `onData` listens on the same stream)
 * calls them. A listener that throws is reported as a process warning; the
 * others and the exit still come.
 */
class Listeners {
  #lists = new Map()

  /** Adds `fn` (`original` is what `removeListener` is given); returns its entry. */
  add(event, fn, once, original = fn) {
    const entry = { fn, once, original }
    const list = this.#lists.get(event)
    if (list) list.push(entry)
    else this.#lists.set(event, [entry])
    return entry
  }

  /** Removes one entry, or the last one added for `fn`. */
  remove(event, entryOrFn) {
    const list = this.#lists.get(event)
    if (!list) return
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i] === entryOrFn || list[i].original === entryOrFn) {
        list.splice(i, 1)
        return
      }
    }
  }

  removeAll(event) {
    if (event === undefined) this.#lists.clear()
    else this.#lists.delete(event)
  }

  listeners(event) {
    return (this.#lists.get(event) || []).map((e) => e.original)
  }

  /** True when some listener waits for `event`. */
  has(event) {
    const list = this.#lists.get(event)
    return list !== undefined && list.length > 0
  }

  emit(event, ...args) {
    const list = this.#lists.get(event)
    if (!list || list.length === 0) return
    for (const entry of list.slice()) {
      if (entry.once) this.remove(event, entry)
      try {
        entry.fn(...args)
      } catch (err) {
        reportListenerError(`on${event[0].toUpperCase()}${event.slice(1)}`, err)
      }
    }
  }
}

const kStart = Symbol('start')

/**
 * A program in a pseudo-terminal with node-pty's `IPty` interface (see
 * node-pty.d.ts). Made by `spawn()`.
 */
class UnixTerminal {
  #native = new native.NativeSession()
  #events = new Listeners()
  #file = DEFAULT_FILE
  #name = DEFAULT_NAME
  #pid = 0
  #cols = DEFAULT_COLS
  #rows = DEFAULT_ROWS
  #ptsName = ''
  /** `null`: Buffers; else what strings are decoded with and written in. */
  #encoding = 'utf8'
  /** For encodings other than UTF-8: decodes the raw bytes. */
  #decoder = undefined
  /** The descriptor `fd` gave out (a duplicate of the master), closed at the exit. */
  #fd = undefined
  #exited = false
  #destroyed = false
  #flowControlPause = FLOW_CONTROL_PAUSE
  #flowControlResume = FLOW_CONTROL_RESUME
  /** The `onData` and `onExit` events, made at their first use (the same function every time, as node-pty's). */
  #onData = undefined
  #onExit = undefined

  /** Whether `write()` takes the flow control messages as pause and resume. */
  handleFlowControl = false

  constructor(key) {
    if (key !== kStart) throw invalidArg('use spawn() from ptypilot/node-pty to start a program')
  }

  /** Checks the options as node-pty does, applies its defaults, and starts the program. */
  [kStart](file, args, options) {
    if (typeof args === 'string') {
      throw invalidArg(`args as a string is not supported on unix (a command line is Windows only): got ${describe(args)}`)
    }
    if (args === undefined || args === null) args = []
    if (!Array.isArray(args)) throw invalidArg(`args must be an array of strings, got ${describe(args)}`)
    args.forEach((arg, i) => {
      if (typeof arg !== 'string') throw invalidArg(`args[${i}] must be a string, got ${describe(arg)}`)
    })
    if (options === undefined || options === null) options = {}
    if (typeof options !== 'object') throw invalidArg(`options must be an object, got ${describe(options)}`)
    for (const [name, type] of [['name', 'string'], ['cols', 'number'], ['rows', 'number'], ['cwd', 'string'],
      ['env', 'object'], ['uid', 'number'], ['gid', 'number'], ['encoding', 'string']]) {
      checkType(options, name, type)
    }
    file = file || DEFAULT_FILE
    if (typeof file !== 'string') throw invalidArg(`file must be a string, got ${describe(file)}`)
    this.handleFlowControl = Boolean(options.handleFlowControl)
    this.#flowControlPause = options.flowControlPause || FLOW_CONTROL_PAUSE
    this.#flowControlResume = options.flowControlResume || FLOW_CONTROL_RESUME
    const cols = dimension(options.cols, DEFAULT_COLS, 'options.cols')
    const rows = dimension(options.rows, DEFAULT_ROWS, 'options.rows')
    const cwd = options.cwd || process.cwd()
    const { env, name } = childEnv(options, cwd)
    const encoding = options.encoding === undefined ? 'utf8' : options.encoding
    const utf8 = isUtf8(encoding)
    // node-pty changes the user only when both are given (-1 meaning "not").
    const uid = options.uid ?? -1
    const gid = options.gid ?? -1
    const runAs = uid !== -1 && gid !== -1
    if (runAs && !(Number.isInteger(uid) && uid >= 0 && Number.isInteger(gid) && gid >= 0)) {
      throw invalidArg(`options.uid and options.gid must be user and group ids, got ${describe(uid)} and ${describe(gid)}`)
    }
    this.#file = file
    this.#name = name
    this.#cols = cols
    this.#rows = rows
    this.#encoding = encoding
    if (!utf8 && encoding !== null) this.#decoder = new StringDecoder(encoding)
    const start = {
      file,
      args,
      env,
      cwd,
      cols,
      rows,
      uid: runAs ? uid : undefined,
      gid: runAs ? gid : undefined,
      text: utf8,
      raw: !utf8,
      sandbox: options.sandbox,
      // Windows: node-pty's switch for PSEUDOCONSOLE_INHERIT_CURSOR (off by default, as there).
      conptyInheritCursor: options.conptyInheritCursor === true,
    }
    const pump = (data, exit, raw) => this.#deliver(data, exit, raw)
    try {
      this.#native.startNodePty(start, pump)
    } catch (err) {
      if (err.code !== 'ERR_SPAWN') throw err
      // node-pty's child prints why it could not start and exits with 1;
      // so does a shell standing in for the program here.
      this.#native.startNodePty(
        {
          ...start,
          file: '/bin/sh',
          args: ['-c', 'printf "%s\\n" "$1"; exit 1', 'sh', err.message],
          cwd: '/',
          uid: undefined,
          gid: undefined,
        },
        pump,
      )
    }
    this.#pid = this.#native.pid
    this.#ptsName = this.#native.ptsName || ''
    return this
  }

  /** The pump: output (text, or raw bytes), then the exit. */
  #deliver(data, exit, raw) {
    if (!this.#destroyed) {
      if (data !== null && data !== undefined) this.#events.emit('data', data)
      if (raw !== null && raw !== undefined) {
        const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)
        if (this.#decoder === undefined) {
          this.#events.emit('data', bytes)
        } else {
          const text = this.#decoder.write(bytes)
          if (text !== '') this.#events.emit('data', text)
        }
      }
    }
    if (exit === null || exit === undefined) return
    if (this.#decoder !== undefined && !this.#destroyed) {
      const rest = this.#decoder.end()
      if (rest !== '') this.#events.emit('data', rest)
    }
    this.#exited = true
    this.#closeFd()
    const exitCode = exit.exitCode ?? 0
    const signal = exit.signal ? os.constants.signals[exit.signal] ?? 0 : 0
    this.#events.emit('close')
    this.#events.emit('exit', exitCode, signal)
  }

  #closeFd() {
    if (this.#fd !== undefined && this.#fd >= 0) {
      try {
        fs.closeSync(this.#fd)
      } catch {
        // Closed by the caller already.
      }
    }
    this.#fd = -1
  }

  get pid() {
    return this.#pid
  }

  get cols() {
    return this.#cols
  }

  get rows() {
    return this.#rows
  }

  /** The foreground program's name (`argv[0]` on Linux), else the file spawned. */
  get process() {
    return this.#native.foregroundName() ?? this.#file
  }

  get onData() {
    this.#onData ??= eventOf(this.#events, 'data')
    return this.#onData
  }

  get onExit() {
    this.#onExit ??= eventOf(this.#events, 'exit', (listener) => (exitCode, signal) => listener({ exitCode, signal }))
    return this.#onExit
  }

  write(data) {
    if (this.handleFlowControl) {
      // Only a whole message matches, as in node-pty; it never reaches the program.
      if (data === this.#flowControlPause) {
        this.pause()
        return
      }
      if (data === this.#flowControlResume) {
        this.resume()
        return
      }
    }
    let bytes
    if (typeof data === 'string') {
      bytes = this.#encoding === null || /^utf-?8$/i.test(this.#encoding) ? data : Buffer.from(data, this.#encoding)
    } else if (data instanceof Uint8Array) {
      bytes = data
    } else {
      throw invalidArg(`write() takes a string or a Buffer, got ${describe(data)}`)
    }
    if (this.#exited || this.#destroyed) return
    try {
      this.#native.write(bytes)
    } catch (err) {
      // The program exited a moment ago (its exit is on its way): input is
      // dropped, as node-pty drops it once the pty closed.
      if (err.code !== 'ERR_NOT_RUNNING') throw err
    }
  }

  resize(columns, rows) {
    if (!(columns > 0 && rows > 0 && columns !== Infinity && rows !== Infinity)) {
      throw invalidArg(`resizing must be done using positive cols and rows, got ${describe(columns)} and ${describe(rows)}`)
    }
    const cols = dimension(columns, DEFAULT_COLS, 'cols')
    const height = dimension(rows, DEFAULT_ROWS, 'rows')
    if (this.#exited) return
    try {
      this.#native.resize(cols, height)
    } catch (err) {
      if (err.code === 'ERR_NOT_RUNNING') return
      throw err
    }
    this.#cols = cols
    this.#rows = height
  }

  /** A no-op on Unix, as in node-pty (ConPTY only). */
  clear() {}

  kill(signal) {
    const name = signalName(signal === undefined ? 'SIGHUP' : signal)
    if (this.#exited) return
    try {
      this.#native.kill(name)
    } catch (err) {
      if (err.code !== 'ERR_NOT_RUNNING') throw err
    }
  }

  pause() {
    this.#native.pause()
  }

  resume() {
    this.#native.resume()
  }

  /**
   * A descriptor of the pty master in this process (close-on-exec), so
   * `tty.isatty(fd)` holds; made at the first read of `fd`, closed when the
   * exit is delivered. -1 once the program has exited.
   */
  get fd() {
    if (this.#fd === undefined) {
      const fd = this.#exited ? null : this.#native.dupMaster()
      this.#fd = fd ?? -1
    }
    return this.#fd
  }

  /** The terminal's slave side, `/dev/pts/N`. */
  get ptsName() {
    return this.#ptsName
  }

  /**
   * Stops the output (no more data events), sends SIGHUP to the program, and
   * terminates its whole tree (TERM, then KILL) if it has not ended
   * `DESTROY_GRACE_MS` later. The exit is still reported.
   */
  destroy() {
    if (this.#destroyed) return
    this.#destroyed = true
    this.#native.setStreams(false, false)
    this.#native.resume()
    if (this.#exited) return
    this.kill('SIGHUP')
    setTimeout(() => {
      if (!this.#exited) this.#native.terminate()
    }, DESTROY_GRACE_MS).unref()
  }

  // The legacy event API (node-pty's untyped EventEmitter members): 'data'
  // (a chunk), 'exit' (exitCode, signal) and 'close' (the output ended,
  // right before 'exit').

  on(event, listener) {
    if (typeof listener !== 'function') throw invalidArg(`on() takes a listener function, got ${describe(listener)}`)
    this.#events.add(event, listener, false)
    return this
  }

  addListener(event, listener) {
    return this.on(event, listener)
  }

  once(event, listener) {
    if (typeof listener !== 'function') throw invalidArg(`once() takes a listener function, got ${describe(listener)}`)
    this.#events.add(event, listener, true)
    return this
  }

  removeListener(event, listener) {
    this.#events.remove(event, listener)
    return this
  }

  off(event, listener) {
    return this.removeListener(event, listener)
  }

  removeAllListeners(event) {
    this.#events.removeAll(event)
    return this
  }

  listeners(event) {
    return this.#events.listeners(event)
  }
}

/**
 * A pty pair with no program (node-pty's `open`): `master` and `slave` are
 * `tty.ReadStream`s (reading, with `encoding` applied unless it is null);
 * `write()` writes to the master; `fd` is the master, `ptsName` the
 * slave's path, `pid` -1. `destroy()` closes both.
 */
class PtyPair {
  #cols
  #rows
  #encoding
  #closed = false

  constructor(key, options) {
    if (key !== kStart) throw invalidArg('use open() from ptypilot/node-pty to open a pty pair')
    // node-pty also takes open(options, cols, rows).
    if (options === undefined || options === null) options = {}
    if (typeof options !== 'object') throw invalidArg(`options must be an object, got ${describe(options)}`)
    checkType(options, 'cols', 'number')
    checkType(options, 'rows', 'number')
    this.#cols = dimension(options.cols, DEFAULT_COLS, 'options.cols')
    this.#rows = dimension(options.rows, DEFAULT_ROWS, 'options.rows')
    const encoding = options.encoding === undefined ? 'utf8' : options.encoding
    isUtf8(encoding)
    this.#encoding = encoding
    const pair = native.openPtyPair(this.#cols, this.#rows)
    this.fd = pair.master
    this.ptsName = pair.pty
    this.master = new tty.ReadStream(pair.master)
    this.slave = new tty.ReadStream(pair.slave)
    for (const stream of [this.master, this.slave]) {
      if (encoding !== null) stream.setEncoding(encoding)
      stream.resume()
      stream.on('error', () => this.destroy())
    }
    this.pid = -1
    this.process = process.argv[0] || 'node'
  }

  get cols() {
    return this.#cols
  }

  get rows() {
    return this.#rows
  }

  /** Writes to the master (what the slave's reader gets as typed input), through its stream: never blocks. */
  write(data) {
    const bytes = typeof data === 'string' ? Buffer.from(data, this.#encoding || 'utf8') : data
    if (!(bytes instanceof Uint8Array)) throw invalidArg(`write() takes a string or a Buffer, got ${describe(data)}`)
    if (this.#closed) return
    this.master.write(bytes)
  }

  resize(columns, rows) {
    if (!(columns > 0 && rows > 0 && columns !== Infinity && rows !== Infinity)) {
      throw invalidArg(`resizing must be done using positive cols and rows, got ${describe(columns)} and ${describe(rows)}`)
    }
    if (this.#closed) return
    this.#cols = dimension(columns, DEFAULT_COLS, 'cols')
    this.#rows = dimension(rows, DEFAULT_ROWS, 'rows')
    native.resizePty(this.fd, this.#cols, this.#rows)
  }

  /** Listens on the master stream (`'data'`, `'close'`, ...), as node-pty's `open()` result does. */
  on(event, listener) {
    this.master.on(event, listener)
    return this
  }

  once(event, listener) {
    this.master.once(event, listener)
    return this
  }

  removeListener(event, listener) {
    this.master.removeListener(event, listener)
    return this
  }

  /** Closes both sides. */
  destroy() {
    if (this.#closed) return
    this.#closed = true
    this.master.destroy()
    this.slave.destroy()
  }
}

/**
 * Starts `file` with `args` in a new pseudo-terminal (node-pty's `spawn`).
 * See node-pty.d.ts.
 */
function spawn(file, args, options) {
  return new UnixTerminal(kStart)[kStart](file, args, options)
}

/**
 * Opens a pty pair with no program (node-pty's `open`). `open(options)`, or
 * node-pty's older `open(options, cols, rows)`.
 */
function open(options, cols, rows) {
  if (arguments.length > 1) options = { cols, rows }
  return new PtyPair(kStart, options)
}

module.exports = {
  spawn,
  /** node-pty's deprecated name for `spawn`. */
  fork: spawn,
  /** node-pty's deprecated name for `spawn`. */
  createTerminal: spawn,
  open,
}
