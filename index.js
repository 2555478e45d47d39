'use strict'
// The public JS surface of ptypilot. The generated binding (native.js) is
// internal; this layer adds what is better done in JS (AbortSignal wiring,
// RegExp waits, promises for events, Symbol.asyncDispose) and stays thin.

const native = require('./native.js')

/** Bridges an AbortSignal to a native CancelToken; returns [token, detach]. */
function cancelTokenFor(signal, what) {
  if (signal === undefined || signal === null) return [undefined, () => {}]
  if (typeof signal !== 'object' || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function') {
    throw invalidArg(`${what}.signal must be an AbortSignal, got ${describe(signal)}`)
  }
  const token = new native.CancelToken()
  if (signal.aborted) {
    token.cancel()
    return [token, () => {}]
  }
  const onAbort = () => token.cancel()
  signal.addEventListener('abort', onAbort, { once: true })
  return [token, () => signal.removeEventListener('abort', onAbort)]
}

/** An Error with a stable code, as the native side makes them. */
function codedError(code, message) {
  const err = new Error(message)
  err.code = code
  return err
}

function invalidArg(message) {
  return codedError('ERR_INVALID_ARG', message)
}

function describe(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`
}

module.exports = {}
module.exports._internal = { native, cancelTokenFor, codedError, invalidArg, describe }
