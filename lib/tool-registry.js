'use strict'
// ToolRegistry (interactive tools an LLM drives with spawn / fetch / apply /
// abort calls, tool sets such as the terminal tools beside them, replies
// rendered for the model) and gitTool (the built-in git tool), with their
// argument checks. `isolation: 'process'` hands over to lib/host.js. The
// contract is in lib/tool-registry.d.ts.

const { codedError, invalidArg, describe } = require('./errors.js')
const { jsonValue, own, read } = require('./args.js')
const native = require('./addon.js')
const {
  guarded,
  checkFunction,
  checkOptionsObject,
  checkMillis,
  rejectUnknown,
  checkString,
  baseEnv,
} = require('./common.js')
const terminal = require('./terminal-tools.js')
const { Replies, isModelError, noTools } = require('./respond.js')
const { PtySession } = require('./pty-session.js')
const { Process } = require('./process.js')
const { sandboxRefusals } = require('./sandbox.js')

const DEFINITION_FORMATS = ['anthropic', 'openai', 'openai-responses', 'mcp']

/**
 * Tools an LLM drives with spawn / fetch / apply / abort calls, and tool sets
 * (the terminal tools) beside them. See lib/tool-registry.d.ts.
 */
class ToolRegistry {
  #native
  /** Tool sets' sessions by tool name (several names share one TerminalSessions). */
  #sets = new Map()
  #emit
  #cwd
  #firstIds
  /** Listeners of the handles' events besides onEvent (a tool set's live panel). */
  #taps = new Set()
  #replies = new Replies(this, (id) => this.#native.screen(id))

  constructor(options) {
    checkOptionsObject(options, 'options')
    // `isolation: 'process'`: the registry runs in a child process (lib/host.js).
    if (options && read(options, 'isolation', 'options') !== undefined) {
      const { isolation, ...rest } = own(options, 'options')
      if (isolation === 'process') {
        return require('./host.js').isolatedRegistry(options, {
          ToolRegistry,
          Process,
          guarded,
          invalidArg,
          isToolSet: terminal.isToolSet,
          toolSetData: terminal.toolSetData,
          checkAllowed: terminal.checkAllowed,
        })
      }
      if (isolation !== 'none') throw invalidArg(`options.isolation must be 'none' or 'process', got ${describe(isolation)}`)
      options = rest
    }
    const onEvent = options ? read(options, 'onEvent', 'options') : undefined
    checkFunction(onEvent, 'options.onEvent')
    const emit = guarded('onEvent', onEvent)
    const taps = this.#taps
    // The handles' events go to onEvent, and to the live panel of a tool set (a tap) when there is one.
    const pump = emit === undefined
      ? undefined
      : (events) => {
          events.forEach(emit)
          for (const tap of taps) events.forEach(tap)
        }
    const firstIds = options ? options[Symbol.for('ptypilot.firstIds')] : undefined
    this.#native = new native.NativeRegistry(options, pump, baseEnv(), firstIds ? firstIds.h : undefined)
    this.#emit = emit
    this.#cwd = options ? read(options, 'cwd', 'options') : undefined
    this.#firstIds = firstIds
  }

  register(tool) {
    if (tool === null || typeof tool !== 'object' || Array.isArray(tool)) {
      throw invalidArg(`register() takes a tool object ({ name, commands }) or a tool set (terminalTools()), got ${describe(tool)}`)
    }
    if (terminal.isToolSet(tool)) {
      const taken = tool.tools.map((t) => t.name).filter((name) => this.#hasTool(name))
      if (taken.length > 0) {
        throw invalidArg(`a tool named "${taken[0]}" is already registered; unregister it first`)
      }
      const sessions = new terminal.TerminalSessions(
        tool,
        {
          emit: this.#emit,
          cwd: this.#cwd,
          firstId: this.#firstIds ? this.#firstIds.pty : undefined,
          // The interactive tools' handles, for the live panel (their events only with an onEvent).
          handles: {
            list: () => this.#native.list(),
            screen: (id) => this.#native.screen(id),
            subscribe: (fn) => {
              this.#taps.add(fn)
              return () => this.#taps.delete(fn)
            },
            live: this.#emit !== undefined,
          },
        },
        PtySession,
      )
      for (const t of tool.tools) this.#sets.set(t.name, sessions)
      return
    }
    const value = jsonValue(tool, 'tool', 'ERR_INVALID_ARG')
    if (value && typeof value.name === 'string' && this.#sets.has(value.name)) {
      throw invalidArg(`a tool named "${value.name}" is already registered; unregister it first`)
    }
    this.#native.register(value)
  }

  #hasTool(name) {
    return this.#sets.has(name) || this.#native.names().includes(name)
  }

