'use strict'
// What a session's program left running when it exited (an `&` job, a
// daemon): everything it started carries a marker in its environment
// (PTYPILOT_SESSION, a value of the session's own), so the processes are
// found by the program's session id and that marker (`leftBehind`), named in
// the reply that reports the exit, and ended by pty_stop (`endLeftovers`).

const crypto = require('node:crypto')
const { held } = require('../common.js')

/** The variable that marks everything a session's program started (for its left-overs). */
const SESSION_MARKER = 'PTYPILOT_SESSION'

/** A fresh marker value for session `id` (unguessable: a program cannot claim another session's processes). */
function sessionMarker(id) {
  return `${id}-${crypto.randomBytes(8).toString('hex')}`
}

/**
 * The processes session `s`'s program left running when it exited (its
 * session's members and everything carrying its marker): `{ proc, pid, args }`
 * each, `proc` a Process. None where there is no process table (macOS).
 */
async function leftBehind(s) {
  const { Process } = require('../process.js')
  const { NativeProcess } = require('../addon.js')
  let handles
  try {
    handles = await NativeProcess.leftBehind(s.pid ?? 0, SESSION_MARKER, s.marker)
  } catch {
    return []
  }
  return handles.map((handle) => {
    const proc = new Process(handle)
    return { proc, pid: proc.pid, args: proc.args() }
  })
}

/**
 * Ends the processes session `s`'s program left running (those found at
 * its exit and any found now), each with its tree: TERM, `graceMs`, KILL.
 * Resolves with the ones that were running, as `{ pid, args }`.
 */
async function endLeftovers(s, graceMs) {
  await held(s.settled)
  const known = new Map(s.leftovers.map((l) => [l.pid, l]))
  for (const l of await leftBehind(s)) if (!known.has(l.pid)) known.set(l.pid, l)
  const running = [...known.values()].filter((l) => l.proc.status() === 'running')
  await held(Promise.all(running.map((l) => l.proc.terminate({ gracefulMs: graceMs }).catch(() => false))))
  s.leftovers = []
  return running.map(({ pid, args }) => ({ pid, args }))
}

module.exports = { SESSION_MARKER, sessionMarker, leftBehind, endLeftovers }
