'use strict'
// The isolated host's own process (see lib/host.js, which forks it): one
// ToolRegistry, driven by requests over the IPC channel. Replies carry the
// handle list when it changed; events go out in batches, in order.
//
// When the agent goes away (the channel closes), the host kills everything it
// started — the registry's process trees and every process carrying its
// PTYPILOT_HOST token — and exits.
//
// Test switches (environment, read at start; for ptypilot's own tests):
//   PTYPILOT_HOST_TEST_ABORT_ON=<text>  abort() (SIGABRT, as a native crash)
//                                       when a program's output contains <text>
//   PTYPILOT_HOST_TEST_HANG=start|call  block the JS thread for good before
//                                       saying ready, or at the first call

if (typeof process.send !== 'function') {
  process.stderr.write('ptypilot: lib/host-process.js is started by the isolated host (lib/host.js), not by hand\n')
  process.exit(2)
}

const { ToolRegistry } = require('./tool-registry.js')
const { toolSetFromData } = require('./terminal-tools.js')
const { MARKER, fromError, killSurvivors } = require('./host.js')

const abortOn = process.env.PTYPILOT_HOST_TEST_ABORT_ON || null
const hang = process.env.PTYPILOT_HOST_TEST_HANG || null
const kFirstIds = Symbol.for('ptypilot.firstIds')

function blockForever() {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
}

/** Network questions sent to the agent's process, by number → their resolver. */
const questions = new Map()
let nextQuestion = 1

let registry = null
let wantOutput = false
let lastList = ''
let outbox = []

function send(message) {
  if (process.connected) process.send(message)
}

/** The handle list, when it changed since it was last sent. */
function listIfChanged() {
  const list = registry.list()
  const key = JSON.stringify(list)
  if (key === lastList) return undefined
  lastList = key
  return list
}

function flush() {
  const events = outbox
  outbox = []
  const changes = events.some((e) => e.type !== 'output')
  const message = { t: 'ev', e: wantOutput ? events : events.filter((e) => e.type !== 'output') }
  if (changes) {
    const h = listIfChanged()
    if (h !== undefined) message.h = h
  }
  if (message.e.length > 0 || message.h !== undefined) send(message)
}

function onEvent(event) {
  if (abortOn !== null && event.type === 'output' && event.chunk.includes(abortOn)) process.abort()
  if (outbox.length === 0) queueMicrotask(flush)
  outbox.push(event)
}

function applyOp([kind, value]) {
  switch (kind) {
    case 'register':
      return registry.register(value)
    case 'registerToolSet':
      return registry.register(toolSetFromData(value))
    case 'unregister':
      return registry.unregister(value)
    default:
      throw new Error(`unknown operation ${kind}`)
  }
}

function init(message) {
  wantOutput = message.wantOutput
  const options = { ...message.options, onEvent }
  options[kFirstIds] = message.firstIds
  registry = new ToolRegistry(options)
  if (message.askNetwork) {
    // The sandbox's proxy asks about hosts its allow list does not name: the agent's process
    // asks the person (lib/host.js, `askNetwork`) and answers.
    require('./network.js').setNetworkAsker(
      ({ host, port }) =>
        new Promise((resolve) => {
          const n = nextQuestion++
          questions.set(n, resolve)
          send({ t: 'ask', n, host, port })
        }),
    )
  }
  for (const op of message.ops) {
    try {
      applyOp(op)
    } catch (err) {
      process.emitWarning(`replaying ${op[0]}() failed: ${err.message}`, { code: 'PTYPILOT_HOST' })
    }
  }
  if (hang === 'start') blockForever()
  send({ t: 'ready', pid: process.pid })
}

async function request({ n, m, a }) {
  let reply
  try {
    if (hang === 'call' && (m === 'call' || m === 'respond')) blockForever()
    let value
    if (m === '#op') {
      value = applyOp(a[0])
    } else {
      const method = registry[m]
      if (typeof method !== 'function' || m === 'constructor') throw new Error(`the registry has no method ${m}()`)
      value = await method.apply(registry, a)
    }
    reply = { t: 'res', n, v: value }
  } catch (err) {
    reply = { t: 'res', n, e: fromError(err) }
  }
  // Events that came before the reply go out before it.
  if (outbox.length > 0) flush()
  const h = listIfChanged()
  if (h !== undefined) reply.h = h
  send(reply)
}

process.on('message', (message) => {
  switch (message.t) {
    case 'init':
      return init(message)
    case 'req':
      return request(message)
    case 'ping':
      return send({ t: 'pong' })
    case 'answer': {
      const resolve = questions.get(message.n)
      questions.delete(message.n)
      return resolve?.(message.allow)
    }
  }
})

process.on('disconnect', () => {
  // index.js kills the registry's process trees on exit; the token scan gets
  // what left them.
  const token = (process.env[MARKER] || '').split(':').pop()
  if (token) killSurvivors(token, [])
  process.exit(0)
})
