'use strict'
// Errors: the one place that decides what a caller sees when something
// fails. Every error the package throws or rejects with is an Error with a
// stable `code` from CODES (documented in lib/errors.d.ts as PtypilotErrorCode)
// and a message that names the offending value or field.
//
// The native side makes coded errors itself (src/error.rs, src/core/error.rs).
// What it cannot code — an argument Node-API could not convert before any of
// our code ran (its `code` is a napi status such as 'InvalidArg'), or a panic
// that `#[napi(catch_unwind)]` turned into an error ('GenericFailure') — is
// mapped here: `wrapNative` wraps every export of the binding once, so this
// holds for every call, whichever module makes it.

/** Every code an error from this package can carry. */
const CODES = Object.freeze([
  'ERR_INVALID_ARG',
  'ERR_SPAWN',
  'ERR_NOT_RUNNING',
  'ERR_ALREADY_RUNNING',
  'ERR_TIMEOUT',
  'ERR_ABORTED',
  'ERR_UNKNOWN_TOOL',
  'ERR_UNKNOWN_HANDLE',
  'ERR_INVALID_INPUT',
  'ERR_LIMIT',
  'ERR_MOUSE_OFF',
  'ERR_HOST_CRASHED',
  'ERR_SANDBOX_UNAVAILABLE',
  'ERR_UNSUPPORTED',
  'ERR_INTERNAL',
  'ERR_NO_BINDING', // thrown by lib/binding.js when the addon cannot be loaded
])
const KNOWN = new Set(CODES)

/** An Error with a stable code, as the native side makes them. */
function codedError(code, message) {
  const err = new Error(message)
  err.code = code
  return err
}

function invalidArg(message) {
  return codedError('ERR_INVALID_ARG', message)
}

/** How a value reads in an error message: `string "80"`, `number NaN`, `an array`. */
function describe(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`
  if (typeof value === 'symbol') return 'a symbol'
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'bigint') return `a bigint`
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`
}

/** The text of something a caller's code threw, for a message. */
function thrownText(err) {
  try {
    return err instanceof Error ? `${err.name}: ${err.message}` : String(err)
  } catch {
    return describe(err)
  }
}

/**
 * `err` as the caller must see it: coded errors pass; Node-API's conversion
 * failures become ERR_INVALID_ARG, anything else from the binding (a contained
 * panic among them) ERR_INTERNAL, with the original as `cause`.
 */
function mapError(err) {
  if (err === null || typeof err !== 'object' || KNOWN.has(err.code)) return err
  if (typeof err.code !== 'string') return err
  const status = err.code
  const mapped =
    status === 'InvalidArg' || status.endsWith('Expected')
      ? codedError('ERR_INVALID_ARG', `invalid argument: ${err.message}`)
      : codedError('ERR_INTERNAL', `internal error in ptypilot (${status}): ${err.message}`)
  mapped.cause = err
  return mapped
}

function wrapFunction(fn) {
  return function ptypilotNative(...args) {
    let result
    try {
      result = fn.apply(this, args)
    } catch (err) {
      throw mapError(err)
    }
    if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
      return result.then(undefined, (err) => {
        throw mapError(err)
      })
    }
    return result
  }
}

function wrapMembers(target) {
  for (const key of Object.getOwnPropertyNames(target)) {
    if (key === 'constructor' || key === 'prototype' || key === 'length' || key === 'name') continue
    const desc = Object.getOwnPropertyDescriptor(target, key)
    if (!desc || !desc.configurable) continue
    if (typeof desc.value === 'function') {
      Object.defineProperty(target, key, { ...desc, value: wrapFunction(desc.value) })
    } else if (desc.get || desc.set) {
      Object.defineProperty(target, key, {
        ...desc,
        get: desc.get && wrapFunction(desc.get),
        set: desc.set && wrapFunction(desc.set),
      })
    }
  }
}

const wrapped = new WeakSet()

/** Wraps every function, class (constructor, statics, methods, accessors) of `binding`, in place, once. */
function wrapNative(binding) {
  if (wrapped.has(binding)) return binding
  wrapped.add(binding)
  for (const key of Object.keys(binding)) {
    const value = binding[key]
    if (typeof value !== 'function') continue
    if (value.prototype && Object.getOwnPropertyNames(value.prototype).length > 1) {
      wrapMembers(value.prototype)
      wrapMembers(value)
      binding[key] = new Proxy(value, {
        construct(target, args, newTarget) {
          try {
            return Reflect.construct(target, args, newTarget)
          } catch (err) {
            throw mapError(err)
          }
        },
      })
    } else {
      binding[key] = wrapFunction(value)
    }
  }
  return binding
}

module.exports = { CODES, codedError, invalidArg, describe, thrownText, mapError, wrapNative }
