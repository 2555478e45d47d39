'use strict'
// Key parsing for programs that read keys (an Electron front end, a TUI
// written in Node): the bytes a terminal sent, to the key they stand for.
// The parsers never throw; data that is not one key gives null or false.
// The work is done natively (src/core/keys); this layer only checks types.

const { wrapNative } = require('./errors.js')

const native = wrapNative(require('./binding.js'))

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

module.exports = { parseKey, matchesKey, parseKittySequence, matchesKittySequence, matchesLegacySequence }
