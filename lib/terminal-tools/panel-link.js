'use strict'
// The person beside the agent: the terminal sessions as a source of the live
// panel (lib/panel.js, started when the set has a `web` option). It shows
// the sessions (and the registry's interactive-tool handles, view only),
// passes their changes and output to the pages that watch, keeps what each
// program waits for current while pages watch, and carries out a person's
// actions: take over, type, resize, hand back. While a person holds a
// session the model's input is refused; what they type is in no reply — the
// model's next read says how many characters they typed (`personReport`).

const { codedError } = require('../errors.js')
const { stateText } = require('./replies.js')

/** While the panel is watched: how long one ask of "does it wait for input?" lasts, and the pause between asks. */
const WATCH_SLICE_MS = 1000
const WATCH_GAP_MS = 25

/** An interactive tool's handle (a HandleInfo) as the live panel shows it: view only. */
function handleEntry(h, handles) {
  let size = { cols: 80, rows: 24 }
  try {
    const screen = h.state === 'running' ? handles.screen(h.id) : null
    if (screen) size = { cols: screen.cols, rows: screen.rows }
  } catch {
    // A pipes handle has no screen.
  }
  return {
    id: h.id,
    kind: 'tool',
    name: `${h.tool} ${h.command}`,
    command: h.tool,
    args: [h.command, ...h.args],
    pid: h.pid,
    state: h.state === 'running' ? 'running' : 'exited',
    stateText: h.state === 'running' ? 'running' : h.state === 'success' || h.state === 'error' ? `exited ${h.exitCode}` : h.state,
    exitCode: h.exitCode,
    signal: null,
    input: null,
    holder: null,
    canTake: false,
    cols: size.cols,
    rows: size.rows,
    startedAt: h.startedAt,
    finishedAt: h.finishedAt,
    leftovers: [],
  }
}

/**
 * What a person did in the session since the model's last reply about it
 * (never what they typed): `{ holding, typed, tookOver, handedBack }`, or
 * null when there is nothing to tell. Telling it resets it.
 */
function personReport(s) {
  const note = s.personNote
  if (s.person === null && note.typed === 0 && !note.took && !note.handedBack) return null
  s.personNote = { typed: 0, took: false, handedBack: false }
  return { holding: s.person !== null, typed: note.typed, tookOver: note.took, handedBack: note.handedBack }
}

/**
 * The live panel's side of one registry's terminal sessions. `sessions` is
 * the sessions' map (by id, read here, never changed); `host` gives
 * `emit(event)` and `handles` (the registry's interactive-tool handles), or
 * undefined.
 */
class PanelLink {
  #set
  #opts
  #host
  /** The sessions by id (TerminalSessions' own map). */
  #sessions
  /** Listeners of the sessions' changes and output (the live panel): `(event) => void`. */
  #watchers = new Set()
  /** The live panel (`web` option): a promise of `{ url, close }` (null when it could not start), or null. */
  #panel = null
  /** Its URL once it listens, for the replies that point a person to it. */
  #url = null
  /** While pages watch: aborts the sessions' input-state watches when the last page leaves. */
  #watching = null

