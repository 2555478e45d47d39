'use strict'
// Checks of arguments that JS does better than the native side: whether
// something is an AbortSignal, reading a caller's property that may throw,
// and turning a caller's value into plain JSON with an error that names the
// field (NaN, Infinity, symbols, functions, undefined in arrays, cycles,
// nesting too deep) instead of a serializer's message that names nothing.

const { codedError, describe, invalidArg, thrownText } = require('./errors.js')

/** Deepest nesting accepted in JSON values passed to the registry. */
const MAX_DEPTH = 100

/**
 * Reads `object[key]`; a getter (or proxy trap) that throws becomes `code`
 * (default ERR_INVALID_ARG) naming `what.key`.
 */
function read(object, key, what, code = 'ERR_INVALID_ARG') {
  try {
    return object[key]
  } catch (err) {
    throw codedError(code, `${what}.${String(key)} could not be read: it threw ${thrownText(err)}`)
  }
}

/** `value instanceof Class`, false when a proxy's trap throws. */
function isInstance(value, Class) {
  try {
    return value instanceof Class
  } catch {
    return false
  }
}

/**
 * A plain copy of the own enumerable properties of an options object (what
 * `{ ...options }` copies), read so that a getter or proxy trap that throws
 * becomes ERR_INVALID_ARG naming the option; `undefined` and `null` pass.
 */
function own(options, what) {
  if (options === undefined || options === null || typeof options !== 'object') return options
  let keys
  try {
    keys = Object.keys(options)
  } catch (err) {
    throw invalidArg(`${what} could not be read: it threw ${thrownText(err)}`)
  }
  const copy = {}
  for (const key of keys) copy[key] = read(options, key, what)
  return copy
}

/**
 * Throws ERR_INVALID_ARG unless `signal` is undefined, null, an AbortSignal,
 * or an object like one: a boolean `aborted` and both `addEventListener` and
 * `removeEventListener` (the listener is removed when the call ends).
 */
function checkSignal(signal, what) {
  if (signal === undefined || signal === null) return
  if (isInstance(signal, AbortSignal)) return
  const bad = () => invalidArg(`${what}.signal must be an AbortSignal, got ${describe(signal)}`)
  if (typeof signal !== 'object') throw bad()
  for (const [key, type] of [
    ['aborted', 'boolean'],
    ['addEventListener', 'function'],
    ['removeEventListener', 'function'],
  ]) {
    if (typeof read(signal, key, `${what}.signal`) !== type) throw bad()
  }
}

function pathOf(base, key) {
  const text = typeof key === 'number' ? `${base}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`
  // Deep paths are shortened in the middle.
  return text.length > 160 ? `${text.slice(0, 60)}…${text.slice(-90)}` : text
}

/**
 * A plain JSON copy of `value` (objects, arrays, strings, finite numbers,
 * booleans, null; `undefined` object properties are left out, as JSON does).
 * Anything else throws `code` naming the field below `root`: NaN and
 * ±Infinity, symbols, functions, bigints, `undefined` or holes in arrays,
 * objects that are not plain (Map, Date, class instances), cycles, nesting
 * deeper than MAX_DEPTH, and getters or proxies that throw.
 */
function jsonValue(value, root, code) {
  const ancestors = []
  const fail = (path, message) => codedError(code, `${path} ${message}`)
  const copy = (v, path) => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v
      case 'number':
        if (!Number.isFinite(v)) throw fail(path, `must be a finite number, got ${String(v)}`)
        return v
      case 'undefined':
        throw fail(path, 'must not be undefined (arrays hold JSON values; leave a property out instead)')
      case 'object':
        break
      default:
        throw fail(path, `must be JSON data (an object, array, string, finite number, boolean or null), got ${describe(v)}`)
    }
    if (v === null) return null
    if (ancestors.includes(v)) throw fail(path, 'refers back to an object that contains it (a cycle)')
    if (ancestors.length >= MAX_DEPTH) throw fail(path, `is nested more than ${MAX_DEPTH} levels deep`)
    let isArray
    let tag
    try {
      isArray = Array.isArray(v)
      tag = Object.prototype.toString.call(v)
    } catch (err) {
      throw fail(path, `could not be read: it threw ${thrownText(err)}`)
    }
    if (!isArray && tag !== '[object Object]') {
      throw fail(path, `must be a plain object, an array or a JSON value, got ${tag.slice(8, -1)}`)
    }
    ancestors.push(v)
    try {
      if (isArray) {
        const length = read(v, 'length', path, code)
        const out = new Array(length)
        for (let i = 0; i < length; i++) out[i] = copy(read(v, i, path, code), pathOf(path, i))
        return out
      }
      let keys
      try {
        keys = Object.keys(v)
      } catch (err) {
        throw fail(path, `could not be read: it threw ${thrownText(err)}`)
      }
      const out = {}
      for (const key of keys) {
        const item = read(v, key, path, code)
        if (item === undefined) continue
        out[key] = copy(item, pathOf(path, key))
      }
      return out
    } finally {
      ancestors.pop()
    }
  }
  return copy(value, root)
}

/**
 * Reads the options of `screen()`: true when `{ attributes: true }` asks for
 * the styled runs of each row; ERR_INVALID_ARG for anything else.
 */
function screenAttributes(options) {
  if (options === undefined || options === null) return false
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw invalidArg(`screen() options must be an object such as { attributes: true }, got ${describe(options)}`)
  }
  const { attributes = false, ...rest } = own(options, 'options')
  const extra = Object.keys(rest)
  if (extra.length > 0) throw invalidArg(`unknown option options.${extra[0]}; known options: attributes`)
  if (typeof attributes !== 'boolean') throw invalidArg(`options.attributes must be a boolean, got ${describe(attributes)}`)
  return attributes
}

module.exports = { MAX_DEPTH, read, own, isInstance, checkSignal, jsonValue, screenAttributes }
