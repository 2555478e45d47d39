'use strict'
// The terminal tool set: six general-purpose tools that give a model a
// terminal beside its domain tools — pty_exec (run to completion), pty_start
// (a persistent session), pty_read (output since a cursor, or the screen),
// pty_send (text and named keys), pty_list and pty_stop (the whole process
// tree). `terminalTools(options)` returns a ToolSet, a plain description
// (options and tool definitions) that `ToolRegistry#register()` accepts beside
// interactive tools; each registry that registers it gets its own sessions
// (a TerminalSessions object, below), shown in its `list()` and events.
//
// Programs run without a shell (argv), in a PtySession, with PAGER=cat and
// GIT_PAGER=cat over the inherited environment (`DEFAULT_ENV`; the set's
// `env` overrides them) so that `git log` or `man` never stop in a pager the
// model cannot see. Output is the session's transcript stripped of escape
// sequences; output over `maxOutputLines` lines, `maxOutputBytes` bytes or the
// call's `max_chars` characters is written to a file whose path is returned,
// with its head and tail inline.
//
// A session that exited stays readable — its exit, runtime and the end of its
// output — until one read reports the exit, pty_stop removes it, or
// `keepExitedMs` passes; then a call naming it hears what became of it.
// Processes a program left running when it exited (an `&` job, a daemon) are
// found by its session id and by a marker in the environment of everything it
// started (PTYPILOT_SESSION), named in the reply that reports the exit, and
// ended by pty_stop.
//
// `approve` (and `ask`, when it answers 'ask') is called before every call of
// the 'start', 'input' and 'stop' classes; a call it denies never runs, and
// the model hears why.
//
// With `recordDir`, every session is recorded there (asciicast v2,
// `<id>.cast`).
//
// A person beside the agent (the live panel, lib/panel.js, when the set has a
// `web` option) can take a session over: while they hold it the model's input
// is refused, and what they type is in no reply — the model's next read says
// how many characters they typed, and shows the program's answer.
//
// A ToolSet crosses to the isolated host (`isolation: 'process'`) as its
// options (`toolSetData` / `toolSetFromData`); an `allow` function cannot
// cross, so the isolated registry checks it in the agent's process before it
// forwards a call (`checkAllowed`), and the host gets an allow-all set.
//
// This file makes the ToolSet and is the module's public face; the rest is
// in lib/terminal-tools/, one concept a file:
//   specs.js       the six tools as data, their schemas and definitions
//   options.js     the set's options, checked, with the defaults
//   input.js       a call's input checked against its tool's fields
//   approval.js    `allow`, `approve` and `ask`: whether a call may run
//   sessions.js    TerminalSessions: the sessions and the tools' calls
//   output.js      the output budget of a reply, and the spill files
//   leftovers.js   the processes a program left running
//   panel-link.js  the live panel's side: entries, watches, a person's actions
//   waits.js       how long a call waits for the program's answer
//   replies.js     the text the model reads for a result or an error

const { describe, invalidArg } = require('./errors.js')
const { kWriteInput, kSpawnUnref } = require('./common.js')
const { DEFAULTS, toolSpecs, annotationsFor, inputSchema, strictSchema, definitionOf } = require('./terminal-tools/specs.js')
const { normalizeOptions } = require('./terminal-tools/options.js')
const { checkAllowed, checkApproval } = require('./terminal-tools/approval.js')
const { TerminalSessions } = require('./terminal-tools/sessions.js')
const { resultText, resultIsError, errorText } = require('./terminal-tools/replies.js')

const kToolSet = Symbol('ptypilot.toolSet')

/**
 * The terminal tool set. See lib/terminal-tools.d.ts (`terminalTools`, `ToolSet`).
 */
function terminalTools(options) {
  const opts = normalizeOptions(options)
  const tools = toolSpecs(opts).map((spec) => {
    const inSchema = inputSchema(spec)
    return Object.freeze({
      name: spec.name,
      description: spec.description,
      permission: spec.permission,
      inputSchema: inSchema,
      strictSchema: strictSchema(spec),
      annotations: annotationsFor(spec.permission, spec.title, spec.name),
    })
  })
  const set = {
    kind: 'terminal',
    name: 'terminal',
    options: opts,
    tools,
  }
  Object.defineProperty(set, kToolSet, { value: true })
  return Object.freeze(set)
}

/** Whether `value` is a set `terminalTools()` made. */
function isToolSet(value) {
  if (value === null || typeof value !== 'object') return false
  try {
    return value[kToolSet] === true
  } catch {
    // A proxy that throws: not a tool set (register() then says what is wrong with it).
    return false
  }
}

/**
 * The ToolSet as data that crosses IPC: its options, without functions
 * (`allow`, `approve`, `ask` stay in this process and are checked before a
 * call is forwarded: `checkAllowed`, `checkApproval`).
 */
function toolSetData(set) {
  const { allow, approve, ask, ...options } = set.options
  return { kind: set.kind, options: typeof allow === 'function' ? options : { ...options, allow } }
}

/** The same set without its live panel (for a registry that only answers with its specs). */
function withoutPanel(set) {
  if (set.options.web === undefined) return set
  const { web, ...options } = set.options
  return terminalTools(options)
}

/** The set again from `toolSetData()` (in the isolated host). */
function toolSetFromData(data) {
  if (!data || data.kind !== 'terminal') throw invalidArg(`unknown tool set kind ${describe(data && data.kind)}`)
  return terminalTools(data.options)
}

module.exports = {
  terminalTools,
  isToolSet,
  toolSetData,
  toolSetFromData,
  withoutPanel,
  checkAllowed,
  checkApproval,
  definitionOf,
  TerminalSessions,
  resultText,
  resultIsError,
  errorText,
  kWriteInput,
  kSpawnUnref,
  DEFAULTS,
}
