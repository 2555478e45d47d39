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

const crypto = require('node:crypto')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { codedError, describe, invalidArg } = require('./errors.js')
const { jsonValue, own } = require('./args.js')
const { kWriteInput, kSpawnUnref } = require('./common.js')
const waits = require('./terminal-waits.js')

const kToolSet = Symbol('ptypilot.toolSet')

const DEFAULTS = Object.freeze({
  maxSessions: 16,
  maxOutputLines: 2000,
  maxOutputBytes: 51200,
  maxOutputChars: 51200,
  keepExitedMs: 30 * 60 * 1000,
  defaultTimeoutMs: 60000,
  maxTimeoutMs: 300000,
  maxWaitMs: 30000,
  stopGraceMs: 2000,
  cols: 120,
  rows: 30,
})
/** Lines of a spilled output shown inline: the first and the last. */
const SPILL_HEAD_LINES = 50
const SPILL_TAIL_LINES = 150
/** Characters of a spilled output shown inline at most, head and tail. */
const SPILL_HEAD_CHARS = 8000
const SPILL_TAIL_CHARS = 16000
/** The smallest `max_chars` a call may ask for. */
const MIN_MAX_CHARS = 200
/**
 * The environment every program of the set gets under the set's `env`: no
 * pager (a pager waits for keys the model does not know it must send).
 * TERM stays the session's default, xterm-256color.
 */
const DEFAULT_ENV = Object.freeze({ PAGER: 'cat', GIT_PAGER: 'cat' })
/** The variable that marks everything a session's program started (for its left-overs). */
const SESSION_MARKER = 'PTYPILOT_SESSION'
/** Gone sessions remembered for the message a later call naming them gets. */
const KEEP_GONE = 256
/** While the panel is watched: how long one ask of "does it wait for input?" lasts, and the pause between asks. */
const WATCH_SLICE_MS = 1000
const WATCH_GAP_MS = 25

// ---------- the tool definitions ----------

const ID_FIELD = { type: 'string', description: 'The session id (from pty_start, pty_exec or pty_list).' }
function maxCharsField(limits) {
  return {
    type: 'integer',
    minimum: MIN_MAX_CHARS,
    maximum: 1e7,
    description:
      `The most characters of output to return (default ${limits.maxOutputChars}): longer output comes as its first and ` +
      'last lines, and in full in a file whose path is given.',
  }
}
const ARGS_FIELD = {
  type: 'array',
  items: { type: 'string' },
  description: 'Arguments, one per element (no shell: no quoting, globs, pipes or redirections).',
}

/** What the state in a reply means, for the descriptions. */
const STATES =
  'States: "running" (working; more output may come), "waiting for input (line)" (a prompt: type a line ending with <enter>), ' +
  '"waiting for input (password)" (echo is off: what you type is not shown), "waiting for input (key)" (a full-screen ' +
  'program, menu or line editor reading keys), "exited N" (finished with exit code N).'

/** When a wait_ms wait ends, for the descriptions. */
const WAIT_ENDS =
  'it returns at once when the program waits for input or exits, else ' +
  `${waits.ANSWER_QUIET_MS / 1000} s after its output stops (the echo of your typing does not count), or after wait_ms.`

/** A `wait_ms` field. */
function waitField(limits, what) {
  return {
    type: 'integer',
    minimum: 0,
    maximum: limits.maxWaitMs,
    description: `Wait up to this many ms ${what} (at most ${limits.maxWaitMs}); it ends early when the program waits for input or exits.`,
  }
}

/** The six tools: name, permission class, description, input fields. */
function toolSpecs(limits) {
  return [
    {
      name: 'pty_exec',
      permission: 'start',
      title: 'Run a command',
      description:
        'Run a program in a terminal and wait for it to finish; returns its exit code and output. ' +
        'The program runs directly, without a shell: put the executable in command and each argument in args ' +
        '(["install"], not "npm install"); for shell syntax run command "sh" with args ["-c", "..."]. ' +
        'If it stops to wait for input (a question, a password, a menu) you get the output so far at once, with ' +
        '"waiting for input (line|password|key)" and a session id: answer with pty_send, or stop it with pty_stop. ' +
        `If it does not finish within timeout_ms (default ${limits.defaultTimeoutMs}, at most ${limits.maxTimeoutMs}) ` +
        'you get the output so far and a session id: it keeps running, follow it with pty_read or stop it with pty_stop. ' +
        `Output over ${limits.maxOutputLines} lines, ${limits.maxOutputBytes} bytes or max_chars characters is written to a file whose path is given, ` +
        'with its first and last lines shown. Pagers are off (PAGER=cat). Processes the program left running (a daemon, ' +
        'an & job) are listed when it exits: pty_stop on its id ends them. Use for builds, tests, git and other commands that end on their own.',
      fields: {
        command: { type: 'string', description: 'The executable, looked up on PATH (e.g. "npm", "git", "python3").' },
        args: ARGS_FIELD,
        cwd: { type: 'string', description: 'Working directory (relative to the default one); default: the default one.' },
        timeout_ms: {
          type: 'integer',
          minimum: 1,
          maximum: limits.maxTimeoutMs,
          description: `How long to wait for the program to finish, in ms (default ${limits.defaultTimeoutMs}, at most ${limits.maxTimeoutMs}).`,
        },
        max_chars: maxCharsField(limits),
      },
      required: ['command'],
    },
    {
      name: 'pty_start',
      permission: 'start',
      title: 'Start a terminal session',
      description:
        'Start a long-running program (a dev server, a REPL, a watcher, an interactive program) in a terminal ' +
        'session and return its id. Run without a shell, as pty_exec. With wait_ms the reply also has its first output, ' +
        'as pty_read with wait_ms gives it. Then read its output with pty_read, ' +
        'type into it with pty_send and stop it with pty_stop. Each call starts a new process: check pty_list first ' +
        'for a session that already runs.',
      fields: {
        command: { type: 'string', description: 'The executable, looked up on PATH (e.g. "python3", "npm").' },
        args: ARGS_FIELD,
        cwd: { type: 'string', description: 'Working directory (relative to the default one); default: the default one.' },
        title: { type: 'string', description: 'A label for the session, shown by pty_list.' },
        wait_ms: waitField(limits, 'for its first output'),
        max_chars: maxCharsField(limits),
      },
      required: ['command'],
    },
    {
      name: 'pty_read',
      permission: 'read',
      title: 'Read a terminal session',
      description:
        'Read the output of a session, stripped of terminal escapes. Without since: the output from the start ' +
        '(tail limits it to the last lines); with since: only the output after that cursor. Every reply ends with ' +
        `the session state and the new cursor: pass it as since next time so you only get new output. ${STATES} ` +
        `wait_ms (at most ${limits.maxWaitMs}) waits for the program first: ${WAIT_ENDS} ` +
        'screen: true returns the current screen instead, for full-screen programs (vim, less, top, menus). ' +
        'A session that exited stays readable until one read reports its exit (with its runtime and the processes it left running).',
      fields: {
        id: ID_FIELD,
        since: { type: 'integer', minimum: 0, description: 'The cursor of the previous read: only output after it.' },
        tail: { type: 'integer', minimum: 1, description: 'Only the last this many lines (useful on a first read).' },
        wait_ms: waitField(limits, 'for new output before reading'),
        screen: { type: 'boolean', description: 'Return the current screen (rows as shown, with the cursor) instead of the output.' },
        full: {
          type: 'boolean',
          description:
            'With screen: true, every row of the screen. Otherwise a screen that changed only in part since your last ' +
            'screen read of this session may come as a partial view (its first line says so, and names the rows that scrolled, ' +
            'moved or are as in an earlier numbered view): then only the rows with new text, each after its row number (12│text), ' +
            "or a row's new words written over it from a character (23:62│40,5).",
        },
        max_chars: maxCharsField(limits),
      },
      required: ['id'],
    },
    {
      name: 'pty_send',
      permission: 'input',
      title: 'Type into a terminal session',
      description:
        'Type into a running session. End a line with <enter> (or \\r) to submit it. Named keys go in angle ' +
        'brackets: <enter>, <tab>, <esc>, <backspace>, <up>, <down>, <left>, <right>, <pageup>, <pagedown>, ' +
        '<ctrl+c> (interrupt), <ctrl+d> (end of input), <ctrl+z>, <alt+x>, <f1>…<f12>; raw control characters ' +
        'work too. Write <lt> for a literal "<" before a key name. With wait_ms the reply has the answer: the output ' +
        `after the input and the session state (${WAIT_ENDS}) Without it, read the answer with pty_read from the cursor ` +
        'the reply gives. Input typed while the program has echo off (a password) is never shown in any reply.',
      fields: {
        id: ID_FIELD,
        input: { type: 'string', description: 'Text and named keys to type, e.g. "print(1+1)<enter>" or "<ctrl+c>".' },
        wait_ms: waitField(limits, 'for the answer'),
        max_chars: maxCharsField(limits),
      },
      required: ['id', 'input'],
    },
    {
      name: 'pty_list',
      permission: 'read',
      title: 'List terminal sessions',
      description: 'List the terminal sessions: id, state (running, waiting for input, or exited with its code), program, title, pid and output cursor.',
      fields: {},
      required: [],
    },
    {
      name: 'pty_stop',
      permission: 'stop',
      title: 'Stop a terminal session',
      description:
        'Stop a session: terminate its program and every process it started (the whole tree), then remove the session. ' +
        'On a session that exited, it ends the processes the program left running.',
      fields: { id: ID_FIELD },
      required: ['id'],
    },
  ]
}

