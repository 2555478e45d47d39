'use strict'
// Keys both ways. encodeKeys: key names to the bytes a terminal sends for
// them (what PtySession.sendKeys() writes). Key parsing, for programs that
// read keys (an Electron front end, a TUI written in Node): the bytes a
// terminal sent, to the key they stand for; the parsers never throw, data
// that is not one key gives null or false. The work is done natively
// (src/core/keys); this layer only checks types.

const { invalidArg, describe } = require('./errors.js')
const { own, read } = require('./args.js')
const native = require('./addon.js')

/**
 * The string a terminal sends for the named keys, concatenated:
 * `encodeKeys(['ctrl+c'])` is `'\x03'`, `encodeKeys(['up'], { applicationCursor: true })`
 * is `'\x1bOA'`. Throws `ERR_INVALID_ARG` for a bad argument or an unknown key.
 */
function encodeKeys(keys, modes) {
  if (!Array.isArray(keys)) {
    throw invalidArg(`keys must be an array of key names, got ${describe(keys)}`)
  }
  const names = []
  const length = read(keys, 'length', 'keys')
  for (let i = 0; i < length; i++) {
    const name = read(keys, i, 'keys')
    if (typeof name !== 'string') {
      throw invalidArg(`keys[${i}] must be a key name string, got ${describe(name)}`)
    }
    names.push(name)
  }
  keys = names
  if (modes !== undefined && modes !== null) {
    if (typeof modes !== 'object' || Array.isArray(modes)) {
      throw invalidArg(`modes must be an object, got ${describe(modes)}`)
    }
    modes = own(modes, 'modes')
    for (const key of Object.keys(modes)) {
      if (key === 'kittyFlags') {
        const flags = modes[key]
        if (flags !== undefined && !(Number.isInteger(flags) && flags >= 0 && flags <= 31)) {
          throw invalidArg(`modes.kittyFlags must be an integer from 0 to 31, got ${describe(flags)}`)
        }
        continue
      }
      if (key !== 'applicationCursor' && key !== 'applicationKeypad') {
        throw invalidArg(`unknown key "${key}" in modes (known: applicationCursor, applicationKeypad, kittyFlags)`)
      }
      if (modes[key] !== undefined && typeof modes[key] !== 'boolean') {
        throw invalidArg(`modes.${key} must be a boolean, got ${describe(modes[key])}`)
      }
    }
  }
  return native.encodeKeys(keys, modes ?? undefined)
}

/** The bytes of key data as the native side takes them, or null. */
function keyData(data) {
  if (typeof data === 'string') return data
  try {
    if (Buffer.isBuffer(data)) return data
    if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  } catch {
    // A proxy whose traps throw is not key data either.
  }
  return null
}

function isCount(value) {
  return Number.isInteger(value) && value >= 0 && value <= 0xffffffff
}

/** The canonical id of the one key `data` stands for, or null. */
function parseKey(data, kittyProtocolActive) {
  const bytes = keyData(data)
  if (bytes === null) return null
  return native.parseKey(bytes, kittyProtocolActive === true)
}

/** Whether `data` is the key `keyId` names. */
function matchesKey(data, keyId, kittyProtocolActive) {
  const bytes = keyData(data)
  if (bytes === null || typeof keyId !== 'string') return false
  return native.matchesKey(bytes, keyId, kittyProtocolActive === true)
}

/** One kitty keyboard protocol key report, or null. */
function parseKittySequence(data) {
  const bytes = keyData(data)
  if (bytes === null) return null
  return native.parseKittySequence(bytes)
}

/** Whether `data` is a kitty report of `codepoint` with the `modifier` bits. */
function matchesKittySequence(data, codepoint, modifier) {
  const bytes = keyData(data)
  if (bytes === null || !isCount(codepoint) || !isCount(modifier)) return false
  return native.matchesKittySequence(bytes, codepoint, modifier)
}

/** Whether `data` is exactly one legacy escape sequence of `keyName`. */
function matchesLegacySequence(data, keyName) {
  const bytes = keyData(data)
  if (bytes === null || typeof keyName !== 'string') return false
  return native.matchesLegacySequence(bytes, keyName)
}

/**
 * One mouse report (default, UTF-8, SGR or urxvt encoding) read back:
 * `{ action, button, col, row, shift, alt, ctrl, encoding }`, or null.
 */
function parseMouseSequence(data) {
  const bytes = keyData(data)
  if (bytes === null) return null
  return native.parseMouseSequence(bytes)
}

module.exports = { encodeKeys, parseKey, parseMouseSequence, matchesKey, parseKittySequence, matchesKittySequence, matchesLegacySequence }
