'use strict'
// The isolated host: `new ToolRegistry({ isolation: 'process' })` runs the
// registry — its programs, the native addon's sessions and screen models — in
// a child Node process (lib/host-process.js), so that a native crash there (an
// abort, a segfault, the OOM killer, a SIGKILL) never takes the agent down.
//
// The object it returns has the ToolRegistry API and gives the same results:
//
// - `names`, `schema`, `definitions` are answered here from a local registry
//   that only ever holds the tool specs (it validates `register()` exactly as
//   the host will, synchronously, and never starts a program);
// - `register` and `unregister` change that local registry and are replayed,
//   in order, to the host (and to every fresh host after a crash);
// - `list` is a mirror of the host's list, sent with every reply and with
//   every batch of events that starts or ends a handle;
// - every other method (`call`, `wait`, `abortAll`, `respond`, and whatever
//   the class gains later) is forwarded by name and resolves or rejects as it
//   did in the host (errors keep `code` and their other fields).
//
// The wire is Node's IPC channel of `child_process.fork` with the structured
// clone serialization; messages keep their order, so events (`onEvent`) cross
// in the order the host saw them. Messages:
//
//   agent → host  { t: 'init', options, ops, firstIds, wantOutput }   once, first
//                 { t: 'req', n, m: method, a: args }
//                 { t: 'ping' }
//   host → agent  { t: 'ready', pid }
//                 { t: 'res', n, v | e, h? }     h: the handle list when it changed
//                 { t: 'ev', e: ToolEvent[], h? }
//                 { t: 'pong' }
//
// When the host dies, the calls pending at that moment reject with
// `ERR_HOST_CRASHED` (the message names the signal or exit code and the lost
// handles), `onEvent` gets `{ type: 'hostCrashed', id, ... }` saying the same
// for each handle the host held (and a process warning reports it), and
// the next call starts a fresh host; a later call naming a lost handle gets
// `ERR_UNKNOWN_HANDLE` saying it was lost in the crash. A host that does not
// start within `hostStartTimeoutMs` is killed (`ERR_TIMEOUT`); one that stops
// answering pings for `hostTimeoutMs` while calls are pending is killed as
// crashed.
//
// Nothing the host started may outlive it. The addon starts programs with
// posix_spawn in a new session, so a parent-death signal cannot be set in
// them, and a daemon that left the tree (setsid and double fork) is out of
// reach of a tree walk once its parent died. So every host gets a random
// token in the environment variable PTYPILOT_HOST, which its programs and
// their descendants inherit (appended with ':' for a host inside a host).
// After a crash the agent stops (SIGSTOP) every process whose initial
// environment (/proc/<pid>/environ) carries the token until a scan finds no
// new one — so none can fork away meanwhile — then SIGKILLs them all; the
// trees of the handles it knew (pids from the events) are killed too, which
// covers a program that started with an empty environment. (The same idea as
// Jenkins' ProcessTreeKiller and its BUILD_ID cookie.) A host whose agent
// went away (its IPC channel closed) does the same for itself and exits.

const { fork } = require('node:child_process')
const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')

/** The environment variable that marks everything a host started. */
const MARKER = 'PTYPILOT_HOST'
const HOST_SCRIPT = path.join(__dirname, 'host-process.js')
const DEFAULT_HOST_TIMEOUT_MS = 10000
/** How much of the host's stderr is kept for a crash message. */
const STDERR_TAIL = 2000
/** How long to wait for the channel to close after the exit (messages in flight). */
const DRAIN_MS = 500

function codedError(code, message, fields) {
  const err = new Error(message)
  err.code = code
  if (fields) Object.assign(err, fields)
  return err
}

// ---------- survivors ----------

/**
 * Pids of the processes (other than this one) whose initial environment
 * carries `token` in PTYPILOT_HOST. Linux only (`/proc`); elsewhere none.
 */
