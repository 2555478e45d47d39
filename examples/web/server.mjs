// @ts-check
// A live terminal panel: a small web server that starts tasks with ptypilot's
// TaskRunner and streams each one to its own tab in the browser, drawn by
// xterm.js. Typing in a tab goes to that task's program; resizing the window
// resizes the task's terminal (the program gets SIGWINCH); a new task opens
// its tab and switches to it.
//
//   npm run example:web            # then open the printed address
//
// The page talks to the server over one WebSocket (the `ws` package) with JSON
// messages. Server to page: the task events as the TaskRunner emits them
// (`task_started`, `task_log`, `task_finished`) plus `hello` (presets, tasks so
// far and their recent output) and `role`. Page to server: `start`, `input`,
// `resize`, `cancel`.
//
// One answerer: xterm.js in the page answers the program's terminal queries
// (cursor position, device attributes), so the browser that controls a task is
// the only one whose terminal input reaches it. With several browsers open, the
// first one controls; the others watch (and take over in order when it closes).
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
const REPLAY_CHARS = 256 * 1024

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
  const runner = new TaskRunner({ defaults: { cwd } })
  /** taskId -> recent output, for late viewers */
  const replay = new Map()
  /** Connected browsers, oldest first; the first one controls the tasks. */
  /** @type {import('ws').WebSocket[]} */
  const clients = []

  /** @param {import('ws').WebSocket} ws @param {object} message */
  const send = (ws, message) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message))
  }
  const announceRoles = () => clients.forEach((ws, i) => send(ws, { type: 'role', controlling: i === 0 }))

  runner.onEvent((event) => {
    if (event.type === 'task_started') replay.set(event.taskId, '')
    if (event.type === 'task_log') {
      const kept = (replay.get(event.taskId) ?? '') + event.chunk
      replay.set(event.taskId, kept.length > REPLAY_CHARS ? kept.slice(-REPLAY_CHARS) : kept)
    }
    // Forget the output of tasks the runner forgot.
    if (event.type === 'task_finished' && replay.size > runner.list().length) {
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
    send(ws, {
      type: 'hello',
      presets: Object.keys(PRESETS),
      tasks: runner.list(),
      replay: Object.fromEntries(replay),
    })
    announceRoles()
    ws.on('close', () => {
      clients.splice(clients.indexOf(ws), 1)
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
      await new Promise((resolve) => server.close(() => resolve(undefined)))
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
