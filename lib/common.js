'use strict'
// Helpers the wrappers share (PtySession, Shell, ToolRegistry, Process,
// TaskRunner): AbortSignal wiring (to a native CancelToken or a callback),
// listener guarding, the option and argument checks every entry point makes,
// the environment a program starts from, a wait that holds the event loop,
// and the internal symbols by which other modules reach into a PtySession.

const { isMainThread } = require('node:worker_threads')
const { invalidArg, describe } = require('./errors.js')
const { checkSignal } = require('./args.js')
const native = require('./addon.js')

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

function rejectUnknown(rest, what, known) {
  const extra = Object.keys(rest)
  if (extra.length > 0) {
    throw invalidArg(`unknown option ${what}.${extra[0]}; known options: ${known.join(', ')}`)
  }
}

function checkString(value, what) {
  if (typeof value !== 'string') throw invalidArg(`${what} must be a string, got ${describe(value)}`)
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

/** `process.env` is per-thread in workers; the main thread's is the real environ. */
function baseEnv() {
  return isMainThread ? undefined : process.env
}

/** A promise with its resolve function: `{ promise, resolve }`. */
function deferred() {
  let resolve
  const promise = new Promise((r) => (resolve = r))
  return { promise, resolve }
}

/**
 * `promise`, with the event loop kept alive until it settles: a session's
 * exit does not hold the loop (sessions do not keep the process alive), so
 * a caller awaiting one (pty_stop, abortAll, wait) must.
 */
async function held(promise) {
  const timer = setInterval(() => {}, 2 ** 30)
  try {
    return await promise
  } finally {
    clearInterval(timer)
  }
}

/** Internal: PtySession's "type input with named keys" (lib/terminal-tools.js uses it). */
const kWriteInput = Symbol.for('ptypilot.writeInput')
/** Internal: PtySession's spawn of a session that does not keep the event loop alive. */
const kSpawnUnref = Symbol.for('ptypilot.spawnUnref')

module.exports = {
  cancelTokenFor,
  onAbort,
  reportListenerError,
  guarded,
  checkFunction,
  checkOptionsObject,
  MAX_MILLIS,
  checkMillis,
  rejectUnknown,
  checkString,
  withSignal,
  baseEnv,
  deferred,
  held,
  kWriteInput,
  kSpawnUnref,
}