function markedProcesses(token) {
  let entries
  try {
    entries = fs.readdirSync('/proc')
  } catch {
    return []
  }
  const needle = `${MARKER}=`
  const found = []
  for (const name of entries) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue
    let environ
    try {
      environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1')
    } catch {
      continue // gone, or not ours to read
    }
    let at = environ.startsWith(needle) ? 0 : environ.indexOf(`\0${needle}`)
    if (at === -1) continue
    if (at > 0) at += 1
    let end = environ.indexOf('\0', at)
    if (end === -1) end = environ.length
    const tokens = environ.slice(at + needle.length, end).split(':')
    if (tokens.includes(token)) found.push(pid)
  }
  return found
}

function signal(pid, sig) {
  try {
    process.kill(pid, sig)
    return true
  } catch {
    return false
  }
}

/** True while `pid` is a process that has not exited (a zombie has). */
function alive(pid) {
  let stat
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1')
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ESRCH') return false
    // No /proc: ask the kernel.
    return signal(pid, 0)
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
  return state !== 'Z' && state !== 'X' && state !== 'x'
}

/**
 * SIGKILLs every process marked with `token` and the process trees in
 * `known` (`Process` objects, which know their start time and so never reach
 * a reused pid). Marked processes are stopped first, scan after scan, until
 * no new one shows up, so that none forks a child between a scan and the
 * kill. Returns the pids that were signalled.
 */
function killSurvivors(token, known) {
  const stopped = new Set()
  for (const proc of known) {
    try {
      proc.killTree('SIGKILL')
    } catch {
      // Already gone.
    }
  }
  for (let round = 0; round < 100; round++) {
    const fresh = markedProcesses(token).filter((pid) => !stopped.has(pid))
    if (fresh.length === 0) break
    for (const pid of fresh) {
      stopped.add(pid)
      signal(pid, 'SIGSTOP')
    }
  }
  for (const pid of stopped) signal(pid, 'SIGKILL')
  return [...stopped]
}

/** Resolves once none of `pids` is alive, or after `ms`. */
async function waitGone(pids, ms) {
  const deadline = Date.now() + ms
  let left = pids.filter(alive)
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10))
    left = left.filter(alive)
  }
  return left
}

// ---------- the host process ----------

/** `was killed by SIGKILL` / `exited with code 1`. */
function describeExit(exitCode, signalName) {
  if (signalName) return `was killed by ${signalName}`
  return `exited with code ${exitCode}`
}

/**
 * One child process at a time: starts it, carries requests and their
 * replies, pings it while requests are pending, and reports its death.
 */
class HostProcess {
  /** `{ start, answer }`: ms to become ready, and to answer a ping. */
  #timeouts
  #hooks
  #child = null
  /** 'starting' until the host said it is ready, then 'ready'. */
  #state = 'none'
  #startedAt = 0
  #pending = new Map()
  #next = 1
  #timer = null
  #pingSince = 0
  /** Why we killed the child, if we did: 'start' | 'hang' | 'close'. */
  #killedFor = null
  #stderr = ''
  /** Settles once the current host is gone and cleaned up after. */
  #gone = Promise.resolve()
  #markGone = () => {}

  /**
   * `hooks.init()` gives the init message for a fresh host; `hooks.message(m)`
   * receives replies' handle lists and event batches; `hooks.died(info)` is
   * awaited after an unexpected death and returns the error for the pending
   * calls.
   */
  constructor(timeouts, hooks) {
    this.#timeouts = timeouts
    this.#hooks = hooks
  }

  get pid() {
    return this.#child ? this.#child.pid : null
  }

