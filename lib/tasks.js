'use strict'
// The task runner: runs commands as tasks, each in its own pseudo-terminal
// (a PtySession), and reports them as events a UI or an agent can relay —
// `task_started`, `task_log` (every chunk of output, in order) and
// `task_finished` (last) — with `wait(taskId)` resolving at completion.
// Nothing polls: the events come from the session's output callback and its
// exit promise, which resolves only after every byte of output was delivered.

const { codedError, describe } = require('./errors.js')
const { checkSignal, own } = require('./args.js')
const { checkOptionsObject, deferred, rejectUnknown } = require('./common.js')
const { PtySession } = require('./pty-session.js')

function checkMillis(value, what) {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1e12)) {
    throw codedError('ERR_INVALID_ARG', `${what} must be a non-negative number of milliseconds, got ${describe(value)} (at most 1e12)`)
  }
}

/** How a task's exit reads as a task state. */
function stateOf(exit) {
  if (exit.timedOut) return 'timeout'
  if (exit.cancelled) return 'cancelled'
  return exit.exitCode === 0 ? 'success' : 'error'
}

/** Finished tasks kept for `wait`, `get` and `session` by default. */
const DEFAULT_KEEP_FINISHED = 100
const RUNNER_KEYS = ['defaults', 'onEvent', 'keepFinished']

/**
 * Runs tasks in pseudo-terminals and emits their events. See lib/tasks.d.ts for
 * the contract.
 */
class TaskRunner {
  /** taskId -> task record, in start order (finished ones are pruned oldest first). */
  #tasks = new Map()
  #listeners = new Set()
  #next = 1
  #defaults
  #keepFinished

  constructor(options) {
    checkOptionsObject(options, 'options')
    const { defaults, onEvent, keepFinished = DEFAULT_KEEP_FINISHED, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', RUNNER_KEYS)
    checkOptionsObject(defaults, 'options.defaults')
    if (onEvent !== undefined && typeof onEvent !== 'function') {
      throw codedError('ERR_INVALID_ARG', `options.onEvent must be a function, got ${describe(onEvent)}`)
    }
    if (typeof keepFinished !== 'number' || !Number.isInteger(keepFinished) || keepFinished < 0) {
      throw codedError('ERR_INVALID_ARG', `options.keepFinished must be a non-negative integer, got ${describe(keepFinished)}`)
    }
    this.#defaults = { ...(own(defaults, 'options.defaults') || {}) }
    this.#keepFinished = keepFinished
    if (onEvent !== undefined) this.#listeners.add(onEvent)
  }

  /** Adds an event listener; returns a function that removes it. */
  onEvent(listener) {
    if (typeof listener !== 'function') {
      throw codedError('ERR_INVALID_ARG', `onEvent() needs a listener function, got ${describe(listener)}`)
    }
    // A wrapper, so that the same function added twice is two listeners.
    const entry = (event) => listener(event)
    this.#listeners.add(entry)
    return () => {
      this.#listeners.delete(entry)
    }
  }

  start(options) {
    checkOptionsObject(options, 'options')
    if (!options) throw codedError('ERR_INVALID_ARG', 'start() needs options with a `command`')
    const { name, raw = false, ...ptyOptions } = { ...this.#defaults, ...own(options, 'options') }
    if (name !== undefined && typeof name !== 'string') {
      throw codedError('ERR_INVALID_ARG', `options.name must be a string, got ${describe(name)}`)
    }
    if (typeof raw !== 'boolean') throw codedError('ERR_INVALID_ARG', `options.raw must be a boolean, got ${describe(raw)}`)
    checkSignal(ptyOptions.signal, 'options')
    const taskId = `task-${this.#next}`
    const task = {
      taskId,
      name: name ?? displayName(ptyOptions),
      state: 'running',
      pid: null,
      startedAt: Date.now(),
      finishedAt: null,
      exitCode: null,
      signal: null,
      durationMs: null,
      session: null,
      t0: performance.now(),
      done: deferred(),
    }
    // Spawn errors (ERR_SPAWN, ERR_INVALID_ARG) are thrown here: a task that
    // never started has no events.
    const onLog = (chunk) => this.#emit({ type: 'task_log', taskId, chunk })
    const session = PtySession.spawn(ptyOptions, onLog, { raw })
    this.#next++
    task.session = session
    task.pid = session.pid
    this.#tasks.set(taskId, task)
    // Output comes through a later callback, so this is the task's first event.
    this.#emit({ type: 'task_started', taskId, name: task.name, startedAt: task.startedAt })
    session.exited.then((exit) => this.#finish(task, exit))
    return info(task)
  }

  #finish(task, exit) {
    task.state = stateOf(exit)
    task.exitCode = exit.exitCode
    task.signal = exit.signal
    task.finishedAt = Date.now()
    task.durationMs = Math.round(performance.now() - task.t0)
    // The exit resolves after the last output callback: this comes last.
    this.#emit({
      type: 'task_finished',
      taskId: task.taskId,
      name: task.name,
      state: task.state,
      exitCode: task.exitCode,
      signal: task.signal,
      durationMs: task.durationMs,
    })
    task.done.resolve(info(task))
    this.#prune()
  }

