'use strict'
// Model replies: `ToolRegistry#respond()` turns a tool call into the text that
// goes back to the model — the handle's state and content, or, for a call the
// model got wrong (unknown handle, bad field, input to a command that takes
// none, a tool that does not exist), the error with what to do next (the live
// handles, the valid actions and commands, the tools there are). It never
// rejects for a model's mistake; it rejects only for the caller's own bugs
// (no tool registered at all, a name that is not a string).
//
// `Replies#renderContent(handleId, state, options)` is the one place where a
// handle's content (a screen, or a pipes command's output) becomes the text
// the model reads. Given the handle's screen (its cursor and size) it sends a
// lean view (lib/lean-screen.js): only what changed since the last content
// this registry's replies sent for that handle, or the full view when that is
// shorter or the model asked for it (`full: true`). Without a screen (a pipes
// command, `call()`'s own `content`) it is the content as it is.

const { codedError, describe } = require('./errors.js')
const { ScreenViewTracker } = require('./lean-screen.js')

/** How many handles' last screens are kept before those of gone handles are dropped. */
const KEEP_SCREENS = 64

/**
 * Codes that mean the model's call was wrong, or that what it asked for is
 * gone: answered as text with `isError: true`, never a rejection.
 */
const MODEL_ERRORS = new Set([
  'ERR_UNKNOWN_TOOL',
  'ERR_UNKNOWN_HANDLE',
  'ERR_INVALID_INPUT',
  'ERR_LIMIT',
  'ERR_NOT_RUNNING',
  'ERR_SPAWN',
  'ERR_HOST_CRASHED',
])

/** True when `err` is a mistake of the model (or a loss it must hear of), not of the caller. */
function isModelError(err) {
  return err !== null && typeof err === 'object' && MODEL_ERRORS.has(err.code)
}

/** `"a", "b" and "c"`. */
function listing(items) {
  const quoted = items.map((s) => JSON.stringify(s))
  if (quoted.length <= 1) return quoted.join('')
  return `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}`
}

/** The message as a sentence (ends with a full stop or similar). */
function sentence(text) {
  const trimmed = String(text).trim()
  return /[.!?:]$/.test(trimmed) ? trimmed : `${trimmed}.`
}

/**
 * The variants of an interactive tool's input, read from its `oneOf` schema,
 * as the model should write them.
 */
function validCalls(schema) {
  const variants = schema && Array.isArray(schema.oneOf) ? schema.oneOf : []
  const lines = []
  for (const variant of variants) {
    const props = variant.properties || {}
    const action = props.action && props.action.const
    if (typeof action !== 'string') continue
    const required = new Set(variant.required || [])
    const fields = [`"action": "${action}"`]
    for (const key of Object.keys(props)) {
      if (key === 'action') continue
      let value = '…'
      if (key === 'command' && Array.isArray(props.command.enum)) value = props.command.enum.map((c) => JSON.stringify(c)).join(' | ')
      else if (key === 'id') value = '"<handle id>"'
      else if (key === 'input') value = '"<text, keys like <enter>>"'
      else if (key === 'args') value = '["…"]'
      fields.push(`"${key}"${required.has(key) ? '' : '?'}: ${value}`)
    }
    lines.push(`{ ${fields.join(', ')} }`)
  }
  return lines
}

/**
 * Replies for one registry; `registry` answers `names()`, `schema(name)` and
 * `list()`; `screenOf(id)` gives a terminal handle's screen now (cursor, size;
 * null for a pipes command or an unknown handle).
 */
class Replies {
  #registry
  #screenOf
  /** The last screen sent to the model, per handle or session id. */
  #views = new ScreenViewTracker()

  constructor(registry, screenOf) {
    this.#registry = registry
    this.#screenOf = screenOf
  }

