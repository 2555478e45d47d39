'use strict'
// The text the model reads: a tool's typed result as a reply (`resultText`:
// the output, then the session's state line and cursor, with notes on a
// password prompt, an exit and what it left running, and what a person did
// in the live panel), whether a result counts as an error (`resultIsError`),
// and an error as a reply that says what to do next (`errorText`). Input
// typed while echo was off is never in a reply.

const waits = require('./waits.js')
const { DEFAULTS, toolSpecs } = require('./specs.js')

/** An exit as a reply says it (`exited with code N`, `killed by SIG`, `still running`); `capital`: capitalised. */
function describeExit(exit, capital) {
  const text = exit === null ? 'still running' : exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.exitCode}`
  return capital ? text[0].toUpperCase() + text.slice(1) : text
}

/** The characters an input types, named keys not counted (`"hunter2<enter>"`: 7). */
function sentCharacters(input) {
  return [...waits.typedText(input)].length
}

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
  // What the sandbox refused, one line each (lib/sandbox.js).
  if (r.refusals !== undefined) parts.push(...r.refusals)
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
      const sandbox = r.sandbox ? `, in the sandbox (${r.sandbox})` : ''
      const started = `Started session ${r.id}: ${[r.command, ...r.args].join(' ')}${r.title ? ` ("${r.title}")` : ''}, pid ${r.pid}${sandbox}.`
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
          const sandbox = s.sandbox ? `; sandbox ${s.sandbox}` : ''
          return `${s.id}: ${state}; ${[s.command, ...s.args].join(' ')}${s.title ? ` ("${s.title}")` : ''}; pid ${s.pid}; cursor ${s.cursor}${sandbox}`
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

module.exports = { describeExit, sentCharacters, stateText, resultText, resultIsError, errorText }