/** MCP tool annotations from a permission class. */
function annotationsFor(permission, title, name) {
  switch (permission) {
    case 'read':
      return { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
    case 'stop':
      return { title, readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }
    default:
      // A program started, or keys typed into one, can do anything.
      return { title, readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: name !== 'pty_send' }
  }
}

/** The input schema: optional fields optional (Anthropic, MCP). */
function inputSchema(spec) {
  return {
    type: 'object',
    properties: structuredClone(spec.fields),
    required: [...spec.required],
    additionalProperties: false,
  }
}

/**
 * The strict form OpenAI wants: every field required, optional ones nullable
 * (`null` stands for "not given"), no `minimum`/`maximum` (strict mode
 * rejects some keywords; the limits are in the descriptions and checked on
 * every call).
 */
function strictSchema(spec) {
  const properties = {}
  for (const [key, field] of Object.entries(spec.fields)) {
    const { minimum, maximum, ...rest } = structuredClone(field)
    if (!spec.required.includes(key)) rest.type = [rest.type, 'null']
    properties[key] = rest
  }
  return { type: 'object', properties, required: Object.keys(spec.fields), additionalProperties: false }
}

/** One tool of a set as `format`'s API expects it. */
function definitionOf(tool, format) {
  switch (format) {
    case 'openai':
      return {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: structuredClone(tool.strictSchema), strict: true },
      }
    case 'openai-responses':
      return { type: 'function', name: tool.name, description: tool.description, parameters: structuredClone(tool.strictSchema), strict: true }
    case 'mcp':
      return {
        name: tool.name,
        description: tool.description,
        inputSchema: structuredClone(tool.inputSchema),
        annotations: { ...tool.annotations },
      }
    default:
      return { name: tool.name, description: tool.description, input_schema: structuredClone(tool.inputSchema) }
  }
}

// ---------- options ----------

const OPTION_KEYS = ['cwd', 'maxSessions', 'spillDir', 'recordDir', 'allow', 'approve', 'ask', 'web', 'env', 'cols', 'rows', ...Object.keys(DEFAULTS)]