  /** Starts a host unless one runs. */
  ensure() {
    if (this.#child !== null) return
    const token = crypto.randomBytes(16).toString('hex')
    const outer = process.env[MARKER]
    const env = { ...process.env, [MARKER]: outer ? `${outer}:${token}` : token }
    const child = fork(HOST_SCRIPT, [], {
      env,
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    })
    this.#child = child
    this.#gone = new Promise((resolve) => (this.#markGone = resolve))
    this.#state = 'starting'
    this.#startedAt = Date.now()
    this.#killedFor = null
    this.#stderr = ''
    this.#pingSince = 0
    const exit = { code: null, signal: null, exited: false, drained: false }
    const onOutput = (chunk) => {
      const text = chunk.toString()
      this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL)
      process.stderr.write(text)
    }
    child.stdout.on('data', onOutput)
    child.stderr.on('data', onOutput)
    child.stdout.unref?.()
    child.stderr.unref?.()
    child.on('message', (m) => this.#message(child, m))
    // Spawn failures (EAGAIN, ENOMEM) and sends on a closed channel; the exit
    // (or its absence, for a failed spawn) decides what happens.
    child.on('error', (err) => {
      if (child.pid === undefined && !exit.exited) {
        exit.exited = true
        exit.drained = true
        exit.code = null
        this.#stderr += `\n${err.message}`
        this.#died(child, token, exit)
      }
    })
    let drainTimer = null
    const settle = () => {
      if (!exit.exited || !exit.drained) return
      clearTimeout(drainTimer)
      this.#died(child, token, exit)
    }
    child.on('disconnect', () => {
      exit.drained = true
      settle()
    })
    child.on('exit', (code, sig) => {
      exit.exited = true
      exit.code = code
      exit.signal = sig
      // Replies already on the channel are read before 'disconnect'.
      drainTimer = setTimeout(() => {
        exit.drained = true
        settle()
      }, DRAIN_MS)
      drainTimer.unref()
      settle()
    })
    child.send(this.#hooks.init(), () => {})
    this.#refresh()
  }

  /** Sends `message` to the current host, if one runs (an answer to its question). */
  send(message) {
    try {
      this.#child?.send(message, () => {})
    } catch {
      // The host is gone; its question went with it.
    }
  }

  /** Sends a request and resolves with its reply's value. */
  request(method, args) {
    this.ensure()
    return new Promise((resolve, reject) => {
      const n = this.#next++
      try {
        this.#child.send({ t: 'req', n, m: method, a: args }, () => {})
      } catch (err) {
        reject(codedError('ERR_INVALID_ARG', `the arguments of ${method}() cannot be sent to the isolated host: ${err.message}`))
        return
      }
      this.#pending.set(n, { resolve, reject, method })
      this.#refresh()
    })
  }

  /**
   * Ends the host: it kills what it started and exits (SIGKILL after
   * `graceMs`). A later request starts a fresh one.
   */
  async close(graceMs = 3000) {
    const child = this.#child
    if (child === null) return
    const gone = this.#gone
    this.#killedFor = 'close'
    if (child.connected) child.disconnect()
    else child.kill('SIGKILL')
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
    await gone
    clearTimeout(timer)
  }

  #message(child, m) {
    if (child !== this.#child || m === null || typeof m !== 'object') return
    switch (m.t) {
      case 'ready':
        this.#state = 'ready'
        this.#refresh()
        break
      case 'pong':
        this.#pingSince = 0
        break
      case 'res': {
        if (m.h !== undefined) this.#hooks.message(m)
        const call = this.#pending.get(m.n)
        if (call === undefined) return
        this.#pending.delete(m.n)
        if (m.e !== undefined) call.reject(toError(m.e))
        else call.resolve(m.v)
        this.#refresh()
        break
      }
      default:
        this.#hooks.message(m)
    }
  }

  /** Keeps the process alive and the watchdog running only while calls are pending. */
  #refresh() {
    const child = this.#child
    if (child === null) return
    const busy = this.#pending.size > 0 || this.#state === 'starting'
    if (busy && this.#pending.size > 0) {
      child.ref()
      child.channel?.ref?.()
    } else {
      child.unref()
      child.channel?.unref?.()
    }
    if (busy && this.#timer === null) {
      const period = Math.max(10, Math.min(1000, Math.floor(Math.min(this.#timeouts.start, this.#timeouts.answer) / 4)))
      this.#timer = setInterval(() => this.#watch(), period)
      this.#timer.unref()
    } else if (!busy && this.#timer !== null) {
      clearInterval(this.#timer)
      this.#timer = null
      this.#pingSince = 0
    }
  }

  #watch() {
    const child = this.#child
    if (child === null || this.#killedFor !== null) return
    const now = Date.now()
    if (this.#state === 'starting') {
      if (now - this.#startedAt > this.#timeouts.start) this.#kill('start')
    } else if (this.#pingSince !== 0) {
      if (now - this.#pingSince > this.#timeouts.answer) this.#kill('hang')
    } else if (child.connected) {
      this.#pingSince = now
      try {
        child.send({ t: 'ping' }, () => {})
      } catch {
        // The channel is closing; the exit follows.
      }
    }
  }

  #kill(reason) {
    this.#killedFor = reason
    this.#child.kill('SIGKILL')
  }

  async #died(child, token, exit) {
    if (child !== this.#child) return
    this.#child = null
    this.#state = 'none'
    if (this.#timer !== null) {
      clearInterval(this.#timer)
      this.#timer = null
    }
    const pending = [...this.#pending.values()]
    this.#pending.clear()
    const info = {
      pid: child.pid ?? null,
      exitCode: exit.code,
      signal: exit.signal,
      reason: this.#killedFor,
      stderr: this.#stderr.trim(),
      token,
    }
    let error
    try {
      error = await this.#hooks.died(info)
    } catch (err) {
      error = err
    }
    for (const call of pending) call.reject(error)
    this.#markGone()
  }
}

/** An error from the host, as an Error with its code and fields. */
function toError(e) {
  if (e === null || typeof e !== 'object') return new Error(String(e))
  const { message, name, ...fields } = e
  const err = new Error(message)
  if (name && name !== 'Error') Object.defineProperty(err, 'name', { value: name, configurable: true, writable: true })
  Object.assign(err, fields)
  return err
}

/** A host-side error as plain data (Error's own fields are not cloned). */
function fromError(err) {
  if (!(err instanceof Error)) return { message: String(err) }
  const out = { message: err.message, name: err.name }
  for (const key of Object.keys(err)) out[key] = err[key]
  return out
}

// ---------- the registry facade ----------

const ID = /^([A-Za-z_-]*)(\d+)$/

/**
 * The isolated registry: an object with `ToolRegistry`'s methods (and
 * prototype) whose tools run in a host process. `deps` are the classes of
 * index.js (passed in, as index.js loads this module).
 */
function isolatedRegistry(options, deps) {
  const { ToolRegistry, Process, guarded, invalidArg, isToolSet, toolSetData, checkAllowed } = deps
  const { checkApproval, withoutPanel } = require('./terminal-tools.js')
  const {
    isolation,
    hostTimeoutMs = DEFAULT_HOST_TIMEOUT_MS,
    hostStartTimeoutMs = DEFAULT_HOST_TIMEOUT_MS,
    onEvent,
    askNetwork,
    ...registryOptions
  } = options
  for (const [key, value] of [['hostTimeoutMs', hostTimeoutMs], ['hostStartTimeoutMs', hostStartTimeoutMs]]) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 10) {
      throw invalidArg(`options.${key} must be a number of milliseconds of at least 10, got ${String(value)}`)
    }
  }
  if (onEvent !== undefined && typeof onEvent !== 'function') {
    throw invalidArg(`options.onEvent must be a function, got ${typeof onEvent}`)
  }
  if (askNetwork !== undefined && typeof askNetwork !== 'function') {
    throw invalidArg(`options.askNetwork must be a function, got ${typeof askNetwork}`)
  }
  // Validates the options as the host will, and answers names/schema/definitions.
  const local = new ToolRegistry(registryOptions)
  const emit = guarded('onEvent', onEvent) ?? (() => {})

  /** register/unregister calls, replayed to every fresh host. */
  const ops = []
  /** The host's handle list, as last sent. */
  let handles = []
  /** Live handles' process trees (for the cleanup after a crash), by id. */
  const trees = new Map()
  /** Handle ids lost in a crash → what to say about them. */
  const lost = new Map()
  /** Highest number seen per id prefix ('h' → 12), so a fresh host does not reuse ids. */
  const lastIds = {}

  const seeId = (id) => {
    const m = ID.exec(id)
    if (m !== null) lastIds[m[1]] = Math.max(lastIds[m[1]] ?? 0, Number(m[2]))
  }

  const track = (list) => {
    handles = list
    const live = new Set()
    for (const h of list) {
      seeId(h.id)
      if (h.state !== 'running' || h.pid === null) continue
      live.add(h.id)
      if (!trees.has(h.id)) {
        const proc = Process.fromPid(h.pid)
        if (proc !== null) trees.set(h.id, proc)
      }
    }
    for (const id of trees.keys()) if (!live.has(id)) trees.delete(id)
  }

  const host = new HostProcess({ start: hostStartTimeoutMs, answer: hostTimeoutMs }, {
    init: () => ({
      t: 'init',
      options: registryOptions,
      ops,
      firstIds: Object.fromEntries(Object.entries(lastIds).map(([k, v]) => [k, v + 1])),
      wantOutput: onEvent !== undefined,
      askNetwork: askNetwork !== undefined,
    }),
    message(m) {
      if (m.t === 'ask' && askNetwork !== undefined) {
        // The host's proxy asks about a host: the person answers here, the host's program waits.
        Promise.resolve()
          .then(() => askNetwork({ host: m.host, port: m.port }))
          .then(
            (allow) => host.send({ t: 'answer', n: m.n, allow: allow === true || (typeof allow === 'string' ? allow : false) }),
            () => host.send({ t: 'answer', n: m.n, allow: false }),
          )
        return
      }
      if (m.h !== undefined) track(m.h)
      if (m.t === 'ev') {
        for (const event of m.e) {
          if (event.id !== undefined) seeId(event.id)
          emit(event)
        }
      }
    },
    async died(info) {
      const was = handles
      handles = []
      const known = [...trees.values()]
      trees.clear()
      const how = info.reason === 'hang'
        ? `stopped answering for ${hostTimeoutMs} ms and was killed`
        : info.reason === 'start'
          ? `did not start within ${hostStartTimeoutMs} ms and was killed`
          : describeExit(info.exitCode, info.signal)
      const survivors = killSurvivors(info.token, known)
      await waitGone(survivors, 2000)
      if (info.reason === 'close') {
        return codedError('ERR_NOT_RUNNING', 'the isolated registry was disposed; its host has exited')
      }
      for (const h of was) lost.set(h.id, how)
      const running = was.filter((h) => h.state === 'running')
      if (info.reason === 'start' && was.length === 0) {
        return codedError('ERR_TIMEOUT', `the isolated host (pid ${info.pid}) did not start within ${hostStartTimeoutMs} ms; it was killed`)
      }
      const lostText = running.length === 0
        ? 'no handle was running'
        : `lost ${running.length} running handle${running.length === 1 ? '' : 's'}: ` +
          running.map((h) => `${h.id} (${h.tool} ${h.command})`).join(', ')
      const message = `the isolated host (pid ${info.pid}) ${how}; ${lostText}. The next call starts a fresh host`
      const fields = {
        exitCode: info.exitCode,
        signal: info.signal,
        lost: was.map((h) => h.id),
        stderr: info.stderr,
      }
      process.emitWarning(message, { type: 'PtypilotHostCrashed', code: 'PTYPILOT_HOST_CRASHED' })
      for (const id of fields.lost) emit({ type: 'hostCrashed', id, hostPid: info.pid, ...fields, message })
      return codedError('ERR_HOST_CRASHED', message, fields)
    },
  })

  /** An error for a call that names a handle lost in a crash, or null. */
  const lostIn = (args) => {
    if (lost.size === 0) return null
    for (let arg of args) {
      if (typeof arg === 'string' && arg.startsWith('{')) {
        try {
          arg = JSON.parse(arg)
        } catch {
          continue
        }
      }
      const id = typeof arg === 'string' ? arg : arg !== null && typeof arg === 'object' ? arg.id : undefined
      if (typeof id === 'string' && lost.has(id) && !local.names().includes(id)) {
        return codedError(
          'ERR_UNKNOWN_HANDLE',
          `handle ${id} was lost when the isolated host ${lost.get(id)}; it no longer exists, start it again if it is still needed`,
          { lostInCrash: true },
        )
      }
    }
    return null
  }

  /** Tool sets registered here (their `allow` functions stay in this process), by tool name. */
  const sets = new Map()

  /**
   * The error a call gets before it leaves this process: a handle lost in a
   * crash, a command the tool set's `allow` function refuses, or a call its
   * `approve` (or `ask`) denies — these functions stay in this process; the
   * sessions they ask about are known from the handle list.
   */
  const refused = async (method, args) => {
    const gone = lostIn(args)
    if (gone !== null) return gone
    if ((method === 'call' || method === 'respond') && typeof args[0] === 'string' && sets.has(args[0])) {
      const set = sets.get(args[0])
      const err = checkAllowed(set, args[0], args[1])
      if (err !== null) return err
      return checkApproval(set, args[0], args[1], (id) => handles.find((h) => h.id === id))
    }
    return null
  }

  const forward = (method) =>
    async function (...args) {
      const err = await refused(method, args)
      if (err !== null) {
        // A model's reply, as for any unknown handle or bad field; a program's rejection.
        if (method === 'respond') return { text: `Error: ${err.message}.`, isError: true }
        throw err
      }
      if (method !== 'respond') return host.request(method, args)
      try {
        return await host.request(method, args)
      } catch (err) {
        // The model hears that its handles are gone; the program hears it
        // through onEvent ('hostCrashed') and the process warning.
        if (err.code !== 'ERR_HOST_CRASHED') throw err
        return { text: `Error: ${err.message}.`, isError: true }
      }
    }

  /** Sends a register/unregister to a running host; a fresh one gets `ops` at its start. */
  const apply = (op) => {
    if (host.pid === null) return
    host.request('#op', [op]).catch((err) => {
      if (err.code !== 'ERR_HOST_CRASHED') {
        process.emitWarning(`the isolated host refused ${op[0]}(): ${err.message}`, { code: 'PTYPILOT_HOST' })
      }
    })
  }

  const own = {
    register(tool) {
      // The local registry holds specs only: a tool set's live panel runs in the host, beside its sessions.
      local.register(isToolSet !== undefined && isToolSet(tool) ? withoutPanel(tool) : tool)
      let op
      if (isToolSet !== undefined && isToolSet(tool)) {
        op = ['registerToolSet', toolSetData(tool)]
        for (const t of tool.tools) sets.set(t.name, tool)
      } else {
        // A copy: a fresh host after a crash gets the tool as registered,
        // whatever the caller did to the object since.
        let copy = tool
        try {
          copy = structuredClone(tool)
        } catch {
          // Not cloneable; the send will say so.
        }
        op = ['register', copy]
      }
      ops.push(op)
      apply(op)
    },
    unregister(name) {
      const removed = local.unregister(name)
      if (removed) {
        sets.delete(name)
        const at = ops.findIndex(([kind, tool]) => kind === 'register' && tool.name === name)
        // An interactive tool that comes and goes leaves nothing to replay.
        if (at !== -1) ops.splice(at, 1)
        else ops.push(['unregister', name])
        apply(['unregister', name])
      }
      return removed
    },
    names: () => local.names(),
    schema: (name) => local.schema(name),
    definitions: (format) => local.definitions(format),
    list: () => handles.map((h) => ({ ...h, args: [...h.args] })),
    async [Symbol.asyncDispose]() {
      try {
        if (host.pid !== null) await host.request('abortAll', [])
      } catch {
        // A dead host has nothing left to abort.
      } finally {
        await host.close()
      }
    },
  }

  const registry = Object.create(ToolRegistry.prototype)
  for (const key of Reflect.ownKeys(ToolRegistry.prototype)) {
    if (key === 'constructor') continue
    const desc = Object.getOwnPropertyDescriptor(ToolRegistry.prototype, key)
    if (typeof desc.value !== 'function') continue
    let value = own[key]
    if (value === undefined) {
      if (typeof key !== 'string') continue
      value = forward(key)
    }
    Object.defineProperty(registry, key, { value, writable: true, configurable: true })
  }
  host.ensure()
  return registry
}

module.exports = { isolatedRegistry, markedProcesses, killSurvivors, fromError, MARKER }
