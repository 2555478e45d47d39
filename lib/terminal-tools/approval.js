'use strict'
// Whether a call may run: the set's `allow` (which commands may start; also
// checked in the agent's process for an isolated registry, whose host cannot
// run a function: `checkAllowed`), and its `approve` / `ask` (asked before
// every call of the 'start', 'input' and 'stop' classes: `checkApproval`). A
// call refused here never runs; the model hears why (ERR_INVALID_INPUT with
// `denied: true`).

const { codedError, describe, invalidArg } = require('../errors.js')
const { readInput } = require('./input.js')

/**
 * Whether the set's `allow` lets `command` run. A list matches the command exactly as given:
 * a bare name (looked up on PATH) or a path. Matching a path by its base name would let a
 * model run any file of that name (`/tmp/x/python3` for `python3`).
 */
function allowed(set, command) {
  const { allow } = set.options
  if (allow === undefined) return true
  if (typeof allow === 'function') return allow(command) === true
  return allow.includes(command)
}

function deniedError(set, command) {
  const { allow } = set.options
  const which = Array.isArray(allow) ? ` (allowed: ${allow.join(', ') || 'none'})` : ''
  const err = codedError('ERR_INVALID_INPUT', `input.command ${JSON.stringify(command)} is not allowed here${which}`)
  err.denied = true
  return err
}

/**
 * For a registry that cannot run `allow` itself (the isolated host): the
 * error a call of tool `name` with `input` gets from the set's `allow`, or
 * null when it may run (or is not a start call).
 */
function checkAllowed(set, name, input) {
  if (name !== 'pty_exec' && name !== 'pty_start') return null
  if (typeof set.options.allow !== 'function') return null
  let value = input
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value)
    } catch {
      return null
    }
  }
  const command = value !== null && typeof value === 'object' ? value.command : undefined
  if (typeof command !== 'string') return null
  return allowed(set, command) ? null : deniedError(set, command)
}

/** The permission classes whose calls `approve` decides on. */
const APPROVED = new Set(['start', 'input', 'stop'])

/** An `approve` / `ask` answer as `{ decision, reason }`. */
function decisionOf(value, what) {
  if (value === 'allow' || value === 'deny' || value === 'ask') return { decision: value, reason: null }
  if (value !== null && typeof value === 'object' && ['allow', 'deny', 'ask'].includes(value.decision)) {
    return { decision: value.decision, reason: typeof value.reason === 'string' && value.reason.trim() !== '' ? value.reason.trim() : null }
  }
  throw invalidArg(`${what} must return 'allow', 'deny' or 'ask' (or { decision, reason }), got ${describe(value)}`)
}

/**
 * Asks the set's `approve` about a call of tool `name` with `input` (and the
 * set's `ask` when it answers 'ask'). Resolves with null when the call may
 * run, or with the error the model gets (ERR_INVALID_INPUT, `denied: true`).
 * `sessionOf(id)` gives `{ command, args }` of a session for input and stop
 * calls, or undefined for an unknown one (the call then fails on its own).
 * A call whose input is malformed is not asked about: it fails on its own.
 */
async function checkApproval(set, name, input, sessionOf) {
  const { approve, ask } = set.options
  if (approve === undefined) return null
  const tool = set.tools.find((t) => t.name === name)
  if (tool === undefined || !APPROVED.has(tool.permission)) return null
  let fields
  try {
    fields = readInput(tool, input)
  } catch {
    return null
  }
  let command = fields.command
  let args = fields.args ?? []
  let session = null
  if (tool.permission !== 'start') {
    const info = sessionOf(fields.id)
    if (info === undefined) return null
    ;({ command, args } = info)
    session = fields.id
  }
  const request = { permission: tool.permission, tool: name, input: fields, command, args: [...args], session }
  let answer = decisionOf(await approve(structuredClone(request)), 'approve()')
  if (answer.decision === 'ask') {
    answer = ask === undefined
      ? { decision: 'deny', reason: 'it needs a person\'s approval and there is no one to ask' }
      : decisionOf(await ask(structuredClone(request)), 'ask()')
    if (answer.decision === 'ask') throw invalidArg("ask() must return 'allow' or 'deny', got 'ask'")
    if (answer.decision === 'deny' && answer.reason === null) answer.reason = 'the person declined it'
  }
  if (answer.decision === 'allow') return null
  const line = [command, ...args].join(' ')
  const what = tool.permission === 'start'
    ? `${name} of ${JSON.stringify(line)}`
    : tool.permission === 'input'
      ? `typing into ${session} (${line})`
      : `stopping ${session} (${line})`
  const err = codedError('ERR_INVALID_INPUT', `${what} was denied${answer.reason === null ? '' : `: ${answer.reason}`}; the call did not run`)
  err.denied = true
  return err
}

module.exports = { allowed, deniedError, checkAllowed, checkApproval }
