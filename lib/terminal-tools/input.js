'use strict'
// A call's input checked against its tool's fields: JSON text or an object,
// copied once (getters and proxies read once, what is not JSON refused),
// unknown fields, wrong types and out-of-range integers refused as
// ERR_INVALID_INPUT naming the field; `null` counts as not given (OpenAI
// strict mode sends it for unused fields).

const { codedError, describe } = require('../errors.js')
const { jsonValue } = require('../args.js')

function invalidInput(message) {
  return codedError('ERR_INVALID_INPUT', message)
}

/**
 * The call's fields, checked against the tool's spec; `null` counts as not
 * given (OpenAI strict mode sends it for unused fields).
 */
function readInput(tool, input) {
  if (typeof input === 'string') {
    try {
      input = input.trim() === '' ? {} : JSON.parse(input)
    } catch (err) {
      throw invalidInput(`input is a string but not JSON: ${err.message}`)
    }
  }
  if (input === undefined || input === null) input = {}
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw invalidInput(`input of ${tool.name} must be an object, got ${describe(input)}`)
  }
  // A plain copy: getters and proxies are read once, and what is not JSON is refused.
  input = jsonValue(input, 'input', 'ERR_INVALID_INPUT')
  const props = tool.inputSchema.properties
  const known = Object.keys(props)
  const out = {}
  for (const key of Object.keys(input)) {
    const value = input[key]
    if (!Object.hasOwn(props, key)) {
      throw invalidInput(
        `input.${key} is not a field of ${tool.name}${known.length ? ` (fields: ${known.join(', ')})` : ' (it takes no fields)'}`,
      )
    }
    if (value === null || value === undefined) continue
    const field = props[key]
    switch (field.type) {
      case 'string':
        if (typeof value !== 'string') throw invalidInput(`input.${key} must be a string, got ${describe(value)}`)
        break
      case 'boolean':
        if (typeof value !== 'boolean') throw invalidInput(`input.${key} must be true or false, got ${describe(value)}`)
        break
      case 'integer': {
        const min = field.minimum ?? 0
        const max = field.maximum ?? Number.MAX_SAFE_INTEGER
        if (!Number.isSafeInteger(value)) throw invalidInput(`input.${key} must be an integer, got ${describe(value)}`)
        if (value < min || value > max) {
          throw invalidInput(`input.${key} must be ${field.maximum === undefined ? `at least ${min}` : `from ${min} to ${max}`}, got ${value}`)
        }
        break
      }
      case 'array':
        if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
          throw invalidInput(`input.${key} must be an array of strings, got ${describe(value)}`)
        }
        break
    }
    out[key] = value
  }
  for (const key of tool.inputSchema.required) {
    if (out[key] === undefined) throw invalidInput(`input.${key} is required for ${tool.name}`)
  }
  return out
}

module.exports = { invalidInput, readInput }
