'use strict'
// The waits of the terminal tools (lib/terminal-tools.js): how long pty_exec,
// pty_start, pty_read and pty_send wait before they answer the model, and
// why they stopped (`reason`, as the session's own waits report it:
// 'input', 'exit', 'quiet', 'timeout').
//
// - pty_exec waits for the program to exit or to wait for input (the
//   session's input state, from the kernel), or for `timeout_ms`.
// - pty_start, pty_read and pty_send with `wait_ms` wait for the program's
//   answer: they end at once when it waits for input or exits; otherwise
//   once its output is followed by ANSWER_QUIET_MS without output, or when
//   `wait_ms` passes. The terminal's echo of what was just typed is not an
//   answer (it comes before the program even read the line), so a program
//   that works silently after the echo is waited for, not cut off.

const native = require('../binding.js')

/**
 * How long the output must pause, once the program answered, before a wait
 * ends without the program waiting for input. Prompts end a wait at once
 * (the input state), so this only ends waits on programs that print and go
 * on working (or idle on something other than the terminal: a server): long
 * enough that a program that prints a line and then prompts after a slow
 * step is not cut off before its prompt.
 */
const ANSWER_QUIET_MS = 1000

/** `{ waiting, kind }` of the session's program, or null where the session cannot tell. */
function inputOf(pty) {
  if (typeof pty.inputState !== 'function') return null
  try {
    return pty.inputState()
  } catch (err) {
    if (err && err.code === 'ERR_NOT_RUNNING') return null
    throw err
  }
}

/** 'line' | 'password' | 'key' when the program waits for input, else null. */
function waitingKind(pty) {
  const state = inputOf(pty)
  return state !== null && state.waiting ? state.kind : null
}

/** A wait's error as the reason it ended, or rethrown when it is not one. */
function reasonOf(err) {
  switch (err && err.code) {
    case 'ERR_TIMEOUT':
      return 'timeout'
    case 'ERR_ABORTED':
      return 'aborted'
    case 'ERR_NOT_RUNNING':
      return 'exit'
  }
  throw err
}

/** Resolves 'aborted' when `signal` aborts (never when it is undefined). */
function onAbort(signal) {
  return new Promise((resolve) => {
    if (signal.aborted) resolve('aborted')
    else signal.addEventListener('abort', () => resolve('aborted'), { once: true })
  })
}

/**
 * Until the program waits for input ('input'; with `since: 'input'` a wait
 * that began after the last input was written), exits ('exit'), or
 * `timeoutMs` passes ('timeout'); 'aborted' when `signal` aborts. Where the
 * session cannot tell input waits, only 'exit', 'timeout' or 'aborted'.
 */
async function untilInput(pty, { since, timeoutMs, signal }) {
  if (typeof pty.waitForInput !== 'function') {
    return Promise.race([pty.exited.then(() => 'exit'), onAbort(signal)])
  }
  try {
    const r = await pty.waitForInput({ ...(since !== undefined && { since }), timeoutMs, signal })
    if (r && typeof r.reason === 'string') return r.reason
    return pty.running ? 'input' : 'exit'
  } catch (err) {
    return reasonOf(err)
  }
}

/**
 * The first of the exit, `waiters(signal)` (promises of a reason) and `ms`
 * passing: its reason ('exit' once all output is in, as the session's
 * `exited` says). The other waits are aborted; a timer keeps the event loop
 * alive meanwhile (sessions do not).
 */
async function first(pty, ms, waiters) {
  const ac = new AbortController()
  let timer
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms)
  })
  try {
    const reason = await Promise.race([pty.exited.then(() => 'exit'), ...waiters(ac.signal), timeout])
    if (reason === 'exit') await pty.exited
    return reason === 'aborted' ? 'timeout' : reason
  } finally {
    clearTimeout(timer)
    ac.abort()
  }
}

/**
 * pty_exec's wait: until the program exits, waits for input, or `timeoutMs`
 * passes. Resolves the reason: 'exit', 'input' or 'timeout'.
 */
function untilExitOrInput(pty, timeoutMs) {
  return first(pty, timeoutMs, (signal) => [untilInput(pty, { timeoutMs, signal })])
}

/** True when `<name>` in an input is a named key (`enter`, `ctrl+c`), not literal text. */
function isKeyName(name) {
  try {
    native.encodeKeys([name], undefined)
    return true
  } catch {
    return false
  }
}

/**
 * The visible text a `pty_send` input types: named keys dropped (`<enter>`,
 * `<ctrl+c>`), `<lt>` as "<", control characters dropped; a `<word>` that
 * names no key is text.
 */
function typedText(input) {
  return input
    .replace(/<([^<>\s]+)>/g, (m, name) => (name.toLowerCase() === 'lt' ? '<' : isKeyName(name) ? '' : m))
    .replace(/[\u0000-\u001f\u007f]/g, '')
}

/** True when `output` is (a beginning of) the echo of `typed`: the same characters but for white space. */
function isEcho(output, typed) {
  const out = output.replace(/\s+/g, '')
  return typed.replace(/\s+/g, '').startsWith(out)
}

/**
 * True once the program answered after output position `from`: output
 * other than white space and the terminal's echo of `typed` (`{ text,
 * cursor }`, the last input and the output position it was written at).
 */
function answered(pty, from, typed) {
  const after = pty.read({ since: from }).text
  if (after.trim() === '') return false
  if (typed === null || typed.cursor < from) return true
  const sinceTyped = pty.read({ since: typed.cursor }).text
  // Output between `from` and the input is an answer to something earlier.
  if (after.length > sinceTyped.length && after.slice(0, after.length - sinceTyped.length).trim() !== '') return true
  return !isEcho(sinceTyped, typedText(typed.text))
}

/**
 * The wait of pty_start, pty_read and pty_send with `wait_ms`: until the
 * program waits for input ('input') or exits ('exit'), or its answer after
 * output position `from` (not the echo of `typed`) is followed by
 * `quietMs` without output ('quiet'), or `ms` passes ('timeout').
 */
async function untilAnswer(pty, { from, ms, typed = null, quietMs = ANSWER_QUIET_MS }) {
  if (!pty.running) return 'exit'
  const end = Date.now() + ms
  const left = () => Math.max(0, end - Date.now())
  const output = async (signal) => {
    let cursor = from
    while (!answered(pty, from, typed)) {
      await pty.waitFor(/[\s\S]/, { since: cursor, in: 'output', timeoutMs: left(), signal })
      cursor = pty.read({ tail: 0 }).cursor
    }
    const settled = await pty.waitForSettle({ quietMs: Math.min(quietMs, left()), timeoutMs: left(), signal })
    if (typeof settled.reason === 'string') return settled.reason
    if (!pty.running) return 'exit'
    return settled.settled ? 'quiet' : 'timeout'
  }
  // After an input, only a wait that began once it was read counts; before any, every wait does.
  const since = typed === null ? undefined : 'input'
  return first(pty, ms, (signal) => [untilInput(pty, { since, timeoutMs: ms, signal }), output(signal).catch(reasonOf)])
}

module.exports = { ANSWER_QUIET_MS, inputOf, waitingKind, untilExitOrInput, untilAnswer, typedText, isEcho }