  constructor(set, host, sessions) {
    this.#set = set
    this.#opts = set.options
    this.#host = host
    this.#sessions = sessions
    if (this.#opts.web !== undefined) this.#panel = this.#start()
  }

  /** Starts the live panel of these sessions; its URL goes out as a `web` event. */
  async #start() {
    const { startPanel } = require('../panel.js')
    const { port, token } = this.#opts.web
    const emit = this.#host.emit
    try {
      const panel = await startPanel({ source: this.source(), port, ...(token !== null && { token }), title: 'ptypilot' })
      this.#url = panel.url
      if (emit !== undefined) emit({ type: 'web', id: this.#set.name, url: panel.url })
      return panel
    } catch (err) {
      const message = `the live panel could not start on 127.0.0.1:${port}: ${err && err.message ? err.message : String(err)}`
      process.emitWarning(message, { code: 'PTYPILOT_WEB' })
      if (emit !== undefined) emit({ type: 'web', id: this.#set.name, url: null, error: message })
      return null
    }
  }


  /** Tells the watchers that session `s` changed (or is gone). */
  notify(s) {
    if (this.#watchers.size === 0) return
    const event = s.forgotten || !this.#sessions.has(s.id) ? { type: 'removed', id: s.id } : { type: 'entry', entry: this.#entry(s) }
    for (const watch of this.#watchers) watch(event)
  }

  /** Session `s` as the panel shows it. */
  #entry(s) {
    return {
      id: s.id,
      kind: 'terminal',
      name: s.title ?? [s.command, ...s.args].join(' '),
      command: s.command,
      args: [...s.args],
      pid: s.pid,
      state: s.exit === null ? 'running' : 'exited',
      exitCode: s.exit === null ? null : s.exit.exitCode,
      signal: s.exit === null ? null : s.exit.signal,
      input: s.exit === null ? s.inputKind : null,
      stateText: stateText({ status: s.exit === null ? 'running' : 'exited', inputKind: s.inputKind, ...(s.exit ?? {}) }),
      holder: s.person === null ? null : s.person.holder,
      canTake: s.exit === null,
      cols: s.size.cols,
      rows: s.size.rows,
      startedAt: s.startedAt,
      finishedAt: s.finishedAt,
      leftovers: s.leftovers.map(({ pid, args }) => ({ pid, args })),
    }
  }

  setInput(s, kind) {
    if (s.inputKind === kind) return
    s.inputKind = kind
    this.notify(s)
  }

  /**
   * While pages watch (`signal` not aborted): keeps `s.inputKind` current —
   * set when the program begins to wait for input, cleared by its next
   * output (the output callback) or input. Nothing is looked up for a
   * session nobody watches. The session's wait holds the process, so it is
   * asked in slices with a pause between them that does not: a watched
   * panel never keeps the process alive.
   */
  async #watchInput(s, signal) {
    if (typeof s.pty.waitForInput !== 'function') return
    let since
    while (!signal.aborted && s.exit === null && !s.forgotten) {
      if (s.inputKind === null) {
        let r
        try {
          r = await s.pty.waitForInput({ ...(since !== undefined && { since }), timeoutMs: WATCH_SLICE_MS, signal })
        } catch {
          return // aborted, or it exited
        }
        if (r.reason === 'exit') return
        if (r.reason === 'input') {
          // The next wait counts once something happened after this one.
          since = s.pty.read({ tail: 0 }).cursor
          this.setInput(s, r.state.kind)
        }
      }
      await new Promise((resolve) => setTimeout(resolve, WATCH_GAP_MS).unref())
    }
  }

  /** The running session `id` for a person's action, checked. */
  #personSession(id, holder, action) {
    const s = this.#sessions.get(id)
    if (s === undefined && /^h\d+$/.test(id)) {
      throw codedError('ERR_INVALID_INPUT', `${id} is an interactive tool's handle: the panel shows it, the model's apply types into it`)
    }
    if (s === undefined || s.forgotten) throw codedError('ERR_UNKNOWN_HANDLE', `no terminal session ${JSON.stringify(id)}`)
    if (s.exit !== null || !s.pty.running) throw codedError('ERR_NOT_RUNNING', `session ${id} has exited; it cannot be ${action}`)
    if (action !== 'taken over' && (s.person === null || s.person.holder !== holder)) {
      throw codedError('ERR_INVALID_INPUT', `session ${id} is not held by this page; take it over first`)
    }
    return s
  }

  /**
   * The sessions as a source of the live panel (lib/panel.js): their
   * entries, a subscription to their changes and output, and a person's
   * actions — take over, type, resize, hand back. A holder is any value that
   * names one page.
   */
  source() {
    const handles = this.#host.handles
    return {
      watched: (on) => {
        if (on && this.#watching === null) {
          this.#watching = new AbortController()
          for (const s of this.#sessions.values()) if (s.exit === null) this.#watchInput(s, this.#watching.signal)
        } else if (!on && this.#watching !== null) {
          this.#watching.abort()
          this.#watching = null
          for (const s of this.#sessions.values()) this.setInput(s, null)
        }
      },
      entries: () => [
        ...[...this.#sessions.values()].filter((s) => !s.forgotten).map((s) => this.#entry(s)),
        ...(handles === undefined ? [] : handles.list().map((h) => handleEntry(h, handles))),
      ],
      subscribe: (fn) => {
        this.#watchers.add(fn)
        // The registry's interactive-tool handles: shown, never typed into here (their input is the model's apply).
        const off = handles === undefined || !handles.live
          ? () => {}
          : handles.subscribe((event) => {
              if (typeof event.id !== 'string' || !/^h\d+$/.test(event.id)) return
              if (event.type === 'output') fn({ type: 'output', id: event.id, chunk: event.chunk })
              else if (event.type === 'started') fn({ type: 'entry', entry: handleEntry(event, handles) })
              else if (event.type === 'finished' || event.type === 'hostCrashed') {
                // Its last state, then gone: a finished handle leaves the registry's list.
                if (event.type === 'finished') fn({ type: 'entry', entry: handleEntry(event, handles) })
                fn({ type: 'removed', id: event.id })
              }
            })
        return () => {
          this.#watchers.delete(fn)
          off()
        }
      },
      take: (id, holder) => {
        const s = this.#personSession(id, holder, 'taken over')
        if (s.person !== null && s.person.holder !== holder) {
          throw codedError('ERR_LIMIT', `session ${id} is held by another page; it is read-only here until it is handed back`)
        }
        if (s.person === null) {
          s.person = { holder, since: Date.now() }
          s.personNote.took = true
          this.notify(s)
        }
      },
      release: (id, holder) => {
        const s = this.#sessions.get(id)
        if (s === undefined || s.person === null || s.person.holder !== holder) return false
        s.person = null
        s.personNote.handedBack = true
        if (s.exit === null && (s.size.cols !== this.#opts.cols || s.size.rows !== this.#opts.rows)) {
          // The model's size again: what it reads is as wide as it expects.
          s.size = { cols: this.#opts.cols, rows: this.#opts.rows }
          s.pty.resize(s.size.cols, s.size.rows)
        }
        this.notify(s)
        return true
      },
      input: (id, holder, data) => {
        const s = this.#personSession(id, holder, 'typed into')
        // Counted, never kept: input typed while echo is off is stored nowhere (the session sees to it).
        s.pty.write(data)
        this.setInput(s, null)
        s.personNote.typed += typeof data === 'string' ? [...data].length : data.length
      },
      resize: (id, holder, cols, rows) => {
        const s = this.#personSession(id, holder, 'resized')
        s.pty.resize(cols, rows)
        s.size = { cols, rows }
        this.notify(s)
      },
    }
  }

  /** The panel's URL once it listens, else null. */
  get url() {
    return this.#url
  }

  /** True when nobody takes the sessions' output here (no watcher, no panel). */
  get idle() {
    return this.#watchers.size === 0 && this.#opts.web === undefined
  }

  /** Passes a chunk of session `id`'s output to the watchers. */
  output(id, chunk) {
    for (const watch of this.#watchers) watch({ type: 'output', id, chunk })
  }

  /** A session started: while pages watch, what it waits for is kept current. */
  started(s) {
    if (this.#watching !== null) this.#watchInput(s, this.#watching.signal)
  }

  /** Ends the input-state watches (the sessions are being stopped). */
  stopWatching() {
    this.#watching?.abort()
    this.#watching = null
  }

  /** Closes the live panel. */
  async close() {
    const panel = await this.#panel
    this.#panel = null
    if (panel) await panel.close()
  }
}

module.exports = { PanelLink, personReport }
