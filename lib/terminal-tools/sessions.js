'use strict'
// The sessions of one registry's terminal tools, and the six tools' calls on
// them: each program runs without a shell (argv) in a PtySession that does
// not keep the process alive, with PAGER=cat and GIT_PAGER=cat over the
// inherited environment (`DEFAULT_ENV`; the set's `env` overrides them) so
// that `git log` or `man` never stop in a pager the model cannot see. A
// session that exited stays readable — its exit, runtime and the end of its
// output — until one read reports the exit, pty_stop removes it, or
// `keepExitedMs` passes; then a call naming it hears what became of it.
// With `recordDir`, every session is recorded there (asciicast v2,
// `<id>.cast`).
//
// Beside it: what a call may do (approval.js), the input checks (input.js),
// the output budget and spill files (output.js), the left-overs
// (leftovers.js), the live panel's side (panel-link.js), the waits
// (waits.js) and the replies (replies.js).

const fs = require('node:fs')
const path = require('node:path')
const { codedError } = require('../errors.js')
const { held, kWriteInput, kSpawnUnref } = require('../common.js')
const waits = require('./waits.js')
const { invalidInput, readInput } = require('./input.js')
const { allowed, deniedError, checkApproval } = require('./approval.js')
const { OutputBudget } = require('./output.js')
const { sandboxRefusals } = require('../sandbox.js')
const { SESSION_MARKER, sessionMarker, leftBehind, endLeftovers } = require('./leftovers.js')
const { PanelLink, personReport } = require('./panel-link.js')
const { describeExit, sentCharacters } = require('./replies.js')

/**
 * The environment every program of the set gets under the set's `env`: no
 * pager (a pager waits for keys the model does not know it must send).
 * TERM stays the session's default, xterm-256color.
 */
const DEFAULT_ENV = Object.freeze({ PAGER: 'cat', GIT_PAGER: 'cat' })
/** Gone sessions remembered for the message a later call naming them gets. */
const KEEP_GONE = 256

/**
 * The sessions of one registry's terminal tools. `host` gives `emit(event)`
 * (or undefined), `cwd` (the registry's default) and `firstId` (the number of
 * the first session id).
 */
class TerminalSessions {
  #set
  #tools
  #opts
  #host
  #PtySession
  /** Sessions by id, in start order. */
  #sessions = new Map()
  /** Ids of sessions that are gone → what became of them (the last KEEP_GONE). */
  #gone = new Map()
  #nextId
  /** The output budget of the replies, with the spill files. */
  #budget
  /** The live panel's side of the sessions. */
  #link

  constructor(set, host, PtySession) {
    this.#set = set
    this.#opts = set.options
    this.#tools = new Map(set.tools.map((t) => [t.name, t]))
    this.#host = host
    this.#PtySession = PtySession
    this.#nextId = Math.max(1, Math.floor(host.firstId ?? 1))
    this.#budget = new OutputBudget(this.#opts)
    this.#link = new PanelLink(set, host, this.#sessions)
  }

  /** Stops every session and closes the live panel. */
  async close() {
    this.#link.stopWatching()
    await this.stopAll()
    await this.#link.close()
  }

  get set() {
    return this.#set
  }

  /**
   * The sessions as a source of the live panel (lib/panel.js): their
   * entries, a subscription to their changes and output, and a person's
   * actions (see lib/terminal-tools/panel-link.js).
   */
  panelSource() {
    return this.#link.source()
  }