  unregister(name) {
    checkString(name, 'name')
    const sessions = this.#sets.get(name)
    if (sessions !== undefined) {
      this.#sets.delete(name)
      // The last tool of a set takes its sessions (and its live panel) with it.
      if (sessions.drop(name)) sessions.close().catch(() => {})
      return true
    }
    return this.#native.unregister(name)
  }

  names() {
    return [...this.#native.names(), ...this.#sets.keys()].sort()
  }

  schema(name) {
    checkString(name, 'name')
    const sessions = this.#sets.get(name)
    if (sessions !== undefined) return structuredClone(sessions.tool(name).inputSchema)
    return this.#native.schema(name)
  }

  definitions(format) {
    if (format !== undefined && !DEFINITION_FORMATS.includes(format)) {
      throw invalidArg(`definitions() format must be one of ${DEFINITION_FORMATS.map((f) => `'${f}'`).join(', ')}, got ${describe(format)}`)
    }
    const all = this.#native.definitions(format)
    for (const [name, sessions] of this.#sets) all.push(terminal.definitionOf(sessions.tool(name), format))
    const nameOf = (d) => (d.function ? d.function.name : d.name)
    return all.sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0))
  }

  async call(name, input) {
    checkString(name, 'name')
    const sessions = this.#sets.get(name)
    if (sessions !== undefined) return sessions.call(name, input)
    if (this.#sets.size > 0 && !this.#hasTool(name)) {
      throw codedError('ERR_UNKNOWN_TOOL', `no tool named ${JSON.stringify(name)} is registered (registered: ${this.names().join(', ')})`)
    }
    if (typeof input === 'string') {
      // Some providers hand over tool arguments as a JSON string.
      try {
        input = JSON.parse(input)
      } catch (err) {
        throw codedError('ERR_INVALID_INPUT', `input is a string but not JSON: ${err.message}`)
      }
    }
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw codedError('ERR_INVALID_INPUT', `input must be an object such as { "action": "spawn", ... }, got ${describe(input)}`)
    }
    return withRefusals(await this.#native.call(name, jsonValue(input, 'input', 'ERR_INVALID_INPUT')), this.#cwd)
  }