function checkInteger(value, what, min, max) {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidArg(`${what} must be an integer from ${min} to ${max}, got ${describe(value)}`)
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
        else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out.allow = [...value]
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

// ---------- the ToolSet ----------

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

function toolSetFromData(data) {
  if (!data || data.kind !== 'terminal') throw invalidArg(`unknown tool set kind ${describe(data && data.kind)}`)
  return terminalTools(data.options)
}

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

// ---------- approval ----------

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

// ---------- input checks ----------

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

// ---------- output ----------

function countLines(text) {
  if (text === '') return 0
  let n = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++
  return text.endsWith('\n') ? n : n + 1
}

/**
 * `text` cut to its first lines (at most `headLines`, whole lines of at most
 * `headChars` characters together) and its last (at most `tailLines` lines,
 * `tailChars` characters): `{ head, tail, omitted }`, `omitted` the number of
 * lines between them. A first or last line longer than its room is cut at
 * the room, with "…" where it was cut.
 */
function headAndTail(text, headLines, headChars, tailLines, tailChars) {
  const lines = text.split('\n')
  const last = lines.pop() // '' after a final newline
  if (last !== '') lines.push(last)
  const withEnd = (i) => lines[i] + (i < lines.length - 1 || last === '' ? '\n' : '')
  let head = ''
  let headCount = 0
  while (headCount < Math.min(headLines, lines.length)) {
    const line = withEnd(headCount)
    if (head.length + line.length > headChars) {
      if (headCount === 0 && headChars > 0) {
        head = `${line.slice(0, headChars)}…\n`
        headCount = 1
      }
      break
    }
    head += line
    headCount++
  }
  let tail = ''
  let tailCount = 0
  while (tailCount < Math.min(tailLines, lines.length - headCount)) {
    const line = withEnd(lines.length - 1 - tailCount)
    if (tail.length + line.length > tailChars) {
      if (tailCount === 0 && tailChars > 0) {
        tail = `…${line.slice(line.length - tailChars)}`
        tailCount = 1
      }
      break
    }
    tail = line + tail
    tailCount++
  }
  return { head, tail, omitted: lines.length - headCount - tailCount }
}

// ---------- sessions ----------

/**
 * `promise`, with the event loop kept alive until it settles: a session's
 * exit does not hold the loop (sessions do not keep the process alive), so
 * a caller awaiting one (pty_stop, abortAll, wait) must.
 */
async function held(promise) {
  const timer = setInterval(() => {}, 2 ** 30)
  try {
    return await promise
  } finally {
    clearInterval(timer)
  }
}

/** An interactive tool's handle (a HandleInfo) as the live panel shows it: view only. */
function handleEntry(h, handles) {
  let size = { cols: 80, rows: 24 }
  try {
    const screen = h.state === 'running' ? handles.screen(h.id) : null
    if (screen) size = { cols: screen.cols, rows: screen.rows }
  } catch {
    // A pipes handle has no screen.
  }
  return {
    id: h.id,
    kind: 'tool',
    name: `${h.tool} ${h.command}`,
    command: h.tool,
    args: [h.command, ...h.args],
    pid: h.pid,
    state: h.state === 'running' ? 'running' : 'exited',
    stateText: h.state === 'running' ? 'running' : h.state === 'success' || h.state === 'error' ? `exited ${h.exitCode}` : h.state,
    exitCode: h.exitCode,
    signal: null,
    input: null,
    holder: null,
    canTake: false,
    cols: size.cols,
    rows: size.rows,
    startedAt: h.startedAt,
    finishedAt: h.finishedAt,
    leftovers: [],
  }
}

/**
 * The processes session `s`'s program left running when it exited (its
 * session's members and everything carrying its marker): `{ proc, pid, args }`
 * each, `proc` a Process. None where there is no process table (macOS).
 */
async function leftBehind(s) {
  const { Process } = require('./process.js')
  const { NativeProcess } = require('./addon.js')
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
 * The sessions of one registry's terminal tools. `host` gives `emit(event)`
 * (or undefined), `cwd` (the registry's default) and `firstId` (the number of
 * the first session id).
 */
class TerminalSessions {
  #set
  #tools
  #opts
  #host
  #PtySession
  /** Sessions by id, in start order. */
  #sessions = new Map()
  /** Ids of sessions that are gone → what became of them (the last KEEP_GONE). */
  #gone = new Map()
  #nextId
  #spillDir = null
  #spillCount = 0
  /** Listeners of the sessions' changes and output (the live panel): `(event) => void`. */
  #watchers = new Set()
  /** The live panel (`web` option): a promise of `{ url, close }` (null when it could not start), or null. */
  #panel = null
  /** Its URL once it listens, for the replies that point a person to it. */
  #panelUrl = null
  /** While pages watch: aborts the sessions' input-state watches when the last page leaves. */
  #watching = null

  constructor(set, host, PtySession) {
    this.#set = set
    this.#opts = set.options
    this.#tools = new Map(set.tools.map((t) => [t.name, t]))
    this.#host = host
    this.#PtySession = PtySession
    this.#nextId = Math.max(1, Math.floor(host.firstId ?? 1))
    if (this.#opts.web !== undefined) this.#panel = this.#startPanel()
  }

  /** Starts the live panel of these sessions; its URL goes out as a `web` event. */
  async #startPanel() {
    const { startPanel } = require('./panel.js')
    const { port, token } = this.#opts.web
    const emit = this.#host.emit
    try {
      const panel = await startPanel({ source: this.panelSource(), port, ...(token !== null && { token }), title: 'ptypilot' })
      this.#panelUrl = panel.url
      if (emit !== undefined) emit({ type: 'web', id: this.#set.name, url: panel.url })
      return panel
    } catch (err) {
      const message = `the live panel could not start on 127.0.0.1:${port}: ${err && err.message ? err.message : String(err)}`
      process.emitWarning(message, { code: 'PTYPILOT_WEB' })
      if (emit !== undefined) emit({ type: 'web', id: this.#set.name, url: null, error: message })
      return null
    }
  }

  /** Stops every session and closes the live panel. */
  async close() {
    this.#watching?.abort()
    this.#watching = null
    await this.stopAll()
    const panel = await this.#panel
    this.#panel = null
    if (panel) await panel.close()
  }

  get set() {
    return this.#set
  }

  // ----- the person beside the agent (the live panel) -----

  /** Tells the watchers that session `s` changed (or is gone). */
  #notify(s) {
    if (this.#watchers.size === 0) return
    const event = s.forgotten || !this.#sessions.has(s.id) ? { type: 'removed', id: s.id } : { type: 'entry', entry: this.#entry(s) }
    for (const watch of this.#watchers) watch(event)
  }

  /** Session `s` as the panel shows it. */
  #entry(s) {
    return {
      id: s.id,
      kind: 'terminal',
      name: s.title ?? [s.command, ...s.args].join(' '),
      command: s.command,
      args: [...s.args],
      pid: s.pid,
      state: s.exit === null ? 'running' : 'exited',
      exitCode: s.exit === null ? null : s.exit.exitCode,
      signal: s.exit === null ? null : s.exit.signal,
      input: s.exit === null ? s.inputKind : null,
      stateText: stateText({ status: s.exit === null ? 'running' : 'exited', inputKind: s.inputKind, ...(s.exit ?? {}) }),
      holder: s.person === null ? null : s.person.holder,
      canTake: s.exit === null,
      cols: s.size.cols,
      rows: s.size.rows,
      startedAt: s.startedAt,
      finishedAt: s.finishedAt,
      leftovers: s.leftovers.map(({ pid, args }) => ({ pid, args })),
    }
  }

  #setInput(s, kind) {
    if (s.inputKind === kind) return
    s.inputKind = kind
    this.#notify(s)
  }

  /**
   * While pages watch (`signal` not aborted): keeps `s.inputKind` current —
   * set when the program begins to wait for input, cleared by its next
   * output (the output callback) or input. Nothing is looked up for a
   * session nobody watches. The session's wait holds the process, so it is
   * asked in slices with a pause between them that does not: a watched
   * panel never keeps the process alive.
   */
  async #watchInput(s, signal) {
    if (typeof s.pty.waitForInput !== 'function') return
    let since
    while (!signal.aborted && s.exit === null && !s.forgotten) {
      if (s.inputKind === null) {
        let r
        try {
          r = await s.pty.waitForInput({ ...(since !== undefined && { since }), timeoutMs: WATCH_SLICE_MS, signal })
        } catch {
          return // aborted, or it exited
        }
        if (r.reason === 'exit') return
        if (r.reason === 'input') {
          // The next wait counts once something happened after this one.
          since = s.pty.read({ tail: 0 }).cursor
          this.#setInput(s, r.state.kind)
        }
      }
      await new Promise((resolve) => setTimeout(resolve, WATCH_GAP_MS).unref())
    }
  }

  /** The running session `id` for a person's action, checked. */
  #personSession(id, holder, action) {
    const s = this.#sessions.get(id)
    if (s === undefined && /^h\d+$/.test(id)) {
      throw codedError('ERR_INVALID_INPUT', `${id} is an interactive tool's handle: the panel shows it, the model's apply types into it`)
    }
    if (s === undefined || s.forgotten) throw codedError('ERR_UNKNOWN_HANDLE', `no terminal session ${JSON.stringify(id)}`)
    if (s.exit !== null || !s.pty.running) throw codedError('ERR_NOT_RUNNING', `session ${id} has exited; it cannot be ${action}`)
    if (action !== 'taken over' && (s.person === null || s.person.holder !== holder)) {
      throw codedError('ERR_INVALID_INPUT', `session ${id} is not held by this page; take it over first`)
    }
    return s
  }

  /**
   * The sessions as a source of the live panel (lib/panel.js): their
   * entries, a subscription to their changes and output, and a person's
   * actions — take over, type, resize, hand back. A holder is any value that
   * names one page.
   */
  panelSource() {
    const handles = this.#host.handles
    return {
      watched: (on) => {
        if (on && this.#watching === null) {
          this.#watching = new AbortController()
          for (const s of this.#sessions.values()) if (s.exit === null) this.#watchInput(s, this.#watching.signal)
        } else if (!on && this.#watching !== null) {
          this.#watching.abort()
          this.#watching = null
          for (const s of this.#sessions.values()) this.#setInput(s, null)
        }
      },
      entries: () => [
        ...[...this.#sessions.values()].filter((s) => !s.forgotten).map((s) => this.#entry(s)),
        ...(handles === undefined ? [] : handles.list().map((h) => handleEntry(h, handles))),
      ],
      subscribe: (fn) => {
        this.#watchers.add(fn)
        // The registry's interactive-tool handles: shown, never typed into here (their input is the model's apply).
        const off = handles === undefined || !handles.live
          ? () => {}
          : handles.subscribe((event) => {
              if (typeof event.id !== 'string' || !/^h\d+$/.test(event.id)) return
              if (event.type === 'output') fn({ type: 'output', id: event.id, chunk: event.chunk })
              else if (event.type === 'started') fn({ type: 'entry', entry: handleEntry(event, handles) })
              else if (event.type === 'finished' || event.type === 'hostCrashed') {
                // Its last state, then gone: a finished handle leaves the registry's list.
                if (event.type === 'finished') fn({ type: 'entry', entry: handleEntry(event, handles) })
                fn({ type: 'removed', id: event.id })
              }
            })
        return () => {
          this.#watchers.delete(fn)
          off()
        }
      },
      take: (id, holder) => {
        const s = this.#personSession(id, holder, 'taken over')
        if (s.person !== null && s.person.holder !== holder) {
          throw codedError('ERR_LIMIT', `session ${id} is held by another page; it is read-only here until it is handed back`)
        }
        if (s.person === null) {
          s.person = { holder, since: Date.now() }
          s.personNote.took = true
          this.#notify(s)
        }
      },
      release: (id, holder) => {
        const s = this.#sessions.get(id)
        if (s === undefined || s.person === null || s.person.holder !== holder) return false
        s.person = null
        s.personNote.handedBack = true
        if (s.exit === null && (s.size.cols !== this.#opts.cols || s.size.rows !== this.#opts.rows)) {
          // The model's size again: what it reads is as wide as it expects.
          s.size = { cols: this.#opts.cols, rows: this.#opts.rows }
          s.pty.resize(s.size.cols, s.size.rows)
        }
        this.#notify(s)
        return true
      },
      input: (id, holder, data) => {
        const s = this.#personSession(id, holder, 'typed into')
        // Counted, never kept: input typed while echo is off is stored nowhere (the session sees to it).
        s.pty.write(data)
        this.#setInput(s, null)
        s.personNote.typed += typeof data === 'string' ? [...data].length : data.length
      },
      resize: (id, holder, cols, rows) => {
        const s = this.#personSession(id, holder, 'resized')
        s.pty.resize(cols, rows)
        s.size = { cols, rows }
        this.#notify(s)
      },
    }
  }

  /** The names of the set's tools. */
  names() {
    return [...this.#tools.keys()]
  }

  tool(name) {
    return this.#tools.get(name)
  }

  /** Removes a tool from this registry's view of the set; true when none is left (then call `close()`). */
  drop(name) {
    this.#tools.delete(name)
    return this.#tools.size === 0
  }

  /** Carries out a call; resolves with the tool's typed result. */
  async call(name, input) {
    const tool = this.#tools.get(name)
    if (tool === undefined) throw codedError('ERR_UNKNOWN_TOOL', `unknown tool ${JSON.stringify(name)}`)
    const fields = readInput(tool, input)
    const denied = await checkApproval(this.#set, name, fields, (id) => this.#sessions.get(id))
    if (denied !== null) throw denied
    try {
      return await this.#run(name, fields)
    } catch (err) {
      // The set's options were checked when it was made: a bad argument now
      // comes from the call's fields (a cwd with a NUL, a huge tail).
      if (err && err.code === 'ERR_INVALID_ARG') {
        const mapped = invalidInput(`input is not usable: ${err.message}`)
        mapped.cause = err
        throw mapped
      }
      throw err
    }
  }

  #run(name, fields) {
    switch (name) {
      case 'pty_exec':
        return this.#exec(fields)
      case 'pty_start':
        return this.#start(fields)
      case 'pty_read':
        return this.#read(fields)
      case 'pty_send':
        return this.#send(fields)
      case 'pty_list':
        return { sessions: this.list().map((h) => this.#describe(this.#sessions.get(h.id))) }
      case 'pty_stop':
        return this.#stop(fields)
    }
    throw codedError('ERR_UNKNOWN_TOOL', `unknown tool ${JSON.stringify(name)}`)
  }

  /** The sessions as `HandleInfo`s. */
  list() {
    return [...this.#sessions.values()].filter((s) => !s.forgotten).map((s) => this.#info(s))
  }

  /** True when `id` is a session of this set. */
  has(id) {
    const s = this.#sessions.get(id)
    return s !== undefined && !s.forgotten
  }

  /** Waits for session `id` to exit (or `timeoutMs`); its state as a `ToolState`. */
  async wait(id, timeoutMs) {
    const s = this.#session(id)
    if (s.exit === null) {
      let timer
      const timeout = new Promise((resolve) => {
        if (timeoutMs !== undefined) timer = setTimeout(resolve, timeoutMs)
      })
      await held(Promise.race([s.settled, timeout]))
      clearTimeout(timer)
      await Promise.resolve()
    }
    const output = s.pty.read({ tail: 200 }).text
    if (s.exit === null) return { id, state: 'running', content: output, inputKind: waits.waitingKind(s.pty), reason: 'timeout' }
    if (s.exit.exitCode === 0 || s.stopped) return { id, state: 'stopped', result: { ok: true, content: output }, reason: 'exit' }
    const trace = output.split('\n').filter((l) => l.trim() !== '').slice(-20)
    return { id, state: 'stopped', result: { ok: false, error: { message: describeExit(s.exit, true), trace, transient: false } }, reason: 'exit' }
  }

  /** Stops every session (the whole tree of each) and waits for them. */
  async stopAll() {
    const all = [...this.#sessions.values()]
    await Promise.all([
      ...all.filter((s) => s.exit === null).map((s) => this.#terminate(s)),
      ...all.filter((s) => s.exit !== null).map((s) => this.#endLeftovers(s)),
    ])
  }

  // ----- the tools -----

  #cwd(fields) {
    const base = this.#opts.cwd ?? this.#host.cwd ?? process.cwd()
    return fields.cwd === undefined ? base : path.resolve(base, fields.cwd)
  }

  #spawn(tool, fields) {
    const { command } = fields
    if (command.trim() === '') throw invalidInput('input.command must name a program, got an empty string')
    if (!allowed(this.#set, command)) throw deniedError(this.#set, command)
    const running = [...this.#sessions.values()].filter((s) => s.exit === null).length
    if (running >= this.#opts.maxSessions) {
      throw codedError(
        'ERR_LIMIT',
        `too many running sessions (${running}, limit ${this.#opts.maxSessions}); stop one with pty_stop first`,
      )
    }
    const cwd = this.#cwd(fields)
    const args = fields.args ?? []
    const emit = this.#host.emit
    const id = `pty${this.#nextId}`
    // Marks everything the program starts, so what it leaves running is found after it exited.
    const marker = `${id}-${crypto.randomBytes(8).toString('hex')}`
    const env = { ...DEFAULT_ENV, ...this.#opts.env, [SESSION_MARKER]: marker }
    let record
    if (this.#opts.recordDir !== undefined) {
      fs.mkdirSync(this.#opts.recordDir, { recursive: true })
      record = path.join(this.#opts.recordDir, `${id}.cast`)
    }
    const watchers = this.#watchers
    let pty
    let s
    try {
      // Like a registry's handles, a running session does not keep the process alive.
      pty = this.#PtySession[kSpawnUnref](
        { command, args, cwd, cols: this.#opts.cols, rows: this.#opts.rows, env, ...(record !== undefined && { record }) },
        emit === undefined && watchers.size === 0 && this.#opts.web === undefined
          ? undefined
          : (chunk) => {
              if (emit !== undefined) emit({ type: 'output', id, chunk })
              for (const watch of watchers) watch({ type: 'output', id, chunk })
              // Output: whatever it waited for, it is working now.
              if (s !== undefined && s.inputKind !== null) this.#setInput(s, null)
            },
      )
    } catch (err) {
      if (err.code === 'ERR_SPAWN' && /\s/.test(command.trim()) && args.length === 0) {
        err.message += `; programs run without a shell: put the program in command and its arguments in args, e.g. {"command": ${JSON.stringify(command.trim().split(/\s+/)[0])}, "args": ${JSON.stringify(command.trim().split(/\s+/).slice(1))}}`
      }
      throw err
    }
    this.#nextId++
    s = {
      id,
      tool: tool.name,
      command,
      args,
      cwd,
      title: fields.title ?? null,
      pty,
      pid: pty.pid,
      startedAt: Date.now(),
      finishedAt: null,
      exit: null,
      stopped: false,
      forgotten: false,
      marker,
      /** Processes the program left running when it exited: `{ proc, pid, args }`. */
      leftovers: [],
      /** Resolves once the exit is known with its left-overs. */
      settled: null,
      keepTimer: null,
      /** The person who took the session over in the panel (`{ holder, since }`), or null. */
      person: null,
      /** What the person did since the model's last read: characters typed, took over, handed back. */
      personNote: { typed: 0, took: false, handedBack: false },
      size: { cols: this.#opts.cols, rows: this.#opts.rows },
      /** What it waits for, as the panel shows it ('line' | 'password' | 'key'), while pages watch; else null. */
      inputKind: null,
      /** The model's last input (`{ text, cursor }`; text '' when echo was off): its echo is not the program's answer. */
      typed: null,
    }
    this.#sessions.set(id, s)
    if (this.#watching !== null) this.#watchInput(s, this.#watching.signal)
    if (emit !== undefined) emit({ type: 'started', ...this.#info(s) })
    this.#notify(s)
    s.settled = pty.exited.then(async (exit) => {
      const at = Date.now()
      // Known before the exit shows: a reply that reports the exit names them.
      if (!s.stopped) s.leftovers = await leftBehind(s)
      s.exit = exit
      s.finishedAt = at
      if (s.person !== null) {
        s.person = null
        s.personNote.handedBack = true
      }
      if (emit !== undefined) emit({ type: 'finished', durationMs: s.finishedAt - s.startedAt, ...this.#info(s) })
      this.#notify(s)
      if (!s.forgotten) {
        s.keepTimer = setTimeout(() => {
          const minutes = Math.round(this.#opts.keepExitedMs / 60000)
          this.#forget(s, `nobody read it within ${minutes >= 1 ? `${minutes} min` : `${this.#opts.keepExitedMs} ms`} of its exit`)
        }, this.#opts.keepExitedMs)
        s.keepTimer.unref()
      }
      this.#evict()
    })
    return s
  }

  /** Forgets the oldest exited sessions beyond `maxSessions` kept. */
  #evict() {
    const exited = [...this.#sessions.values()].filter((s) => s.exit !== null)
    for (const s of exited.slice(0, Math.max(0, exited.length - this.#opts.maxSessions))) {
      this.#forget(s, `more than ${this.#opts.maxSessions} exited sessions were kept`)
    }
  }

  /** Removes a session; a later call naming it hears `why`. */
  #forget(s, why) {
    if (!this.#sessions.has(s.id)) return
    clearTimeout(s.keepTimer)
    s.forgotten = true
    s.person = null
    this.#sessions.delete(s.id)
    this.#gone.set(s.id, {
      exit: s.exit,
      text: `no terminal session ${JSON.stringify(s.id)} any more: ${s.id} (${[s.command, ...s.args].join(' ')}) ${describeExit(s.exit, false)} and was removed (${why})`,
    })
    if (this.#gone.size > KEEP_GONE) this.#gone.delete(this.#gone.keys().next().value)
    this.#notify(s)
  }

  async #exec(fields) {
    // The schema's maximum is the set's maxTimeoutMs (checked by readInput).
    const timeoutMs = fields.timeout_ms ?? this.#opts.defaultTimeoutMs
    const s = this.#spawn(this.#tools.get('pty_exec'), fields)
    // Until the exit, or the program waits for input (a prompt it would wait at until timeout_ms).
    const reason = await waits.untilExitOrInput(s.pty, timeoutMs)
    if (reason === 'exit') {
      await held(s.settled)
      const out = this.#output(s, s.pty.read(), fields.max_chars)
      const result = { ...this.#status(s), reason, timedOut: false, timeoutMs, ...out }
      this.#afterExitRead(s)
      return result
    }
    // The state first, then the output: output between the two is read next time, never lost.
    const status = this.#status(s)
    const out = this.#output(s, s.pty.read(), fields.max_chars)
    return { ...status, reason, timedOut: reason === 'timeout', timeoutMs, ...out }
  }

  async #start(fields) {
    const s = this.#spawn(this.#tools.get('pty_start'), fields)
    const waitMs = fields.wait_ms ?? 0
    if (waitMs === 0) return this.#describe(s)
    const reason = await this.#waitAnswer(s, 0, waitMs)
    const result = { ...this.#describe(s), reason, ...this.#output(s, s.pty.read(), fields.max_chars) }
    this.#afterExitRead(s)
    return result
  }

  /**
   * Waits for the program's answer after output position `from` (see
   * lib/terminal-waits.js); the reason, once an exit is known with its left-overs.
   */
  async #waitAnswer(s, from, ms) {
    const reason = await waits.untilAnswer(s.pty, { from, ms, typed: s.typed })
    if (!s.pty.running) await held(s.settled)
    return reason
  }

  async #read(fields) {
    const s = this.#session(fields.id)
    const { since, tail } = fields
    const waitMs = fields.wait_ms ?? 0
    const end = s.pty.read({ tail: 0 }).cursor
    if (since !== undefined && since > end) {
      throw invalidInput(`input.since ${since} is past the end of ${s.id}'s output (its cursor is ${end}); use the cursor of your last read`)
    }
    // Without since, output already there is the answer: only its quiet pause is waited for.
    const reason = waitMs > 0 ? await this.#waitAnswer(s, since ?? 0, waitMs) : undefined
    // An exit is reported with what the program left running.
    if (!s.pty.running) await held(s.settled)
    if (fields.screen === true) {
      // The state, then the cursor: output arriving between the calls is then on
      // the screen and after the cursor (read again), never in neither.
      const status = this.#status(s)
      const read = s.pty.read({ tail: 0 })
      const screen = s.pty.screen()
      const result = {
        ...status,
        ...(reason !== undefined && { reason }),
        screen: {
          text: screen.text,
          lines: screen.lines,
          cursor: screen.cursor,
          cols: screen.cols,
          rows: screen.rows,
          altScreen: screen.altScreen,
          title: screen.title,
        },
        cursor: read.cursor,
      }
      this.#afterExitRead(s)
      return result
    }
    const status = this.#status(s)
    const read = s.pty.read({ since, tail })
    const result = { ...status, ...(reason !== undefined && { reason }), ...this.#output(s, read, fields.max_chars) }
    this.#afterExitRead(s)
    return result
  }

  /**
   * After a reply that told the model of the exit: the session goes, unless
   * processes it left are still running (pty_stop on it ends them).
   */
  #afterExitRead(s) {
    if (s.exit === null) return
    if (s.leftovers.some((l) => l.proc.status() === 'running')) return
    this.#forget(s, 'its exit was reported')
  }

  async #send(fields) {
    const s = this.#session(fields.id, 'send')
    if (s.person !== null && s.exit === null) {
      const err = codedError(
        'ERR_INVALID_INPUT',
        `a person has taken session ${s.id} over in the live panel; your input was not sent. Follow it with pty_read; it is yours again when they hand it back`,
      )
      err.person = true
      throw err
    }
    if (s.exit !== null || !s.pty.running) {
      throw codedError(
        'ERR_NOT_RUNNING',
        `session ${s.id} has exited (${describeExit(s.exit, false)}); the input was not sent. Read its output with pty_read, or start it again with pty_start`,
      )
    }
    if (fields.input === '') throw invalidInput('input.input is empty; nothing to send')
    const cursor = s.pty.read({ tail: 0 }).cursor
    let written
    try {
      written = s.pty[kWriteInput](fields.input)
    } catch (err) {
      if (err.code === 'ERR_NOT_RUNNING') {
        throw codedError('ERR_NOT_RUNNING', `session ${s.id} has exited; the input was not sent. Read its output with pty_read`)
      }
      throw err
    }
    // The session says whether the terminal had echo off when the input went in (a password):
    // such input is kept nowhere, and no reply shows it.
    const { bytes, hidden: echoOff } = written
    s.typed = { text: echoOff ? '' : fields.input, cursor }
    const sent = { id: s.id, bytes, characters: sentCharacters(fields.input), echoOff, cursor }
    const waitMs = fields.wait_ms ?? 0
    if (waitMs === 0) return sent
    const reason = await this.#waitAnswer(s, cursor, waitMs)
    const status = this.#status(s)
    const answer = { ...status, reason, ...this.#output(s, s.pty.read({ since: cursor }), fields.max_chars) }
    this.#afterExitRead(s)
    return { ...sent, answer }
  }

  async #stop(fields) {
    const s = this.#session(fields.id)
    const ended = s.exit === null ? await this.#terminate(s) : await this.#endLeftovers(s)
    this.#forget(s, 'pty_stop removed it')
    return { ...this.#status(s), status: 'exited', stopped: s.stopped, ended }
  }

  /** Ends the program's tree, then whatever it left that the tree walk missed; the latter as `{ pid, args }`. */
  async #terminate(s) {
    s.stopped = true
    const exit = await held(s.pty.terminate({ graceMs: this.#opts.stopGraceMs }))
    if (s.exit === null) {
      s.exit = exit
      s.finishedAt = Date.now()
    }
    return this.#endLeftovers(s)
  }

  /**
   * Ends the processes the session's program left running (those found at
   * its exit and any found now), each with its tree: TERM, the stop grace,
   * KILL. Resolves with the ones that were running, as `{ pid, args }`.
   */
  async #endLeftovers(s) {
    await held(s.settled)
    const known = new Map(s.leftovers.map((l) => [l.pid, l]))
    for (const l of await leftBehind(s)) if (!known.has(l.pid)) known.set(l.pid, l)
    const running = [...known.values()].filter((l) => l.proc.status() === 'running')
    await held(Promise.all(running.map((l) => l.proc.terminate({ gracefulMs: this.#opts.stopGraceMs }).catch(() => false))))
    s.leftovers = []
    return running.map(({ pid, args }) => ({ pid, args }))
  }

  // ----- helpers -----

  /** The session `id`; a gone one is ERR_UNKNOWN_HANDLE saying what became of it (ERR_NOT_RUNNING for input). */
  #session(id, forWhat) {
    const s = this.#sessions.get(id)
    if (s === undefined || s.forgotten) {
      const gone = this.#gone.get(id)
      if (gone !== undefined) {
        if (forWhat === 'send') {
          throw codedError('ERR_NOT_RUNNING', `session ${id} has exited (${describeExit(gone.exit, false)}); the input was not sent. Start it again with pty_start`)
        }
        throw codedError('ERR_UNKNOWN_HANDLE', gone.text)
      }
      const live = this.list()
      const which = live.length === 0 ? 'there are no sessions' : `the sessions are ${live.map((h) => h.id).join(', ')}`
      throw codedError('ERR_UNKNOWN_HANDLE', `no terminal session ${JSON.stringify(id)}; ${which}`)
    }
    return s
  }

  /** The session's state in a result; `tell`: with what a person did since the last reply (which resets it). */
  #status(s, tell = true) {
    return {
      id: s.id,
      status: s.exit === null ? 'running' : 'exited',
      inputKind: s.exit === null ? waits.waitingKind(s.pty) : null,
      exitCode: s.exit === null ? null : s.exit.exitCode,
      signal: s.exit === null ? null : s.exit.signal,
      runtimeMs: s.exit === null ? null : s.finishedAt - s.startedAt,
      leftovers: s.exit === null ? [] : s.leftovers.map(({ pid, args }) => ({ pid, args })),
      person: tell ? this.#personReport(s) : null,
      panelUrl: this.#panelUrl,
    }
  }

  /**
   * What a person did in the session since the model's last reply about it
   * (never what they typed): `{ holding, typed, tookOver, handedBack }`, or
   * null when there is nothing to tell. Telling it resets it.
   */
  #personReport(s) {
    const note = s.personNote
    if (s.person === null && note.typed === 0 && !note.took && !note.handedBack) return null
    s.personNote = { typed: 0, took: false, handedBack: false }
    return { holding: s.person !== null, typed: note.typed, tookOver: note.took, handedBack: note.handedBack }
  }

  /**
   * The read's text, inline or spilled to a file: spilled when it is over
   * the set's line or byte limit or `maxChars` characters (the call's
   * `max_chars`, else the set's `maxOutputChars`); then its head and tail
   * fit in `maxChars` with the marker line.
   */
  #output(s, read, maxChars = this.#opts.maxOutputChars) {
    const { text, cursor, truncated } = read
    const bytes = Buffer.byteLength(text)
    const lines = countLines(text)
    if (lines <= this.#opts.maxOutputLines && bytes <= this.#opts.maxOutputBytes && text.length <= maxChars) {
      return { output: text, cursor, truncated, lines, bytes, spillPath: null }
    }
    const file = this.#spill(s.id, text)
    // The marker line takes its own room (a path and two numbers); a third of the rest is the head.
    const room = Math.max(0, maxChars - 120 - file.length)
    const headChars = Math.min(SPILL_HEAD_CHARS, Math.floor(room / 3))
    const tailChars = Math.min(SPILL_TAIL_CHARS, room - headChars)
    const { head, tail, omitted } = headAndTail(text, SPILL_HEAD_LINES, headChars, SPILL_TAIL_LINES, tailChars)
    const output = `${head}[… ${omitted} line${omitted === 1 ? '' : 's'} omitted; the whole output is in ${file} …]\n${tail}`
    return { output, cursor, truncated, lines, bytes, spillPath: file }
  }

  #spill(id, text) {
    if (this.#spillDir === null) {
      if (this.#opts.spillDir !== undefined) {
        fs.mkdirSync(this.#opts.spillDir, { recursive: true })
        this.#spillDir = this.#opts.spillDir
      } else {
        this.#spillDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptypilot-output-'))
      }
    }
    this.#spillCount++
    const file = path.join(this.#spillDir, `${id}-${this.#spillCount}-${crypto.randomBytes(3).toString('hex')}.txt`)
    fs.writeFileSync(file, text)
    return file
  }

  #info(s) {
    let state = 'running'
    if (s.exit !== null) state = s.stopped ? 'aborted' : s.exit.exitCode === 0 ? 'success' : 'error'
    return {
      id: s.id,
      tool: s.tool,
      command: s.command,
      args: [...s.args],
      pid: s.pid,
      state,
      startedAt: s.startedAt,
      finishedAt: s.finishedAt,
      exitCode: s.exit === null ? null : s.exit.exitCode,
    }
  }

  #describe(s) {
    return {
      ...this.#status(s, false),
      personHolding: s.person !== null,
      command: s.command,
      args: [...s.args],
      title: s.title,
      cwd: s.cwd,
      pid: s.pid,
      startedAt: s.startedAt,
      cursor: s.pty.read({ tail: 0 }).cursor,
    }
  }
}

function describeExit(exit, capital) {
  const text = exit === null ? 'still running' : exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.exitCode}`
  return capital ? text[0].toUpperCase() + text.slice(1) : text
}

/** The characters an input types, named keys not counted (`"hunter2<enter>"`: 7). */
function sentCharacters(input) {
  return [...waits.typedText(input)].length
}

// ---------- replies for the model ----------

/** A session's state as the replies say it: `running`, `waiting for input (KIND)`, `exited N` (`killed by SIG`). */
function stateText(r) {
  if (r.status !== 'running') return r.signal ? `killed by ${r.signal}` : `exited ${r.exitCode}`
  return r.inputKind ? `waiting for input (${r.inputKind})` : 'running'
}

function statusLine(r) {
  return `[session ${r.id}: ${stateText(r)}] [cursor: ${r.cursor}]`
}

/** What an input was, as a reply may say it: never the text typed while echo was off. */
function sentText(r) {
  if (r.echoOff) return `sent ${r.characters} character${r.characters === 1 ? '' : 's'}, not shown: the program had echo off`
  return `sent ${r.bytes} byte${r.bytes === 1 ? '' : 's'}`
}

function outputText(r, emptyText) {
  const parts = []
  if (r.truncated) parts.push('[older output was dropped from the session\'s buffer; showing what is kept]')
  if (r.spillPath !== null) {
    parts.push(`[output: ${r.lines} lines, ${r.bytes} bytes — too long to show; written in full to ${r.spillPath}; its first and last lines follow]`)
  }
  parts.push(r.output === '' ? emptyText : r.output.replace(/\n$/, ''))
  return parts.join('\n')
}

function quoteCall(name, fields) {
  return `${name} ${JSON.stringify(fields)}`
}

/** `1.2 s`, `340 ms`, `2 min 5 s`. */
function duration(ms) {
  if (ms < 1000) return `${ms} ms`
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`
}

/** `pid 1234 (sleep 300), pid 1240 (node server.js)`. */
function processList(list) {
  return list.map((p) => `pid ${p.pid} (${p.args.length > 0 ? clip(p.args.join(' ').replace(/\s+/g, ' '), 200) : '?'})`).join(', ')
}

function clip(text, n) {
  return text.length > n ? `${text.slice(0, n)}…` : text
}

/** `; it left 2 processes running: pid 1 (a), pid 2 (b); pty_stop {"id":"pty1"} ends them`, or ''. */
function leftoverText(r) {
  const n = r.leftovers.length
  if (n === 0) return ''
  return `it left ${n} process${n === 1 ? '' : 'es'} running: ${processList(r.leftovers)}; ` +
    `${quoteCall('pty_stop', { id: r.id })} ends ${n === 1 ? 'it' : 'them'}`
}

/**
 * A line about an exited session for a read that reports its exit: how long
 * it ran, and what it left running (then it stays for pty_stop) or that it is
 * removed now.
 */
function exitNote(r) {
  if (r.status !== 'exited') return ''
  const ran = r.runtimeMs === null ? '' : `${r.id} ran ${duration(r.runtimeMs)}; `
  const rest = r.leftovers.length > 0 ? leftoverText(r) : 'the session is removed now that its exit was read'
  return `\n[${ran}${rest}]`
}

/** What a person did in the panel since the last reply (never what they typed), or ''. */
function personNote(r) {
  const p = r.person
  if (p === null || p === undefined) return ''
  const parts = []
  if (p.tookOver) parts.push(`a person took ${r.id} over in the live panel`)
  if (p.typed > 0) parts.push(`a person typed ${p.typed} character${p.typed === 1 ? '' : 's'} (not shown)`)
  if (p.handedBack) parts.push(`the person handed ${r.id} back`)
  else if (p.holding) parts.push(`they still hold it: your input is refused until they hand it back`)
  return parts.length === 0 ? '' : `[${parts.join('; ')}]\n`
}

/**
 * For a session that waits for a password: the two ways on — the model
 * sends it (typed while echo is off, it is in no reply and kept nowhere), or
 * the person types it in the live panel (when there is one). Else ''.
 */
function passwordNote(r) {
  if (r.status !== 'running' || r.inputKind !== 'password') return ''
  const send = `send it with ${quoteCall('pty_send', { id: r.id, input: '...<enter>' })} (typed while echo is off, it is in no reply and kept nowhere)`
  const ask = r.panelUrl
    ? `; or ask the person to type it themselves in the live panel at ${r.panelUrl} (Take over, type it, Hand back), then follow with pty_read`
    : ''
  return `[${r.id} waits for a password: ${send}${ask}]\n`
}

/** The state line of a reply, after the password note when there is one. */
function stateLines(r) {
  return `${passwordNote(r)}${statusLine(r)}`
}

/**
 * The text the model reads for a tool's result; `renderScreen(id, text)`
 * turns a `pty_read { screen: true }` screen into the model's text (the
 * registry's `renderContent`: a lean view with its own header line).
 */
function resultText(name, r, renderScreen) {
  switch (name) {
    case 'pty_exec': {
      if (r.status === 'exited') {
        const ran = r.runtimeMs === null ? '' : ` after ${duration(r.runtimeMs)}`
        const left = r.leftovers.length > 0 ? `\n[${leftoverText(r)}]` : ''
        return `${personNote(r)}${outputText(r, '(no output)')}${left}\n[${stateText(r)}${ran}]`
      }
      if (!r.timedOut) {
        // It waits for input: the question is in the output; the model answers it (a line ends with <enter>).
        const example = r.inputKind === 'key' ? '...' : '...<enter>'
        return (
          `${personNote(r)}${outputText(r, '(no output yet)')}\n` +
          `[${stateText(r)}: it keeps running as session ${r.id}; answer with ` +
          `${quoteCall('pty_send', { id: r.id, input: example, wait_ms: 5000 })} or stop it with ${quoteCall('pty_stop', { id: r.id })}]\n` +
          stateLines(r)
        )
      }
      return (
        `${personNote(r)}${outputText(r, '(no output yet)')}\n` +
        `[not finished after ${r.timeoutMs} ms: it keeps running as session ${r.id}; follow it with ` +
        `${quoteCall('pty_read', { id: r.id, since: r.cursor, wait_ms: 2000 })} or stop it with ${quoteCall('pty_stop', { id: r.id })}]\n` +
        stateLines(r)
      )
    }
    case 'pty_start': {
      const started = `Started session ${r.id}: ${[r.command, ...r.args].join(' ')}${r.title ? ` ("${r.title}")` : ''}, pid ${r.pid}.`
      if (r.reason !== undefined) return `${started}\n${outputText(r, '(no output yet)')}${exitNote(r)}\n${stateLines(r)}`
      return `${started} Read its output with ${quoteCall('pty_read', { id: r.id, wait_ms: 1000 })}.`
    }
    case 'pty_read':
      if (r.screen !== undefined) {
        // The rendered screen is a lean view: its own first line has the size, the cursor and what changed.
        return `${personNote(r)}[screen of ${r.id}]\n${renderScreen(r.id, r.screen.text)}${exitNote(r)}\n${stateLines(r)}`
      }
      return `${personNote(r)}${outputText(r, '(no new output)')}${exitNote(r)}\n${stateLines(r)}`
    case 'pty_send': {
      const sent = sentText(r)
      if (r.answer !== undefined) {
        const a = r.answer
        return `${personNote(a)}[${sent}]\n${outputText(a, '(no output)')}${exitNote(a)}\n${stateLines(a)}`
      }
      return `${sent[0].toUpperCase()}${sent.slice(1)} to ${r.id}. Read the answer with ${quoteCall('pty_read', { id: r.id, since: r.cursor, wait_ms: 1000 })}.`
    }
    case 'pty_list':
      if (r.sessions.length === 0) return 'No terminal sessions.'
      return r.sessions
        .map((s) => {
          let state = stateText(s)
          if (s.status === 'exited' && s.runtimeMs !== null) state += ` after ${duration(s.runtimeMs)}`
          if (s.leftovers.length > 0) state += `, left ${processList(s.leftovers)} running`
          if (s.personHolding) state += ', held by a person in the live panel'
          return `${s.id}: ${state}; ${[s.command, ...s.args].join(' ')}${s.title ? ` ("${s.title}")` : ''}; pid ${s.pid}; cursor ${s.cursor}`
        })
        .join('\n')
    case 'pty_stop': {
      const n = r.ended.length
      if (!r.stopped) {
        const ended = n === 0 ? 'nothing it started was still running' : `ended the ${n === 1 ? 'process' : `${n} processes`} it left running: ${processList(r.ended)}`
        return `${personNote(r)}Session ${r.id} had ${describeExit(r, false)}; ${ended}. The session is removed.`
      }
      const also = n === 0 ? '' : ` (with ${n === 1 ? 'a process' : `${n} processes`} that had left its tree: ${processList(r.ended)})`
      return `${personNote(r)}Stopped session ${r.id} (${describeExit(r, false)}); its processes are gone${also} and the session is removed.`
    }
  }
  return JSON.stringify(r)
}

/** Whether a result is an error for the model (a command that failed). */
function resultIsError(name, r) {
  return name === 'pty_exec' && r.status === 'exited' && r.exitCode !== 0
}

/** The text the model reads for an error of a terminal tool: the message, then what to do next. */
function errorText(name, err) {
  const message = String(err.message).trim()
  const parts = [`Error: ${/[.!?]$/.test(message) ? message : `${message}.`}`]
  if (err.code === 'ERR_INVALID_INPUT' && !err.denied && /^input/.test(message)) {
    const tool = toolSpecs(DEFAULTS).find((t) => t.name === name)
    if (tool !== undefined) {
      const fields = Object.keys(tool.fields).map((k) => (tool.required.includes(k) ? k : `${k}?`))
      parts.push(fields.length ? `${name} takes { ${fields.join(', ')} }.` : `${name} takes no fields ({}).`)
    }
  }
  if (err.code === 'ERR_UNKNOWN_HANDLE') parts.push('pty_list shows the sessions; pty_start starts one.')
  return parts.join(' ')
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
