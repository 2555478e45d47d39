// The panel's page: one xterm.js terminal per task, in tabs. Output arrives as
// binary frames (the program's bytes) over the WebSocket, and xterm.js answers
// the program's terminal queries; typing and resizes go back for the task of
// the tab. A task that starts gets a tab and the panel switches to it. Drawn
// output is acknowledged, so the server can hold a task that outpaces the page.
import { Terminal } from '/vendor/xterm.mjs'
import { FitAddon } from '/vendor/addon-fit.mjs'

const socket = new WebSocket(`ws://${location.host}/ws`)
socket.binaryType = 'arraybuffer'
/** taskId -> { info, term, fit, host, tab, replaying } */
const tasks = new Map()
/** taskId -> bytes drawn and not yet acknowledged */
const drawn = new Map()
let ackTimer = null
let active = null
/** Only the controlling browser's terminals send input (and so answer the program's queries). */
let controlling = false

const $ = (id) => document.getElementById(id)
const send = (message) => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(message))

function setStatus() {
  const state = socket.readyState === WebSocket.OPEN ? 'connected' : 'disconnected'
  $('status').textContent = `${state}${controlling ? '' : ' (view only: another window controls the tasks)'}`
}

/** The size the terminals have now, for starting a task at that size. */
function currentSize() {
  const entry = tasks.get(active)
  return entry ? { cols: entry.term.cols, rows: entry.term.rows } : {}
}

function addTask(info) {
  const host = document.createElement('div')
  host.className = 'terminal-host'
  $('terminals').append(host)
  const tab = document.createElement('div')
  tab.className = 'tab'
  tab.dataset.taskId = info.taskId
  tab.innerHTML = '<span class="name"></span><span class="state"></span><button title="cancel / close">✕</button>'
  tab.querySelector('.name').textContent = info.name
  tab.addEventListener('click', () => activate(info.taskId))
  tab.querySelector('button').addEventListener('click', (event) => {
    event.stopPropagation()
    if (entry.info.state === 'running') send({ type: 'cancel', taskId: info.taskId })
    else removeTask(info.taskId)
  })
  $('tabs').append(tab)

  const term = new Terminal({ scrollback: 5000, fontSize: 14, cursorBlink: true, allowProposedApi: false })
  const fit = new FitAddon()
  term.loadAddon(fit)
  term.open(host)
  const entry = { info, term, fit, host, tab, replaying: 0 }
  tasks.set(info.taskId, entry)
  const input = (data, binary) => {
    // Output replayed from before this page opened may contain queries that
    // were answered long ago: their answers must not reach the program now.
    if (controlling && entry.replaying === 0 && entry.info.state === 'running') {
      send({ type: 'input', taskId: info.taskId, data, binary })
    }
  }
  term.onData((data) => input(data, false))
  term.onBinary((data) => input(data, true))
  term.onResize(({ cols, rows }) => {
    if (controlling) send({ type: 'resize', taskId: info.taskId, cols, rows })
  })
  showState(entry)
  return entry
}

function showState(entry) {
  const label = entry.tab.querySelector('.state')
  const { state, exitCode, signal } = entry.info
  label.className = `state ${state}`
  label.textContent = state === 'running' ? '●' : state === 'error' ? `error ${exitCode ?? signal}` : state
}

function removeTask(taskId) {
  const entry = tasks.get(taskId)
  if (!entry) return
  entry.term.dispose()
  entry.host.remove()
  entry.tab.remove()
  tasks.delete(taskId)
  if (active === taskId) {
    active = null
    const last = [...tasks.keys()].at(-1)
    if (last) activate(last)
  }
}

/** Shows a task's tab, fits its terminal to the panel and tells the program the size. */
function activate(taskId) {
  const entry = tasks.get(taskId)
  if (!entry) return
  for (const [id, other] of tasks) {
    other.host.classList.toggle('active', id === taskId)
    other.tab.classList.toggle('active', id === taskId)
  }
  active = taskId
  entry.fit.fit()
  if (controlling && entry.info.state === 'running') {
    send({ type: 'resize', taskId, cols: entry.term.cols, rows: entry.term.rows })
  }
  entry.term.focus()
}

socket.addEventListener('open', setStatus)
socket.addEventListener('close', setStatus)
/** Acknowledges drawn output, a few times a second at most. */
function acknowledge(taskId, bytes) {
  drawn.set(taskId, (drawn.get(taskId) ?? 0) + bytes)
  ackTimer ??= setTimeout(() => {
    ackTimer = null
    for (const [id, n] of drawn) send({ type: 'ack', taskId: id, bytes: n })
    drawn.clear()
  }, 20)
}

/** A binary frame: kind (0 live, 1 replay), task id, newline, the output bytes. */
function output(frame) {
  const bytes = new Uint8Array(frame)
  const end = bytes.indexOf(10, 1)
  const taskId = new TextDecoder().decode(bytes.subarray(1, end))
  const data = bytes.subarray(end + 1)
  const entry = tasks.get(taskId)
  if (!entry) return
  const replay = bytes[0] === 1
  if (replay) entry.replaying++
  entry.term.write(data, () => {
    if (replay) entry.replaying--
    acknowledge(taskId, data.length)
  })
}

socket.addEventListener('message', (event) => {
  if (typeof event.data !== 'string') {
    output(event.data)
    return
  }
  const message = JSON.parse(event.data)
  switch (message.type) {
    case 'hello': {
      $('presets').replaceChildren(
        ...message.presets.map((name) => {
          const button = document.createElement('button')
          button.textContent = name
          button.dataset.preset = name
          button.addEventListener('click', () => send({ type: 'start', preset: name, ...currentSize() }))
          return button
        }),
      )
      // Their recent output follows as replay frames.
      for (const info of message.tasks) addTask(info)
      const last = message.tasks.at(-1)
      if (last) activate(last.taskId)
      break
    }
    case 'role':
      controlling = message.controlling
      setStatus()
      break
    case 'task_started':
      addTask({ taskId: message.taskId, name: message.name, state: 'running', startedAt: message.startedAt })
      // A new task takes the panel.
      activate(message.taskId)
      break
    case 'task_finished': {
      const entry = tasks.get(message.taskId)
      if (entry) {
        Object.assign(entry.info, message)
        showState(entry)
      }
      break
    }
    case 'error':
      console.warn('panel server:', message.message)
      break
  }
})

window.addEventListener('resize', () => tasks.get(active)?.fit.fit())

$('run').addEventListener('submit', (event) => {
  event.preventDefault()
  const command = $('command').value.trim()
  if (command) send({ type: 'start', command, ...currentSize() })
  $('command').value = ''
})

// For tests and the console: what each terminal shows.
window.panel = {
  get active() {
    return active
  },
  get controlling() {
    return controlling
  },
  tasks: () => [...tasks.values()].map((e) => ({ ...e.info, cols: e.term.cols, rows: e.term.rows })),
  /** The rows of a task's terminal buffer, right-trimmed, trailing blank rows dropped. */
  text(taskId = active) {
    const entry = tasks.get(taskId)
    if (!entry) return ''
    const buffer = entry.term.buffer.active
    const rows = []
    for (let i = 0; i < buffer.length; i++) rows.push(buffer.getLine(i).translateToString(true).trimEnd())
    while (rows.length && rows.at(-1) === '') rows.pop()
    return rows.join('\n')
  },
}