  async respond(name, input) {
    checkString(name, 'name')
    if (this.#sets.size === 0 && this.#native.names().length === 0) throw noTools()
    // `full: true` asks for the whole screen instead of a lean view.
    const full = wantsFull(input)
    const sessions = this.#sets.get(name)
    if (sessions !== undefined) {
      try {
        const result = await sessions.call(name, input)
        // A screen goes to the model through the one content renderer: a lean view of what changed.
        let renderScreen
        if (name === 'pty_read' && result.screen !== undefined) {
          const { screen } = result
          renderScreen = (id, text) => this.#replies.renderContent(id, { id, state: 'running', content: text }, { screen, full })
        } else if (name === 'pty_stop') {
          this.#replies.forgetScreen(result.id)
        }
        return { text: terminal.resultText(name, result, renderScreen), isError: terminal.resultIsError(name, result), result }
      } catch (err) {
        if (!isModelError(err)) throw err
        return { text: terminal.errorText(name, err), isError: true }
      }
    }
    let state
    try {
      state = await this.call(name, input)
    } catch (err) {
      if (!isModelError(err)) throw err
      return this.#replies.forError(name, err)
    }
    return this.#replies.forState(state, { full })
  }

  list() {
    const all = this.#native.list()
    for (const sessions of new Set(this.#sets.values())) all.push(...sessions.list())
    return all
  }

  async wait(id, options) {
    checkString(id, 'id')
    checkOptionsObject(options, 'options')
    const { timeoutMs, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', ['timeoutMs'])
    checkMillis(timeoutMs, 'options.timeoutMs')
    for (const sessions of new Set(this.#sets.values())) {
      if (sessions.has(id)) return sessions.wait(id, timeoutMs)
    }
    return withRefusals(await this.#native.wait(id, timeoutMs), this.#cwd)
  }

  async abortAll() {
    await Promise.all([this.#native.abortAll(), ...[...new Set(this.#sets.values())].map((s) => s.stopAll())])
  }

  async [Symbol.asyncDispose]() {
    await this.abortAll()
    // A tool set's live panel closes with the registry.
    await Promise.all([...new Set(this.#sets.values())].map((s) => s.close()))
  }
}

/**
 * A native `ToolState` with the sandbox's refusals its output shows: a sandboxed program's state
 * comes with its sandbox (where it may write, what stays read-only, the proxy's refusals), which
 * becomes `refusals` (one line each, "the sandbox refused: …"; absent when there are none).
 */
function withRefusals(state, cwd) {
  if (state === null || typeof state !== 'object' || state.sandbox === undefined) return state
  const { sandbox, ...rest } = state
  const text = rest.state === 'running'
    ? rest.content ?? ''
    : rest.result.ok ? rest.result.content ?? '' : rest.result.error.trace.join('\n')
  const refusals = sandboxRefusals(text, sandbox, { cwd: cwd ?? process.cwd(), network: sandbox.networkRefusals })
  return refusals.length > 0 ? { ...rest, refusals } : rest
}

/** Whether a tool call's input (an object or JSON text) has `full: true`; anything unreadable is false. */
function wantsFull(input) {
  try {
    const value = typeof input === 'string' ? JSON.parse(input) : input
    return value !== null && typeof value === 'object' && value.full === true
  } catch {
    return false
  }
}

/**
 * The git tool: `stage` (git add --patch), `rebase` (git rebase --interactive),
 * both in a terminal and accepting input, and `log` (git log --oneline -20, pipes).
 */
function gitTool() {
  return {
    name: 'git',
    description:
      'Interactive git in a terminal: stage changes hunk by hunk, rebase interactively, read the recent log. ' +
      "In a sandbox git records what it does (index, objects, refs, logs) but cannot change the repository's " +
      'configuration, hooks, info/, commondir, submodules or worktrees: such writes (git config, --output ' +
      'into .git, a hook planted by rebase -x) are refused.',
    commands: [
      {
        name: 'stage',
        description:
          'git add --patch [paths]: shows each changed hunk and asks "Stage this hunk [y,n,q,a,d,...]?". ' +
          'Answer with apply, e.g. "y<enter>" to stage the hunk, "n<enter>" to skip it, "q<enter>" to quit.',
        program: ['git', 'add', '--patch'],
        pty: true,
        acceptsInput: true,
        argsSchema: { type: 'array', items: { type: 'string' }, description: 'Paths to limit staging to.' },
      },
      {
        name: 'rebase',
        description:
          'git rebase --interactive <base> (args, e.g. ["HEAD~3"]): the todo list opens in the terminal editor; ' +
          'edit it with keys (e.g. in vim: "cw" to change a word, "<esc>:wq<enter>" to save) to continue.',
        program: ['git', 'rebase', '--interactive'],
        pty: true,
        acceptsInput: true,
        argsSchema: { type: 'array', items: { type: 'string' }, description: 'Upstream or base commit and options.' },
      },
      {
        name: 'log',
        description: 'git log --oneline -20 [args]: the last commits, one per line.',
        program: ['git', 'log', '--oneline', '-20'],
        pty: false,
        acceptsInput: false,
        argsSchema: { type: 'array', items: { type: 'string' }, description: 'Extra git log arguments.' },
      },
    ],
  }
}

module.exports = { ToolRegistry, gitTool }
