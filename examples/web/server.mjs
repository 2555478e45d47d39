// @ts-check
// A live terminal panel: a small web server that starts tasks with ptypilot's
// TaskRunner and streams each one to its own tab in the browser, drawn by
// xterm.js. Typing in a tab goes to that task's program; resizing the window
// resizes the task's terminal (the program gets SIGWINCH); a new task opens
// its tab and switches to it.
//
//   npm run example:web            # then open the printed address
//
// The page talks to the server over one WebSocket (the `ws` package). Output
// goes as binary frames: a kind byte (0 live, 1 replay), the task id, a
// newline, then the program's bytes exactly as written (tasks run with
// `raw: true`; xterm.js decodes UTF-8 itself). Everything else is JSON. Server
// to page: `task_started`, `task_finished` (as the TaskRunner emits them),
// `hello` (presets and tasks so far, followed by replay frames of their recent
// output) and `role`. Page to server: `start`, `input`, `resize`, `cancel` and
// `ack`.
//
// One answerer: the tasks run with `answerQueries: false`, so xterm.js in the
// page is what answers the program's terminal queries (cursor position, device
// attributes), and only the browser that controls the tasks sends terminal
// input. With several browsers open, the first one controls; the others watch
// (and take over in order when it closes).
//
// Flow control: a page acknowledges output once xterm.js has drawn it
// (`term.write`'s callback). When a page is more than HIGH_WATER bytes behind
// on a task, the task's session is paused (the program waits, as under a
// terminal that stopped scrolling) until every page is back under LOW_WATER.
//
// Security: the server listens on 127.0.0.1 only and accepts WebSocket
// connections only from its own page (the Origin header), because whoever can
// connect can run commands.
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { WebSocketServer } from 'ws'
import { TaskRunner } from '../../index.js'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)

/** Files the page needs; xterm.js comes from node_modules (no CDN). */
const FILES = {
  '/': [join(here, 'public', 'index.html'), 'text/html; charset=utf-8'],
  '/app.js': [join(here, 'public', 'app.js'), 'text/javascript; charset=utf-8'],
  '/vendor/xterm.mjs': [require.resolve('@xterm/xterm/lib/xterm.mjs'), 'text/javascript; charset=utf-8'],
  '/vendor/xterm.css': [require.resolve('@xterm/xterm/css/xterm.css'), 'text/css; charset=utf-8'],
  '/vendor/addon-fit.mjs': [require.resolve('@xterm/addon-fit/lib/addon-fit.mjs'), 'text/javascript; charset=utf-8'],
}

/** Output kept per task for a browser that opens the page later. */
const REPLAY_BYTES = 256 * 1024
/** Unacknowledged bytes of one task for one page beyond which the task pauses ... */
const HIGH_WATER = 512 * 1024
/** ... and below which (for every page) it resumes. */
const LOW_WATER = 128 * 1024
/** Binary frame kinds. */
const LIVE = 0
const REPLAY = 1

/**
 * Tasks the page offers as buttons. Each is TaskOptions for TaskRunner.start.
 * @type {Record<string, import('../../index.js').TaskOptions>}
 */
export const PRESETS = {
  shell: {
    name: 'shell',
    command: 'bash',
    args: ['--norc', '--noprofile', '-i'],
    env: { PS1: '\\w \\$ ' },
  },
  build: {
    name: 'build',
    command: 'sh',
    args: [
      '-c',
      'for step in fetch compile link test; do printf "\\033[1;34m==>\\033[0m %s\\n" $step; sleep 0.3; done; ' +
        'printf "\\033[32mbuild finished\\033[0m\\n"',
    ],
  },
  flood: {
    name: 'flood',
    command: 'seq',
    args: ['1', '200000'],
  },
  clock: {
    name: 'clock',
    command: 'sh',
    args: ['-c', 'while :; do printf "\\r%s  size %s" "$(date +%T)" "$(stty size)"; sleep 1; done'],
  },
}

