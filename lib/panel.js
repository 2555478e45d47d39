'use strict'
// The live panel: a small web server on 127.0.0.1 whose page shows terminal
// sessions live, each drawn by xterm.js in its own tab with its state
// (running, waiting for input and its kind, exited N), and lets a person take
// one over — type, paste, resize — and hand it back. `ptypilot mcp --web`
// and the terminal tools' `web` option serve their sessions with it;
// examples/web serves a TaskRunner's tasks with it.
//
// What it shows comes from a *source* (the terminal tools' `panelSource()`,
// or the example's task runner):
//
//   entries()                    the sessions now: { id, kind, name, state,
//                                stateText, exitCode, signal, input, holder,
//                                canTake, cols, rows, ... }
//   subscribe(fn) -> unsubscribe fn({ type: 'entry', entry }),
//                                fn({ type: 'removed', id }),
//                                fn({ type: 'output', id, chunk })  chunk: the
//                                program's output (string or bytes, escapes kept)
//   take(id, page) / release(id, page) / input(id, page, data) /
//   resize(id, page, cols, rows) a person's actions; `page` names the page
//   and optionally:
//   watched(on)                  pages began (true) or stopped (false) watching:
//                                keep `input` current only meanwhile
//   pause(id) / resume(id)       hold a session while a page is behind
//                                (without them a page that falls behind skips
//                                output and is redrawn from the kept output)
//   presets, start(request) -> id, cancel(id)   a page may start tasks
//
// Access: the page, its files and its WebSocket live under a path made of a
// random token (`/<token>/`), compared in constant time; a request with a
// Host header other than this server's address is refused (DNS rebinding),
// and so is a WebSocket whose Origin is not this server's page. Whoever has
// the URL can type into sessions a person took over: it is printed for the
// person only (ptypilot mcp writes it to stderr and as an MCP log message).
//
// The wire is one WebSocket per page (the `ws` package). Output goes as
// binary frames: a kind byte (0 live, 1 replay), the entry id, a newline, then
// the output's bytes; xterm.js decodes UTF-8 itself. Everything else is JSON.
// Server to page: `hello` (the page's own name, the entries, and whether it
// may start tasks; replay frames of their kept output follow), `entry`,
// `removed`, `reset` (the page skipped output: clear, replay follows) and
// `refused` (an action that was not allowed, and why). Page to server:
// `take`, `release`, `input`, `resize`, `ack` (bytes drawn), `start`,
// `cancel`.
//
// The sessions answer the programs' terminal queries themselves (cursor
// position, device attributes); the page never does (it swallows the queries
// before xterm.js can answer), so input reaches a program only from a person's
// keys, and only from the page holding the session.

const crypto = require('node:crypto')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { codedError, describe, invalidArg } = require('./errors.js')
const { own } = require('./args.js')

/** Output kept per session for a page that opens (or falls behind) later. */
const REPLAY_BYTES = 256 * 1024
/** Unacknowledged bytes of one session for one page beyond which the page is behind ... */
const HIGH_WATER = 512 * 1024
/** ... and below which it has caught up. */
const LOW_WATER = 128 * 1024
/** Binary frame kinds. */
const LIVE = 0
const REPLAY = 1
const PAGE_DIR = path.join(__dirname, 'panel')

/** The files of the page, by their path under the token; xterm.js comes from node_modules (no CDN). */
function pageFiles() {
  return {
    '': [path.join(PAGE_DIR, 'index.html'), 'text/html; charset=utf-8'],
    'app.js': [path.join(PAGE_DIR, 'app.js'), 'text/javascript; charset=utf-8'],
    'vendor/xterm.mjs': [require.resolve('@xterm/xterm/lib/xterm.mjs'), 'text/javascript; charset=utf-8'],
    'vendor/xterm.css': [require.resolve('@xterm/xterm/css/xterm.css'), 'text/css; charset=utf-8'],
    'vendor/addon-fit.mjs': [require.resolve('@xterm/addon-fit/lib/addon-fit.mjs'), 'text/javascript; charset=utf-8'],
  }
}

function validSize(cols, rows) {
  return Number.isInteger(cols) && Number.isInteger(rows) && cols >= 2 && rows >= 2 && cols <= 1000 && rows <= 500
}

function checkSource(source) {
  if (source === null || typeof source !== 'object') throw invalidArg(`startPanel() needs options.source, an object, got ${describe(source)}`)
  for (const method of ['entries', 'subscribe', 'take', 'release', 'input', 'resize']) {
    let value
    try {
      value = source[method]
    } catch (err) {
      throw invalidArg(`options.source.${method} cannot be read: ${err && err.message ? err.message : String(err)}`)
    }
    if (typeof value !== 'function') throw invalidArg(`options.source has no ${method}() method`)
  }
}