  /** Forgets the oldest finished tasks beyond `keepFinished`. */
  #prune() {
    let finished = 0
    for (const task of this.#tasks.values()) if (task.state !== 'running') finished++
    for (const [id, task] of this.#tasks) {
      if (finished <= this.#keepFinished) break
      if (task.state !== 'running') {
        this.#tasks.delete(id)
        finished--
      }
    }
  }

  #emit(event) {
    for (const listener of this.#listeners) {
      try {
        listener(event)
      } catch (err) {
        process.emitWarning(`a task event listener threw: ${err && err.stack ? err.stack : String(err)}`, {
          type: 'PtypilotListenerError',
          code: 'PTYPILOT_LISTENER_ERROR',
        })
      }
    }
  }

  #task(taskId, what) {
    if (typeof taskId !== 'string') {
      throw codedError('ERR_INVALID_ARG', `${what}() takes a task id string, got ${describe(taskId)}`)
    }
    const task = this.#tasks.get(taskId)
    if (task === undefined) {
      throw codedError(
        'ERR_UNKNOWN_HANDLE',
        `no task ${JSON.stringify(taskId)}: it never existed or finished long enough ago to be forgotten (keepFinished: ${this.#keepFinished})`,
      )
    }
    return task
  }

  get(taskId) {
    return info(this.#task(taskId, 'get'))
  }

  list() {
    return [...this.#tasks.values()].map(info)
  }

  session(taskId) {
    return this.#task(taskId, 'session').session
  }

  async wait(taskId, options) {
    const task = this.#task(taskId, 'wait')
    checkOptionsObject(options, 'options')
    const { timeoutMs, signal, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', ['timeoutMs', 'signal'])
    checkMillis(timeoutMs, 'options.timeoutMs')
    checkSignal(signal, 'options')
    if (task.state !== 'running' || (timeoutMs === undefined && signal === undefined)) return task.done.promise
    let timer
    let detach = () => {}
    const stop = new Promise((_, reject) => {
      if (timeoutMs !== undefined) {
        timer = setTimeout(
          () => reject(codedError('ERR_TIMEOUT', `task ${taskId} (${task.name}) still running after ${timeoutMs} ms`)),
          timeoutMs,
        )
      }
      if (signal !== undefined) {
        const onAbort = () => reject(codedError('ERR_ABORTED', `waiting for task ${taskId} was aborted`))
        if (signal.aborted) onAbort()
        else {
          signal.addEventListener('abort', onAbort, { once: true })
          detach = () => signal.removeEventListener('abort', onAbort)
        }
      }
    })
    try {
      return await Promise.race([task.done.promise, stop])
    } finally {
      clearTimeout(timer)
      detach()
    }
  }

  async cancel(taskId, options) {
    const task = this.#task(taskId, 'cancel')
    checkOptionsObject(options, 'options')
    const { graceMs, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', ['graceMs'])
    checkMillis(graceMs, 'options.graceMs')
    if (task.state === 'running') await task.session.terminate(graceMs === undefined ? undefined : { graceMs })
    return task.done.promise
  }

  async cancelAll(options) {
    const running = [...this.#tasks.values()].filter((t) => t.state === 'running')
    await Promise.all(running.map((t) => this.cancel(t.taskId, options)))
  }

  [Symbol.asyncDispose]() {
    return this.cancelAll()
  }
}

/** The public view of a task record. */
function info(task) {
  return {
    taskId: task.taskId,
    name: task.name,
    state: task.state,
    pid: task.pid,
    startedAt: task.startedAt,
    finishedAt: task.finishedAt,
    exitCode: task.exitCode,
    signal: task.signal,
    durationMs: task.durationMs,
  }
}

/** A task's default name: its command line. */
function displayName(options) {
  try {
    const args = Array.isArray(options.args) ? options.args : []
    return [options.command, ...args].join(' ')
  } catch {
    // Options the session will refuse (with a coded error) anyway.
    return 'task'
  }
}

module.exports = { TaskRunner }