  /**
   * The text of a handle's content, as the model reads it: the settled screen
   * of a terminal command, or the output of a pipes command. The one place a
   * `ToolState`'s content (and a terminal session's screen, from
   * `pty_read { screen: true }`, as a running state) is turned into text for
   * the model; only `respond()` calls it, never `call()`.
   *
   * With `options.screen` (the screen the content was read from: `cursor`,
   * `cols`, `rows`, `altScreen`) a running state's content is sent lean: a
   * view of what changed since the content last sent for `handleId` (see
   * `screenView`), the full view when that is not longer, or with
   * `options.full`. The rows are the content's own, so the model's rebuilt
   * screen is exactly what `call()` returned. A finished terminal command's
   * final screen is sent the same way when it is a partial view of the last
   * screen sent (see `#finalView`), else whole; then the handle's screens
   * are forgotten.
   */
  renderContent(handleId, state, options) {
    const screen = options && options.screen
    if (screen && state.state === 'running' && typeof state.content === 'string') {
      const lines = state.content.split('\n')
      if (lines.length <= screen.rows) {
        while (lines.length < screen.rows) lines.push('')
        const view = this.#views.view(
          handleId,
          { lines, cols: screen.cols, rows: screen.rows, cursor: screen.cursor, altScreen: screen.altScreen },
          { full: Boolean(options.full) },
        )
        this.#prune()
        return view.text
      }
    }
    if (state.state !== 'running') {
      const final = this.#finalView(handleId, state)
      this.#views.forget(handleId)
      if (final !== null) return final
    } else if (screen) {
      this.#views.forget(handleId)
    }
    let content
    if (state.state === 'running') content = state.content
    else content = state.result.ok ? state.result.content : null
    if (content === null || content === undefined) return '(no output yet)'
    const text = content.replace(/\n+$/, '')
    return text === '' ? '(empty)' : text
  }

  /**
   * A finished terminal command's final screen as a view of the last screen
   * sent for it — the same rows, size, cursor and alternate screen but for
   * what the content changed (the program has exited: its cursor is not
   * told) — when that is a partial view shorter than the content; null
   * otherwise (the content is then sent whole: a program that left the
   * alternate screen shows a new one).
   */
  #finalView(handleId, state) {
    const last = this.#views.last(handleId)
    const { result } = state
    if (last === null || !result.ok || typeof result.content !== 'string') return null
    const lines = result.content.split('\n')
    if (lines.length > last.rows) return null
    while (lines.length < last.rows) lines.push('')
    const view = this.#views.view(handleId, { ...last, lines })
    return view.kind === 'full' || view.text.length >= result.content.length ? null : view.text
  }

  /** Forgets the last screen sent for `id` (its next screen is sent whole). */
  forgetScreen(id) {
    this.#views.forget(id)
  }

  /** Drops the screens of handles that are gone, once many are kept. */
  #prune() {
    if (this.#views.size <= KEEP_SCREENS) return
    let live
    try {
      live = new Set(this.#registry.list().map((h) => h.id))
    } catch {
      return
    }
    for (const key of this.#views.keys()) if (!live.has(key)) this.#views.forget(key)
  }

  /**
   * The reply to a `ToolState` `call()` resolved with; `options.full` (a
   * fetch with `full: true`) sends the whole screen.
   */
  forState(state, options) {
    const id = state.id
    if (state.state === 'running') {
      let screen = null
      try {
        screen = this.#screenOf ? this.#screenOf(id) : null
      } catch {
        screen = null
      }
      const full = Boolean(options && options.full)
      // What the program waits for, when it does (a prompt, a password, keys): the model answers with apply.
      const what = state.inputKind ? `waiting for input (${state.inputKind})` : 'running'
      const refusals = state.refusals === undefined ? '' : `\n${state.refusals.join('\n')}`
      return { text: `[${id} ${what}]\n${this.renderContent(id, state, { screen, full })}${refusals}`, isError: false, state }
    }
    const { result } = state
    // The sandbox's refusals the output shows, one line each, after it.
    const refused = (text) => (state.refusals === undefined ? text : [text, ...state.refusals].join('\n'))
    if (result.ok) {
      return {
        text: refused(`[${id} finished; the handle is closed]\n${this.renderContent(id, state)}`),
        isError: false,
        state,
      }
    }
    const { message, trace, transient } = result.error
    const lines = [`[${id} failed: ${message}; the handle is closed${transient ? '; retrying may help' : ''}]`]
    if (trace.length > 0) lines.push(trace.join('\n'))
    return { text: refused(lines.join('\n')), isError: true, state }
  }

  /** The reply to an error `call()` rejected with, for tool `name`. */
  forError(name, err) {
    return { text: this.errorText(name, err), isError: true }
  }

  /** The text for an error: the message, then what the model can do next. */
  errorText(name, err) {
    const parts = [`Error: ${sentence(err.message)}`]
    const next = this.#nextStep(name, err)
    if (next) parts.push(next)
    return parts.join(' ')
  }

  #nextStep(name, err) {
    const registry = this.#registry
    switch (err.code) {
      case 'ERR_UNKNOWN_HANDLE':
        // The message lists the live handles.
        return 'Use a live handle, or spawn the command again for a new one.'
      case 'ERR_LIMIT':
        return this.liveHandles('abort one you no longer need')
      case 'ERR_INVALID_INPUT': {
        // A field error gets the valid shapes; the other messages (input to a
        // command without input, to a stopped handle) already say what to do.
        if (!/^input\b|unknown command/.test(err.message)) return ''
        let schema
        try {
          schema = registry.schema(name)
        } catch {
          return ''
        }
        if (schema && Array.isArray(schema.oneOf)) {
          return `Valid calls of ${name}:\n${validCalls(schema).join('\n')}`
        }
        return ''
      }
      default:
        return ''
    }
  }

  /** `Live handles: h1 (git stage, running), …` or how to start one. */
  liveHandles(advice) {
    const handles = this.#registry.list()
    if (handles.length === 0) return 'There are no live handles; start one with a spawn call (or pty_start for a terminal session).'
    const text = handles
      .map((h) => `${h.id} (${h.tool} ${h.command}${h.args.length ? ' ' + h.args.join(' ') : ''}, ${h.state})`)
      .join(', ')
    return `Live handles: ${text}${advice ? `; ${advice}` : ''}.`
  }
}

/** The caller's bug of calling respond() on a registry without tools. */
function noTools() {
  return codedError('ERR_UNKNOWN_TOOL', 'respond() was called on a registry without any tool; register() one first')
}

/** A model's input given as a JSON string, parsed; throws ERR_INVALID_INPUT when it is not JSON. */
function parseInput(input) {
  if (typeof input !== 'string') return input
  try {
    return JSON.parse(input)
  } catch (err) {
    throw codedError('ERR_INVALID_INPUT', `input is a string but not JSON: ${err.message}`)
  }
}

/** ERR_INVALID_INPUT unless `input` is a plain object. */
function checkInputObject(input, example) {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw codedError('ERR_INVALID_INPUT', `input must be an object such as ${example}, got ${describe(input)}`)
  }
}

module.exports = { Replies, isModelError, noTools, parseInput, checkInputObject, sentence, listing }