  /** The names of the set's tools. */
  names() {
    return [...this.#tools.keys()]
  }

  tool(name) {
    return this.#tools.get(name)
  }

  /** Removes a tool from this registry's view of the set; true when none is left (then call `close()`). */
  drop(name) {
    this.#tools.delete(name)
    return this.#tools.size === 0
  }

  /** Carries out a call; resolves with the tool's typed result. */
  async call(name, input) {
    const tool = this.#tools.get(name)
    if (tool === undefined) throw codedError('ERR_UNKNOWN_TOOL', `unknown tool ${JSON.stringify(name)}`)
    const fields = readInput(tool, input)
    const denied = await checkApproval(this.#set, name, fields, (id) => this.#sessions.get(id))
    if (denied !== null) throw denied
    try {
      return await this.#run(name, fields)
    } catch (err) {
      // The set's options were checked when it was made: a bad argument now
      // comes from the call's fields (a cwd with a NUL, a huge tail).
      if (err && err.code === 'ERR_INVALID_ARG') {
        const mapped = invalidInput(`input is not usable: ${err.message}`)
        mapped.cause = err
        throw mapped
      }
      throw err
    }
  }

  #run(name, fields) {
    switch (name) {
      case 'pty_exec':
        return this.#exec(fields)
      case 'pty_start':
        return this.#start(fields)
      case 'pty_read':
        return this.#read(fields)
      case 'pty_send':
        return this.#send(fields)
      case 'pty_list':
        return { sessions: this.list().map((h) => this.#describe(this.#sessions.get(h.id))) }
      case 'pty_stop':
        return this.#stop(fields)
    }
    throw codedError('ERR_UNKNOWN_TOOL', `unknown tool ${JSON.stringify(name)}`)
  }

  /** The sessions as `HandleInfo`s. */
  list() {
    return [...this.#sessions.values()].filter((s) => !s.forgotten).map((s) => this.#info(s))
  }

  /** True when `id` is a session of this set. */
  has(id) {
    const s = this.#sessions.get(id)
    return s !== undefined && !s.forgotten
  }

  /** Waits for session `id` to exit (or `timeoutMs`); its state as a `ToolState`. */
  async wait(id, timeoutMs) {
    const s = this.#session(id)
    if (s.exit === null) {
      let timer
      const timeout = new Promise((resolve) => {
        if (timeoutMs !== undefined) timer = setTimeout(resolve, timeoutMs)
      })
      await held(Promise.race([s.settled, timeout]))
      clearTimeout(timer)
      await Promise.resolve()
    }
    const output = s.pty.read({ tail: 200 }).text
    if (s.exit === null) return { id, state: 'running', content: output, inputKind: waits.waitingKind(s.pty), reason: 'timeout' }
    if (s.exit.exitCode === 0 || s.stopped) return { id, state: 'stopped', result: { ok: true, content: output }, reason: 'exit' }
    const trace = output.split('\n').filter((l) => l.trim() !== '').slice(-20)
    return { id, state: 'stopped', result: { ok: false, error: { message: describeExit(s.exit, true), trace, transient: false } }, reason: 'exit' }
  }

  /** Stops every session (the whole tree of each) and waits for them. */
  async stopAll() {
    const all = [...this.#sessions.values()]
    await Promise.all([
      ...all.filter((s) => s.exit === null).map((s) => this.#terminate(s)),
      ...all.filter((s) => s.exit !== null).map((s) => endLeftovers(s, this.#opts.stopGraceMs)),
    ])
  }

  // ----- the tools -----

  #cwd(fields) {
    const base = this.#opts.cwd ?? this.#host.cwd ?? process.cwd()
    return fields.cwd === undefined ? base : path.resolve(base, fields.cwd)
  }

  /**
   * The set's sandbox for a program: its workspace is the set's `cwd` (where the model works),
   * not the directory a call names, so `cwd: "/"` in a call writes nowhere new.
   */
  #sandbox() {
    const sandbox = this.#opts.sandbox
    const options = typeof sandbox === 'string' ? { mode: sandbox } : sandbox
    if (options.mode !== 'workspace-write' || options.workspace !== undefined) return sandbox
    return { ...options, workspace: this.#opts.cwd ?? this.#host.cwd ?? process.cwd() }
  }

  #spawn(tool, fields) {
    const { command } = fields
    if (command.trim() === '') throw invalidInput('input.command must name a program, got an empty string')
    if (!allowed(this.#set, command)) throw deniedError(this.#set, command)
    const running = [...this.#sessions.values()].filter((s) => s.exit === null).length
    if (running >= this.#opts.maxSessions) {
      throw codedError(
        'ERR_LIMIT',
        `too many running sessions (${running}, limit ${this.#opts.maxSessions}); stop one with pty_stop first`,
      )
    }
    const cwd = this.#cwd(fields)
    const args = fields.args ?? []
    const emit = this.#host.emit
    const id = `pty${this.#nextId}`
    // Marks everything the program starts, so what it leaves running is found after it exited.
    const marker = sessionMarker(id)
    const env = { ...DEFAULT_ENV, ...this.#opts.env, [SESSION_MARKER]: marker }
    let record
    if (this.#opts.recordDir !== undefined) {
      fs.mkdirSync(this.#opts.recordDir, { recursive: true })
      record = path.join(this.#opts.recordDir, `${id}.cast`)
    }
    let pty
    let s
    try {
      // Like a registry's handles, a running session does not keep the process alive.
      pty = this.#PtySession[kSpawnUnref](
        {
          command,
          args,
          cwd,
          cols: this.#opts.cols,
          rows: this.#opts.rows,
          env,
          ...(record !== undefined && { record }),
          ...(this.#opts.sandbox !== undefined && { sandbox: this.#sandbox() }),
        },
        emit === undefined && this.#link.idle
          ? undefined
          : (chunk) => {
              if (emit !== undefined) emit({ type: 'output', id, chunk })
              this.#link.output(id, chunk)
              // Output: whatever it waited for, it is working now.
              if (s !== undefined && s.inputKind !== null) this.#link.setInput(s, null)
            },
      )
    } catch (err) {
      if (err.code === 'ERR_SPAWN' && /\s/.test(command.trim()) && args.length === 0) {
        err.message += `; programs run without a shell: put the program in command and its arguments in args, e.g. {"command": ${JSON.stringify(command.trim().split(/\s+/)[0])}, "args": ${JSON.stringify(command.trim().split(/\s+/).slice(1))}}`
      }
      throw err
    }
    this.#nextId++
    s = {
      id,
      tool: tool.name,
      command,
      args,
      cwd,
      title: fields.title ?? null,
      pty,
      pid: pty.pid,
      sandbox: pty.sandbox,
      startedAt: Date.now(),
      finishedAt: null,
      exit: null,
      stopped: false,
      forgotten: false,
      marker,
      /** Processes the program left running when it exited: `{ proc, pid, args }`. */
      leftovers: [],
      /** Resolves once the exit is known with its left-overs. */
      settled: null,
      keepTimer: null,
      /** The person who took the session over in the panel (`{ holder, since }`), or null. */
      person: null,
      /** What the person did since the model's last read: characters typed, took over, handed back. */
      personNote: { typed: 0, took: false, handedBack: false },
      size: { cols: this.#opts.cols, rows: this.#opts.rows },
      /** What it waits for, as the panel shows it ('line' | 'password' | 'key'), while pages watch; else null. */
      inputKind: null,
      /** The model's last input (`{ text, cursor }`; text '' when echo was off): its echo is not the program's answer. */
      typed: null,
    }
    this.#sessions.set(id, s)
    this.#link.started(s)
    if (emit !== undefined) emit({ type: 'started', ...this.#info(s) })
    this.#link.notify(s)
    s.settled = pty.exited.then(async (exit) => {
      const at = Date.now()
      // Known before the exit shows: a reply that reports the exit names them.
      if (!s.stopped) s.leftovers = await leftBehind(s)
      s.exit = exit
      s.finishedAt = at
      if (s.person !== null) {
        s.person = null
        s.personNote.handedBack = true
      }
      if (emit !== undefined) emit({ type: 'finished', durationMs: s.finishedAt - s.startedAt, ...this.#info(s) })
      this.#link.notify(s)
      if (!s.forgotten) {
        s.keepTimer = setTimeout(() => {
          const minutes = Math.round(this.#opts.keepExitedMs / 60000)
          this.#forget(s, `nobody read it within ${minutes >= 1 ? `${minutes} min` : `${this.#opts.keepExitedMs} ms`} of its exit`)
        }, this.#opts.keepExitedMs)
        s.keepTimer.unref()
      }
      this.#evict()
    })
    return s
  }

  /** Forgets the oldest exited sessions beyond `maxSessions` kept. */
  #evict() {
    const exited = [...this.#sessions.values()].filter((s) => s.exit !== null)
    for (const s of exited.slice(0, Math.max(0, exited.length - this.#opts.maxSessions))) {
      this.#forget(s, `more than ${this.#opts.maxSessions} exited sessions were kept`)
    }
  }

  /** Removes a session; a later call naming it hears `why`. */
  #forget(s, why) {
    if (!this.#sessions.has(s.id)) return
    clearTimeout(s.keepTimer)
    s.forgotten = true
    s.person = null
    this.#sessions.delete(s.id)
    this.#gone.set(s.id, {
      exit: s.exit,
      text: `no terminal session ${JSON.stringify(s.id)} any more: ${s.id} (${[s.command, ...s.args].join(' ')}) ${describeExit(s.exit, false)} and was removed (${why})`,
    })
    if (this.#gone.size > KEEP_GONE) this.#gone.delete(this.#gone.keys().next().value)
    this.#link.notify(s)
  }

  async #exec(fields) {
    // The schema's maximum is the set's maxTimeoutMs (checked by readInput).
    const timeoutMs = fields.timeout_ms ?? this.#opts.defaultTimeoutMs
    const s = this.#spawn(this.#tools.get('pty_exec'), fields)
    // Until the exit, or the program waits for input (a prompt it would wait at until timeout_ms).
    const reason = await waits.untilExitOrInput(s.pty, timeoutMs)
    if (reason === 'exit') {
      await held(s.settled)
      const out = this.#fit(s, s.pty.read(), fields.max_chars)
      const result = { ...this.#status(s), reason, timedOut: false, timeoutMs, ...out }
      this.#afterExitRead(s)
      return result
    }
    // The state first, then the output: output between the two is read next time, never lost.
    const status = this.#status(s)
    const out = this.#fit(s, s.pty.read(), fields.max_chars)
    return { ...status, reason, timedOut: reason === 'timeout', timeoutMs, ...out }
  }

  async #start(fields) {
    const s = this.#spawn(this.#tools.get('pty_start'), fields)
    const waitMs = fields.wait_ms ?? 0
    if (waitMs === 0) return this.#describe(s)
    const reason = await this.#waitAnswer(s, 0, waitMs)
    const result = { ...this.#describe(s), reason, ...this.#fit(s, s.pty.read(), fields.max_chars) }
    this.#afterExitRead(s)
    return result
  }

  /**
   * Waits for the program's answer after output position `from` (see
   * lib/terminal-waits.js); the reason, once an exit is known with its left-overs.
   */
  async #waitAnswer(s, from, ms) {
    const reason = await waits.untilAnswer(s.pty, { from, ms, typed: s.typed })
    if (!s.pty.running) await held(s.settled)
    return reason
  }

  async #read(fields) {
    const s = this.#session(fields.id)
    const { since, tail } = fields
    const waitMs = fields.wait_ms ?? 0
    const end = s.pty.read({ tail: 0 }).cursor
    if (since !== undefined && since > end) {
      throw invalidInput(`input.since ${since} is past the end of ${s.id}'s output (its cursor is ${end}); use the cursor of your last read`)
    }
    // Without since, output already there is the answer: only its quiet pause is waited for.
    const reason = waitMs > 0 ? await this.#waitAnswer(s, since ?? 0, waitMs) : undefined
    // An exit is reported with what the program left running.
    if (!s.pty.running) await held(s.settled)
    if (fields.screen === true) {
      // The state, then the cursor: output arriving between the calls is then on
      // the screen and after the cursor (read again), never in neither.
      const status = this.#status(s)
      const read = s.pty.read({ tail: 0 })
      const screen = s.pty.screen()
      const result = {
        ...status,
        ...(reason !== undefined && { reason }),
        screen: {
          text: screen.text,
          lines: screen.lines,
          cursor: screen.cursor,
          cols: screen.cols,
          rows: screen.rows,
          altScreen: screen.altScreen,
          title: screen.title,
        },
        cursor: read.cursor,
      }
      this.#afterExitRead(s)
      return result
    }
    const status = this.#status(s)
    const read = s.pty.read({ since, tail })
    const result = { ...status, ...(reason !== undefined && { reason }), ...this.#fit(s, read, fields.max_chars) }
    this.#afterExitRead(s)
    return result
  }

  /**
   * After a reply that told the model of the exit: the session goes, unless
   * processes it left are still running (pty_stop on it ends them).
   */
  #afterExitRead(s) {
    if (s.exit === null) return
    if (s.leftovers.some((l) => l.proc.status() === 'running')) return
    this.#forget(s, 'its exit was reported')
  }

  async #send(fields) {
    const s = this.#session(fields.id, 'send')
    if (s.person !== null && s.exit === null) {
      const err = codedError(
        'ERR_INVALID_INPUT',
        `a person has taken session ${s.id} over in the live panel; your input was not sent. Follow it with pty_read; it is yours again when they hand it back`,
      )
      err.person = true
      throw err
    }
    if (s.exit !== null || !s.pty.running) {
      throw codedError(
        'ERR_NOT_RUNNING',
        `session ${s.id} has exited (${describeExit(s.exit, false)}); the input was not sent. Read its output with pty_read, or start it again with pty_start`,
      )
    }
    if (fields.input === '') throw invalidInput('input.input is empty; nothing to send')
    const cursor = s.pty.read({ tail: 0 }).cursor
    let written
    try {
      written = s.pty[kWriteInput](fields.input)
    } catch (err) {
      if (err.code === 'ERR_NOT_RUNNING') {
        throw codedError('ERR_NOT_RUNNING', `session ${s.id} has exited; the input was not sent. Read its output with pty_read`)
      }
      throw err
    }
    // The session says whether the terminal had echo off when the input went in (a password):
    // such input is kept nowhere, and no reply shows it.
    const { bytes, hidden: echoOff } = written
    s.typed = { text: echoOff ? '' : fields.input, cursor }
    const sent = { id: s.id, bytes, characters: sentCharacters(fields.input), echoOff, cursor }
    const waitMs = fields.wait_ms ?? 0
    if (waitMs === 0) return sent
    const reason = await this.#waitAnswer(s, cursor, waitMs)
    const status = this.#status(s)
    const answer = { ...status, reason, ...this.#fit(s, s.pty.read({ since: cursor }), fields.max_chars) }
    this.#afterExitRead(s)
    return { ...sent, answer }
  }

  async #stop(fields) {
    const s = this.#session(fields.id)
    const ended = s.exit === null ? await this.#terminate(s) : await endLeftovers(s, this.#opts.stopGraceMs)
    this.#forget(s, 'pty_stop removed it')
    return { ...this.#status(s), status: 'exited', stopped: s.stopped, ended }
  }

  /** Ends the program's tree, then whatever it left that the tree walk missed; the latter as `{ pid, args }`. */
  async #terminate(s) {
    s.stopped = true
    const exit = await held(s.pty.terminate({ graceMs: this.#opts.stopGraceMs }))
    if (s.exit === null) {
      s.exit = exit
      s.finishedAt = Date.now()
    }
    return endLeftovers(s, this.#opts.stopGraceMs)
  }

  // ----- helpers -----

  /** The session `id`; a gone one is ERR_UNKNOWN_HANDLE saying what became of it (ERR_NOT_RUNNING for input). */
  #session(id, forWhat) {
    const s = this.#sessions.get(id)
    if (s === undefined || s.forgotten) {
      const gone = this.#gone.get(id)
      if (gone !== undefined) {
        if (forWhat === 'send') {
          throw codedError('ERR_NOT_RUNNING', `session ${id} has exited (${describeExit(gone.exit, false)}); the input was not sent. Start it again with pty_start`)
        }
        throw codedError('ERR_UNKNOWN_HANDLE', gone.text)
      }
      const live = this.list()
      const which = live.length === 0 ? 'there are no sessions' : `the sessions are ${live.map((h) => h.id).join(', ')}`
      throw codedError('ERR_UNKNOWN_HANDLE', `no terminal session ${JSON.stringify(id)}; ${which}`)
    }
    return s
  }

  /** The session's state in a result; `tell`: with what a person did since the last reply (which resets it). */
  /**
   * Output `read` fitted to the reply's budget, with the sandbox's refusals it shows (a few
   * short lines, looked for in the whole read: a refusal the budget cut out is still named) and
   * those the network proxy reported since the last reply.
   */
  #fit(s, read, maxChars) {
    const proxied = typeof s.pty.takeNetworkRefusals === 'function' ? s.pty.takeNetworkRefusals() : []
    const refusals = sandboxRefusals(read.text, s.sandbox, { cwd: s.cwd, network: proxied })
    return { ...this.#budget.fit(s.id, read, maxChars), refusals }
  }

  #status(s, tell = true) {
    return {
      id: s.id,
      sandbox: s.sandbox === null ? null : s.sandbox.summary,
      status: s.exit === null ? 'running' : 'exited',
      inputKind: s.exit === null ? waits.waitingKind(s.pty) : null,
      exitCode: s.exit === null ? null : s.exit.exitCode,
      signal: s.exit === null ? null : s.exit.signal,
      runtimeMs: s.exit === null ? null : s.finishedAt - s.startedAt,
      leftovers: s.exit === null ? [] : s.leftovers.map(({ pid, args }) => ({ pid, args })),
      person: tell ? personReport(s) : null,
      panelUrl: this.#link.url,
    }
  }

  /** Session `s` as a `HandleInfo` (the registry's list and events). */
  #info(s) {
    let state = 'running'
    if (s.exit !== null) state = s.stopped ? 'aborted' : s.exit.exitCode === 0 ? 'success' : 'error'
    return {
      id: s.id,
      tool: s.tool,
      command: s.command,
      args: [...s.args],
      pid: s.pid,
      state,
      startedAt: s.startedAt,
      finishedAt: s.finishedAt,
      exitCode: s.exit === null ? null : s.exit.exitCode,
    }
  }

  /** Session `s` as pty_start and pty_list describe it. */
  #describe(s) {
    return {
      ...this.#status(s, false),
      personHolding: s.person !== null,
      command: s.command,
      args: [...s.args],
      title: s.title,
      cwd: s.cwd,
      pid: s.pid,
      startedAt: s.startedAt,
      cursor: s.pty.read({ tail: 0 }).cursor,
    }
  }
}

module.exports = { TerminalSessions }
