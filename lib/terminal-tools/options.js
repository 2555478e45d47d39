'use strict'
// The options of `terminalTools(options)`, checked once when the set is made
// (ERR_INVALID_ARG naming the option), with the defaults (DEFAULTS) filled
// in: paths resolved, limits in range, `allow` / `approve` / `ask` functions,
// `web` (the live panel) as `{ port, token }`, `env` as own strings.

const path = require('node:path')
const { describe, invalidArg } = require('../errors.js')
const { own } = require('../args.js')
const { DEFAULTS, MIN_MAX_CHARS } = require('./specs.js')

const OPTION_KEYS = ['cwd', 'maxSessions', 'spillDir', 'recordDir', 'allow', 'approve', 'ask', 'web', 'env', 'cols', 'rows', 'sandbox', ...Object.keys(DEFAULTS)]
const SANDBOX_MODES = ['off', 'read-only', 'workspace-write']

function checkInteger(value, what, min, max) {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidArg(`${what} must be an integer from ${min} to ${max}, got ${describe(value)}`)
  }
}

/** A copy of `list` when it holds only strings and can be read (a Proxy may throw), else null. */
function stringList(list) {
  try {
    const copy = [...list]
    return copy.every((v) => typeof v === 'string') ? copy : null
  } catch {
    return null
  }
}

/** The options, checked, with defaults filled in. */
function normalizeOptions(options) {
  if (options === undefined || options === null) options = {}
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw invalidArg(`terminalTools() options must be an object, got ${describe(options)}`)
  }
  // Copied first: a getter or proxy that throws is ERR_INVALID_ARG naming it.
  options = own(options, 'options')
  const out = { ...DEFAULTS }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) {
      throw invalidArg(`unknown option "${key}" of terminalTools() (known: ${[...new Set(OPTION_KEYS)].join(', ')})`)
    }
    const value = options[key]
    if (value === undefined) continue
    switch (key) {
      case 'cwd':
      case 'spillDir':
      case 'recordDir':
        if (typeof value !== 'string' || value === '') throw invalidArg(`options.${key} must be a path, got ${describe(value)}`)
        out[key] = path.resolve(value)
        break
      case 'allow':
        if (typeof value === 'function') out.allow = value
        else if (Array.isArray(value) && stringList(value) !== null) out.allow = stringList(value)
        else throw invalidArg(`options.allow must be a function (command) => boolean or an array of command names, got ${describe(value)}`)
        break
      case 'approve':
      case 'ask':
        if (typeof value !== 'function') {
          throw invalidArg(`options.${key} must be a function (request) => 'allow' | 'deny'${key === 'approve' ? " | 'ask'" : ''}, got ${describe(value)}`)
        }
        out[key] = value
        break
      case 'web':
        if (value === false) break
        out.web = webOption(value)
        break
      case 'env':
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          throw invalidArg(`options.env must be an object of strings, got ${describe(value)}`)
        }
        out.env = own(value, 'options.env')
        for (const [k, v] of Object.entries(out.env)) {
          if (v !== undefined && typeof v !== 'string') throw invalidArg(`options.env.${k} must be a string or undefined, got ${describe(v)}`)
        }
        break
      case 'sandbox': {
        // The rest of an object form is checked where each program starts (ERR_INVALID_ARG).
        const sandbox = value !== null && typeof value === 'object' && !Array.isArray(value) ? own(value, 'options.sandbox') : value
        const mode = typeof sandbox === 'string' ? sandbox : sandbox !== value ? sandbox.mode : undefined
        if (!SANDBOX_MODES.includes(mode)) {
          throw invalidArg(`options.sandbox must be 'off', 'read-only', 'workspace-write' or { mode, ... }, got ${describe(value)}`)
        }
        if (mode !== 'off') out.sandbox = sandbox
        break
      }
      case 'maxSessions':
        checkInteger(value, `options.${key}`, 1, 10000)
        out[key] = value
        break
      case 'maxOutputLines':
        checkInteger(value, `options.${key}`, 10, 1e7)
        out[key] = value
        break
      case 'maxOutputBytes':
        checkInteger(value, `options.${key}`, 1024, 1e9)
        out[key] = value
        break
      case 'maxOutputChars':
        checkInteger(value, `options.${key}`, MIN_MAX_CHARS, 1e7)
        out[key] = value
        break
      case 'cols':
      case 'rows':
        checkInteger(value, `options.${key}`, 2, 1000)
        out[key] = value
        break
      default:
        // Milliseconds.
        checkInteger(value, `options.${key}`, key === 'stopGraceMs' || key === 'maxWaitMs' ? 0 : 1, 2 ** 31 - 1)
        out[key] = value
    }
  }
  if (out.defaultTimeoutMs > out.maxTimeoutMs) {
    throw invalidArg(`options.defaultTimeoutMs (${out.defaultTimeoutMs}) must not exceed options.maxTimeoutMs (${out.maxTimeoutMs})`)
  }
  return out
}

/**
 * The `web` option checked: `true` or `{ port?, token? }` → `{ port, token }`
 * (port 0: any free one; token null: a fresh random one per panel).
 */
function webOption(value) {
  if (value === true) return { port: 0, token: null }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArg(`options.web must be true or { port?, token? }, got ${describe(value)}`)
  }
  value = own(value, 'options.web')
  for (const key of Object.keys(value)) {
    if (key !== 'port' && key !== 'token') throw invalidArg(`unknown option "web.${key}" of terminalTools() (known: port, token)`)
  }
  const port = value.port ?? 0
  checkInteger(port, 'options.web.port', 0, 65535)
  const token = value.token ?? null
  if (token !== null && (typeof token !== 'string' || !/^[A-Za-z0-9_-]{16,128}$/.test(token))) {
    throw invalidArg(`options.web.token must be 16 to 128 letters, digits, '-' or '_', got ${describe(token)}`)
  }
  return { port, token }
}

module.exports = { normalizeOptions }
