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
  for (let i = 0; i < keys.length; i++) {
    if (typeof keys[i] !== 'string') {
      throw invalidArg(`keys[${i}] must be a key name string, got ${describe(keys[i])}`)
    }
  }
  if (modes !== undefined && modes !== null) {
    if (typeof modes !== 'object' || Array.isArray(modes)) {
      throw invalidArg(`modes must be an object, got ${describe(modes)}`)
    }
    for (const key of Object.keys(modes)) {
      if (key !== 'applicationCursor' && key !== 'applicationKeypad') {
        throw invalidArg(`unknown key "${key}" in modes (known: applicationCursor, applicationKeypad)`)
      }
      if (modes[key] !== undefined && typeof modes[key] !== 'boolean') {
        throw invalidArg(`modes.${key} must be a boolean, got ${describe(modes[key])}`)
      }
    }
  }
  return native.encodeKeys(keys, modes ?? undefined)
}

module.exports.encodeKeys = encodeKeys