/**
 * Starts the panel server.
 * @param {{ port?: number, host?: string, cwd?: string }} [options]
 * @returns {Promise<{ url: string, runner: TaskRunner, close: () => Promise<void> }>}
 */
export async function startPanel(options = {}) {
  const { port = 0, host = '127.0.0.1', cwd = process.cwd() } = options
  // xterm.js answers the queries; output goes to it as bytes.
  const runner = new TaskRunner({ defaults: { cwd, answerQueries: false, raw: true } })
  /** @type {Map<string, { chunks: Buffer[], bytes: number }>} taskId -> recent output, for late viewers */
  const replay = new Map()
  /** Connected browsers, oldest first; the first one controls the tasks. */
  /** @type {import('ws').WebSocket[]} */
  const clients = []
  /** @type {Map<import('ws').WebSocket, Map<string, number>>} page -> taskId -> bytes sent, not yet drawn */
  const unacked = new Map()
  /** @type {Map<string, Set<import('ws').WebSocket>>} taskId -> pages too far behind */
  const behind = new Map()

  /** @param {import('ws').WebSocket} ws @param {object} message */
  const send = (ws, message) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message))
  }
  /** @param {import('ws').WebSocket} ws @param {number} kind @param {string} taskId @param {Uint8Array} bytes */
  const sendOutput = (ws, kind, taskId, bytes) => {
    if (ws.readyState !== ws.OPEN) return
    ws.send(Buffer.concat([Buffer.from([kind]), Buffer.from(`${taskId}\n`), bytes]))
    const pending = unacked.get(ws)
    if (pending === undefined) return
    const total = (pending.get(taskId) ?? 0) + bytes.length
    pending.set(taskId, total)
    if (total > HIGH_WATER) setBehind(ws, taskId, true)
  }
  /** Pauses a task while some page is too far behind on it. */
  const setBehind = (/** @type {import('ws').WebSocket} */ ws, /** @type {string} */ taskId, /** @type {boolean} */ on) => {
    const pages = behind.get(taskId) ?? new Set()
    behind.set(taskId, pages)
    const before = pages.size
    if (on) pages.add(ws)
    else pages.delete(ws)
    if (before === pages.size || !runner.list().some((t) => t.taskId === taskId)) return
    const session = runner.session(taskId)
    if (pages.size === 1 && on) session.pause()
    if (pages.size === 0) session.resume()
  }
  const announceRoles = () => clients.forEach((ws, i) => send(ws, { type: 'role', controlling: i === 0 }))

  runner.onEvent((event) => {
    if (event.type === 'task_log') {
      const bytes = /** @type {Uint8Array} */ (event.chunk)
      const kept = replay.get(event.taskId) ?? { chunks: [], bytes: 0 }
      kept.chunks.push(Buffer.from(bytes))
      kept.bytes += bytes.length
      while (kept.bytes - kept.chunks[0].length >= REPLAY_BYTES) kept.bytes -= kept.chunks.shift()?.length ?? 0
      replay.set(event.taskId, kept)
      for (const ws of clients) sendOutput(ws, LIVE, event.taskId, bytes)
      return
    }
    if (event.type === 'task_finished') {
      behind.delete(event.taskId)
      for (const pending of unacked.values()) pending.delete(event.taskId)
      // Forget the output of tasks the runner forgot.
      const known = new Set(runner.list().map((t) => t.taskId))
      for (const id of replay.keys()) if (!known.has(id)) replay.delete(id)
    }
    for (const ws of clients) send(ws, event)
  })

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    if (path === '/favicon.ico') {
      res.writeHead(204).end()
      return
    }
    const file = Object.hasOwn(FILES, path) ? FILES[/** @type {keyof FILES} */ (path)] : undefined
    if (req.method !== 'GET' || file === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
      return
    }
    res.writeHead(200, { 'content-type': file[1], 'cache-control': 'no-store' }).end(readFileSync(file[0]))
  })

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 })
  server.on('upgrade', (req, socket, head) => {
    const origin = req.headers.origin
    const self = `http://${req.headers.host}`
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/ws' || origin !== self) {
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
  })

  wss.on('connection', (ws) => {
    clients.push(ws)
    unacked.set(ws, new Map())
    send(ws, { type: 'hello', presets: Object.keys(PRESETS), tasks: runner.list() })
    for (const [taskId, kept] of replay) for (const chunk of kept.chunks) sendOutput(ws, REPLAY, taskId, chunk)
    announceRoles()
    ws.on('close', () => {
      clients.splice(clients.indexOf(ws), 1)
      unacked.delete(ws)
      for (const taskId of behind.keys()) setBehind(ws, taskId, false)
      announceRoles()
    })
    ws.on('message', (raw) => {
      let message
      try {
        message = JSON.parse(String(raw))
      } catch {
        send(ws, { type: 'error', message: 'messages must be JSON' })
        return
      }
      try {
        handle(ws, message)
      } catch (err) {
        send(ws, { type: 'error', message: err instanceof Error ? err.message : String(err) })
      }
    })
  })

  /**
   * @param {import('ws').WebSocket} ws
   * @param {any} message
   */
  function handle(ws, message) {
    const controlling = clients[0] === ws
    switch (message.type) {
      case 'start': {
        const size = validSize(message.cols, message.rows) ? { cols: message.cols, rows: message.rows } : {}
        if (typeof message.preset === 'string' && Object.hasOwn(PRESETS, message.preset)) {
          runner.start({ ...PRESETS[message.preset], ...size })
        } else if (typeof message.command === 'string' && message.command.trim() !== '') {
          runner.start({ name: message.command, command: message.command, shell: true, ...size })
        } else {
          throw new Error('start needs a known preset or a command line')
        }
        return
      }
      case 'input': {
        // Only the controlling browser types: its xterm.js is the one that
        // answers the program's terminal queries.
        if (!controlling || typeof message.data !== 'string') return
        const session = runner.session(message.taskId)
        if (session.running) session.write(message.binary ? Buffer.from(message.data, 'latin1') : message.data)
        return
      }
      case 'resize': {
        if (!controlling || !validSize(message.cols, message.rows)) return
        const session = runner.session(message.taskId)
        if (session.running) session.resize(message.cols, message.rows)
        return
      }
      case 'cancel':
        runner.cancel(message.taskId).catch(() => {})
        return
      case 'ack': {
        // The page drew this many bytes of the task's output.
        const pending = unacked.get(ws)
        if (pending === undefined || !pending.has(message.taskId) || !Number.isInteger(message.bytes)) return
        const left = Math.max(0, /** @type {number} */ (pending.get(message.taskId)) - message.bytes)
        pending.set(message.taskId, left)
        if (left < LOW_WATER) setBehind(ws, message.taskId, false)
        return
      }
      default:
        throw new Error(`unknown message type ${JSON.stringify(message.type)}`)
    }
  }

  await new Promise((resolve) => server.listen(port, host, () => resolve(undefined)))
  const address = server.address()
  const url = `http://${host}:${typeof address === 'object' && address ? address.port : port}/`
  return {
    url,
    runner,
    close: async () => {
      for (const ws of wss.clients) ws.terminate()
      await runner.cancelAll({ graceMs: 500 })
      const closed = new Promise((resolve) => server.close(() => resolve(undefined)))
      server.closeAllConnections()
      await closed
    },
  }
}

/** @param {unknown} cols @param {unknown} rows */
function validSize(cols, rows) {
  return Number.isInteger(cols) && Number.isInteger(rows) && Number(cols) >= 2 && Number(rows) >= 2 &&
    Number(cols) <= 1000 && Number(rows) <= 500
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const panel = await startPanel({ port: Number(process.env.PORT ?? 3000) })
  console.log(`ptypilot terminal panel: ${panel.url}  (Ctrl+C to stop)`)
  process.once('SIGINT', () => panel.close().then(() => process.exit(0)))
}