/**
 * Starts the panel server for `source`. Options: `port` (0: any free one),
 * `token` (default: 24 random bytes, base64url), `title` (of the page).
 * Resolves with `{ url, port, token, close }` once it listens; the server
 * does not keep the process alive.
 */
async function startPanel(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidArg(`startPanel() takes options { source, port?, token?, title? }, got ${describe(options)}`)
  }
  const { source, port = 0, token = crypto.randomBytes(24).toString('base64url'), title = 'ptypilot', ...rest } = own(options, 'options')
  for (const key of Object.keys(rest)) throw invalidArg(`unknown option "${key}" of startPanel() (known: source, port, token, title)`)
  checkSource(source)
  if (typeof title !== 'string') throw invalidArg(`title must be a string, got ${describe(title)}`)
  if (!Number.isSafeInteger(port) || port < 0 || port > 65535) throw invalidArg(`port must be an integer from 0 to 65535, got ${describe(port)}`)
  if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{16,128}$/.test(token)) {
    throw invalidArg(`token must be 16 to 128 letters, digits, '-' or '_', got ${describe(token)}`)
  }
  // Loaded only when a panel starts: the rest of ptypilot does not need them.
  const { WebSocketServer } = require('ws')
  const files = pageFiles()
  const prefix = `/${token}/`
  const host = '127.0.0.1'

  /** Page connection → its state: { name, unacked: Map(id → bytes), behind: Set(id) }. */
  const pages = new Map()
  let nextPage = 1
  /** id → { chunks: Buffer[], bytes } kept output. */
  const kept = new Map()
  /** id → pages that are behind on it (with `pause`: the session is held while any is). */
  const behind = new Map()

  const send = (ws, message) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message))
  }
  const frame = (kind, id, bytes) => Buffer.concat([Buffer.from([kind]), Buffer.from(`${id}\n`), bytes])
  const sendOutput = (ws, kind, id, bytes) => {
    const page = pages.get(ws)
    if (page === undefined || ws.readyState !== ws.OPEN) return
    if (kind === LIVE && page.behind.has(id) && typeof source.pause !== 'function') return // skipped: redrawn once it caught up
    ws.send(frame(kind, id, bytes))
    const total = (page.unacked.get(id) ?? 0) + bytes.length
    page.unacked.set(id, total)
    if (total > HIGH_WATER) setBehind(ws, id, true)
  }
  const setBehind = (ws, id, on) => {
    const page = pages.get(ws)
    if (page === undefined) return
    const set = behind.get(id) ?? new Set()
    behind.set(id, set)
    const was = set.has(ws)
    if (was === on) return
    if (on) {
      set.add(ws)
      page.behind.add(id)
      if (set.size === 1 && typeof source.pause === 'function') source.pause(id)
      return
    }
    set.delete(ws)
    page.behind.delete(id)
    if (typeof source.pause === 'function') {
      if (set.size === 0) source.resume(id)
      return
    }
    // It skipped output: redraw it from what is kept.
    page.unacked.set(id, 0)
    send(ws, { type: 'reset', id })
    replayTo(ws, id)
  }
  const replayTo = (ws, id) => {
    const k = kept.get(id)
    if (k !== undefined) for (const chunk of k.chunks) sendOutput(ws, REPLAY, id, chunk)
  }
  const broadcast = (message) => {
    for (const ws of pages.keys()) send(ws, message)
  }

  const unsubscribe = source.subscribe((event) => {
    if (event.type === 'output') {
      const bytes = typeof event.chunk === 'string' ? Buffer.from(event.chunk) : Buffer.from(event.chunk)
      const k = kept.get(event.id) ?? { chunks: [], bytes: 0 }
      k.chunks.push(bytes)
      k.bytes += bytes.length
      while (k.chunks.length > 1 && k.bytes - k.chunks[0].length >= REPLAY_BYTES) k.bytes -= k.chunks.shift().length
      kept.set(event.id, k)
      for (const ws of pages.keys()) sendOutput(ws, LIVE, event.id, bytes)
      return
    }
    if (event.type === 'removed') {
      kept.delete(event.id)
      behind.delete(event.id)
      for (const page of pages.values()) {
        page.unacked.delete(event.id)
        page.behind.delete(event.id)
      }
    }
    broadcast(event)
  })

  const safeEqual = (a, b) => a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b))
  /** The path under the token, or null when the token is wrong. */
  const under = (url) => {
    const pathname = new URL(url ?? '/', 'http://x').pathname
    const slash = pathname.indexOf('/', 1)
    if (slash === -1) return null
    return safeEqual(pathname.slice(0, slash + 1), prefix) ? pathname.slice(slash + 1) : null
  }
  let address = null
  const hostAllowed = (req) => req.headers.host === `${host}:${address.port}` || req.headers.host === `localhost:${address.port}`

  const server = http.createServer((req, res) => {
    if (!hostAllowed(req)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden\n')
      return
    }
    const rest = under(req.url)
    const file = rest !== null && Object.hasOwn(files, rest) ? files[rest] : undefined
    if (req.method !== 'GET' || file === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
      return
    }
    let body = fs.readFileSync(file[0])
    if (rest === '') body = Buffer.from(String(body).replaceAll('{{title}}', escapeHtml(title)))
    res
      .writeHead(200, {
        'content-type': file[1],
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
      })
      .end(body)
  })

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 })
  server.on('upgrade', (req, socket, head) => {
    const origin = req.headers.origin
    if (!hostAllowed(req) || under(req.url) !== 'ws' || origin !== `http://${req.headers.host}`) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
  })

  wss.on('connection', (ws) => {
    const name = `page${nextPage++}`
    pages.set(ws, { name, unacked: new Map(), behind: new Set() })
    if (pages.size === 1 && typeof source.watched === 'function') source.watched(true)
    const startable = typeof source.start === 'function'
    send(ws, { type: 'hello', page: name, title, entries: source.entries(), presets: startable ? [...(source.presets ?? [])] : [], canStart: startable })
    for (const id of kept.keys()) replayTo(ws, id)
    ws.on('close', () => {
      const page = pages.get(ws)
      if (page === undefined) return // the panel closed
      pages.delete(ws)
      if (pages.size === 0 && typeof source.watched === 'function') source.watched(false)
      for (const id of [...page.behind]) {
        const set = behind.get(id)
        if (set === undefined) continue
        set.delete(ws)
        if (set.size === 0 && typeof source.resume === 'function') source.resume(id)
      }
      // Closing the page hands back what it held; the sessions run on.
      for (const entry of source.entries()) {
        if (entry.holder === name) {
          try {
            source.release(entry.id, name)
          } catch {
            // Gone meanwhile.
          }
        }
      }
    })
    ws.on('message', (raw, isBinary) => {
      let message
      try {
        if (isBinary) throw new Error('binary')
        message = JSON.parse(String(raw))
      } catch {
        send(ws, { type: 'refused', id: null, message: 'messages must be JSON text' })
        return
      }
      try {
        handle(ws, name, message)
      } catch (err) {
        send(ws, { type: 'refused', id: typeof message.id === 'string' ? message.id : null, action: message.type, message: err && err.message ? err.message : String(err) })
      }
    })
  })

  function handle(ws, name, message) {
    const id = message.id
    if (message.type !== 'start' && typeof id !== 'string') throw invalidArg(`${describe(message.type)} needs an id`)
    switch (message.type) {
      case 'take':
        source.take(id, name)
        if (validSize(message.cols, message.rows)) source.resize(id, name, message.cols, message.rows)
        return
      case 'release':
        source.release(id, name)
        return
      case 'input':
        if (typeof message.data !== 'string') throw invalidArg('input needs data')
        source.input(id, name, message.binary === true ? Buffer.from(message.data, 'latin1') : message.data)
        return
      case 'resize':
        if (!validSize(message.cols, message.rows)) throw invalidArg(`a size of ${describe(message.cols)}x${describe(message.rows)} cannot be used`)
        source.resize(id, name, message.cols, message.rows)
        return
      case 'ack': {
        const page = pages.get(ws)
        if (page === undefined || !page.unacked.has(id) || !Number.isSafeInteger(message.bytes)) return
        const left = Math.max(0, page.unacked.get(id) - message.bytes)
        page.unacked.set(id, left)
        if (left < LOW_WATER) setBehind(ws, id, false)
        return
      }
      case 'start': {
        if (typeof source.start !== 'function') throw codedError('ERR_INVALID_INPUT', 'this panel does not start programs')
        const started = source.start(message)
        // The page that started it holds it (and so types into it).
        if (typeof started === 'string') {
          source.take(started, name)
          if (validSize(message.cols, message.rows)) source.resize(started, name, message.cols, message.rows)
        }
        return
      }
      case 'cancel':
        if (typeof source.cancel !== 'function') throw codedError('ERR_INVALID_INPUT', 'this panel does not stop programs')
        source.cancel(id)
        return
      default:
        throw invalidArg(`unknown message type ${describe(message.type)}`)
    }
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  address = server.address()
  // Like a session, the panel does not keep the process alive: neither its server nor its pages.
  server.unref()
  server.on('connection', (socket) => socket.unref())
  const url = `http://${host}:${address.port}${prefix}`
  let closed = null
  return {
    url,
    port: address.port,
    token,
    close() {
      closed ??= (async () => {
        unsubscribe()
        if (pages.size > 0 && typeof source.watched === 'function') source.watched(false)
        pages.clear()
        for (const ws of wss.clients) ws.terminate()
        const done = new Promise((resolve) => server.close(() => resolve()))
        server.closeAllConnections()
        await done
      })()
      return closed
    },
  }
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

module.exports = { startPanel }
