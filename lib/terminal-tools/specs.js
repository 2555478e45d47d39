'use strict'
// The terminal tools as data: the six tools (name, permission class, title,
// description, input fields), the set's default limits, and each tool's
// definition in the forms the model APIs want — the input schema (Anthropic,
// MCP), the strict schema (OpenAI), MCP annotations. The descriptions quote
// the limits of the set they are made for, so a model reads the numbers that
// hold.

const waits = require('./waits.js')

/** The set's limits and terminal size where its options do not say. */
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
/** The smallest `max_chars` a call may ask for. */
const MIN_MAX_CHARS = 200

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

module.exports = { DEFAULTS, MIN_MAX_CHARS, toolSpecs, annotationsFor, inputSchema, strictSchema, definitionOf }
