// @ts-check
// A live terminal panel for tasks you start yourself: ptypilot's panel
// (lib/panel.js, the one `ptypilot mcp --web` serves the agent's sessions
// with) over a TaskRunner. The page starts tasks from presets or a command
// line, shows each one live in its own tab, drawn by xterm.js; the page that
// starts a task types into it (any other page watches, and can take it over
// once it is handed back); resizing the window resizes the task's terminal
// (the program gets SIGWINCH).
//
//   npm run example:web            # then open the printed address
//
// This file is only the task source: which tasks the page may start, and how
// the panel's actions map onto the runner. The server, the page, access
// (a random token in the URL, Origin and Host checks) and the wire are the
// panel's. Flow control: when a page is far behind on a task's output, the
// task's session is paused (the program waits, as under a terminal that
// stopped scrolling) until the page catches up.
import { fileURLToPath } from 'node:url'
import { TaskRunner, startPanel } from 'ptypilot'

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
 * The panel's source over a TaskRunner: its tasks as entries, their output,
 * and a page's actions.
 * @param {TaskRunner} runner
 */
function taskSource(runner) {
  /** @type {Map<string, { holder: string | null, cols: number, rows: number, command: string }>} */
  const extra = new Map()
  /** @type {Set<(event: any) => void>} */
  const listeners = new Set()
  /**
   * @param {import('../../index.js').TaskInfo} task
   * @returns {import('../../index.js').PanelEntry}
   */
  const entry = (task) => {
    const more = extra.get(task.taskId) ?? { holder: null, cols: 80, rows: 24, command: task.name }
    return {
      id: task.taskId,
      kind: 'task',
      name: task.name,
      command: more.command,
      args: [],
      state: task.state === 'running' ? 'running' : 'exited',
      stateText: task.state === 'running' ? 'running' : task.state === 'error' ? `error ${task.exitCode ?? task.signal}` : task.state,
      exitCode: task.exitCode,
      signal: task.signal,
      input: null,
      holder: task.state === 'running' ? more.holder : null,
      canTake: task.state === 'running',
      cancellable: true,
      cols: more.cols,
      rows: more.rows,
    }
  }
  const changed = (/** @type {string} */ taskId) => {
    const task = runner.list().find((t) => t.taskId === taskId)
    const event = task === undefined ? { type: 'removed', id: taskId } : { type: 'entry', entry: entry(task) }
    for (const fn of listeners) fn(event)
  }
  runner.onEvent((event) => {
    if (event.type === 'task_log') {
      for (const fn of listeners) fn({ type: 'output', id: event.taskId, chunk: event.chunk })
      return
    }
    changed(event.taskId)
    // Forget the tasks the runner forgot.
    const known = new Set(runner.list().map((t) => t.taskId))
    for (const id of extra.keys()) if (!known.has(id)) extra.delete(id)
  })
  /** @param {string} id @param {string} page */
  const held = (id, page) => {
    const more = extra.get(id)
    if (more?.holder !== page) throw new Error(`task ${id} is not held by this page`)
    return runner.session(id)
  }
  return {
    presets: Object.keys(PRESETS),
    entries: () => runner.list().map(entry),
    subscribe(/** @type {(event: any) => void} */ fn) {
      listeners.add(fn)
      return () => listeners.delete(fn)
    },
    /** @param {any} request */
    start(request) {
      const size = Number.isInteger(request.cols) && Number.isInteger(request.rows) ? { cols: request.cols, rows: request.rows } : {}
      let options
      if (typeof request.preset === 'string' && Object.hasOwn(PRESETS, request.preset)) {
        options = { ...PRESETS[request.preset], ...size }
      } else if (typeof request.command === 'string' && request.command.trim() !== '') {
        options = { name: request.command, command: request.command, shell: true, ...size }
      } else {
        throw new Error('start needs a known preset or a command line')
      }
      const task = runner.start(options)
      extra.set(task.taskId, { holder: null, cols: size.cols ?? 80, rows: size.rows ?? 24, command: [options.command, ...('args' in options ? options.args ?? [] : [])].join(' ') })
      return task.taskId
    },
    cancel: (/** @type {string} */ id) => void runner.cancel(id).catch(() => {}),
    take(/** @type {string} */ id, /** @type {string} */ page) {
      const more = extra.get(id)
      if (more === undefined || !runner.session(id).running) throw new Error(`task ${id} is not running`)
      if (more.holder !== null && more.holder !== page) throw new Error(`task ${id} is held by another page`)
      more.holder = page
      changed(id)
    },
    release(/** @type {string} */ id, /** @type {string} */ page) {
      const more = extra.get(id)
      if (more?.holder !== page) return
      more.holder = null
      changed(id)
    },
    input: (/** @type {string} */ id, /** @type {string} */ page, /** @type {string | Uint8Array} */ data) => held(id, page).write(data),
    resize(/** @type {string} */ id, /** @type {string} */ page, /** @type {number} */ cols, /** @type {number} */ rows) {
      held(id, page).resize(cols, rows)
      Object.assign(/** @type {any} */ (extra.get(id)), { cols, rows })
      changed(id)
    },
    pause: (/** @type {string} */ id) => runner.session(id).pause(),
    resume: (/** @type {string} */ id) => {
      if (runner.list().some((t) => t.taskId === id)) runner.session(id).resume()
    },
  }
}

/**
 * Starts the panel server.
 * @param {{ port?: number, cwd?: string }} [options]
 * @returns {Promise<{ url: string, runner: TaskRunner, close: () => Promise<void> }>}
 */
export async function startTaskPanel(options = {}) {
  const { port = 0, cwd = process.cwd() } = options
  // Output goes to xterm.js as bytes.
  const runner = new TaskRunner({ defaults: { cwd, raw: true } })
  const panel = await startPanel({ source: taskSource(runner), port, title: 'ptypilot tasks' })
  return {
    url: panel.url,
    runner,
    close: async () => {
      await runner.cancelAll({ graceMs: 500 })
      await panel.close()
    },
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const panel = await startTaskPanel({ port: Number(process.env.PORT ?? 3000) })
  console.log(`ptypilot task panel: ${panel.url}  (Ctrl+C to stop)`)
  process.once('SIGINT', () => panel.close().then(() => process.exit(0)))
  // The panel's server does not hold the process; the runner's tasks do not either.
  setInterval(() => {}, 2 ** 30)
}
