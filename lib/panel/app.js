// The live panel's page (served by lib/panel.js): one xterm.js terminal per
// session, in tabs, with the session's state. Output arrives as binary frames
// (the program's bytes) over the WebSocket. Every page watches; the page that
// takes a session over types into it (keys, paste) and sizes it to its window,
// until it hands it back — or closes. "Take over" gives the session's terminal
// the keyboard at once: keys typed before the server confirms the take wait on
// the page and go in once it does (or are dropped if it is refused). The sessions answer the programs'
// terminal queries themselves, so this page swallows them: nothing but a
// person's keys ever goes back. Drawn output is acknowledged, so the server
// knows when a page falls behind.
import { Terminal } from './vendor/xterm.mjs'
import { FitAddon } from './vendor/addon-fit.mjs'

const wsUrl = new URL('ws', location.href)
wsUrl.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:'
const socket = new WebSocket(wsUrl)
socket.binaryType = 'arraybuffer'
/** id -> { entry, term, fit, host, tab, replaying, pending } (pending: keys typed while a take is on its way, or null) */
const shown = new Map()
/** id -> bytes drawn and not yet acknowledged */
const drawn = new Map()
let ackTimer = null
let active = null
/** This page's name (the server's), to tell "held here" from "held by another page". */
let me = null
let notice = ''
let noticeTimer = null

const $ = (id) => document.getElementById(id)
const send = (message) => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(message))
const holding = (item) => item !== undefined && item.entry.holder === me && me !== null

function stateText(entry) {
  if (entry.stateText) return entry.stateText
  if (entry.state === 'running') return entry.input ? `waiting for input (${entry.input})` : 'running'
  return entry.signal ? `killed by ${entry.signal}` : `exited ${entry.exitCode}`
}

function stateClass(entry) {
  if (entry.state === 'running') return entry.input ? 'waiting' : ''
  return entry.exitCode === 0 ? 'ok' : 'failed'
}

function setStatus() {
  const state = socket.readyState === WebSocket.OPEN ? 'connected' : 'disconnected'
  $('status').textContent = notice || state
}

function showNotice(text) {
  notice = text
  setStatus()
  clearTimeout(noticeTimer)
  noticeTimer = setTimeout(() => {
    notice = ''
    setStatus()
  }, 5000)
}

/** The bar under the tabs: the active session's state and what this page may do with it. */
function showBar() {
  const item = shown.get(active)
  const take = $('take')
  const release = $('release')
  const role = $('role')
  if (item === undefined) {
    $('state').textContent = ''
    take.classList.remove('shown')
    release.classList.remove('shown')
    role.textContent = ''
    return
  }
  const { entry } = item
  $('state').textContent = `${entry.id}: ${stateText(entry)}`
  const mine = holding(item)
  const other = entry.holder !== null && !mine
  take.classList.toggle('shown', entry.canTake && entry.holder === null)
  release.classList.toggle('shown', mine)
  role.classList.toggle('holding', mine)
  role.textContent = mine
    ? 'you are typing into this session; hand it back when you are done'
    : other
      ? 'view only: another page has taken this session over'
      : entry.canTake
        ? 'view only'
        : ''
}

function showTab(item) {
  const label = item.tab.querySelector('.state')
  label.className = `state ${stateClass(item.entry)}`
  label.textContent = stateText(item.entry)
  item.tab.querySelector('.held').textContent = item.entry.holder === null ? '' : holding(item) ? '⌨ you' : '⌨ person'
  item.tab.querySelector('button').style.display = item.entry.cancellable || item.entry.state !== 'running' ? '' : 'none'
}

/**
 * Swallows the terminal queries a program sends (the session answers them):
 * device attributes, status reports, mode reports, window reports, colour
 * queries and DECRQSS. Without this, xterm.js would answer them as input.
 */
function swallowQueries(term) {
  const p = term.parser
  const yes = () => true
  p.registerCsiHandler({ final: 'c' }, yes)
  p.registerCsiHandler({ prefix: '>', final: 'c' }, yes)
  p.registerCsiHandler({ prefix: '=', final: 'c' }, yes)
  p.registerCsiHandler({ final: 'n' }, yes)
  p.registerCsiHandler({ prefix: '?', final: 'n' }, yes)
  p.registerCsiHandler({ intermediates: '$', final: 'p' }, yes)
  p.registerCsiHandler({ prefix: '?', intermediates: '$', final: 'p' }, yes)
  p.registerCsiHandler({ prefix: '>', final: 'q' }, yes)
  // Window reports (11, 13, 14, 16, 18-21); the other window operations do what they did.
  p.registerCsiHandler({ final: 't' }, (params) => [11, 13, 14, 16, 18, 19, 20, 21].includes(params[0]))
  for (const osc of [4, 10, 11, 12]) p.registerOscHandler(osc, (data) => data.includes('?'))
  p.registerDcsHandler({ intermediates: '$', final: 'q' }, yes)
}

function addEntry(entry) {
  $('empty')?.remove()
  const host = document.createElement('div')
  host.className = 'terminal-host'
  $('terminals').append(host)
  const tab = document.createElement('div')
  tab.className = 'tab'
  tab.dataset.id = entry.id
  tab.innerHTML = '<span class="name"></span><span class="state"></span><span class="held"></span><button title="stop / close">✕</button>'
  tab.querySelector('.name').textContent = entry.name
  tab.title = [entry.command, ...(entry.args ?? [])].join(' ')
  tab.addEventListener('click', () => activate(entry.id))
  tab.querySelector('button').addEventListener('click', (event) => {
    event.stopPropagation()
    if (item.entry.state === 'running') send({ type: 'cancel', id: entry.id })
    else removeEntry(entry.id)
  })
  $('tabs').append(tab)

  const term = new Terminal({ scrollback: 5000, fontSize: 14, cursorBlink: true, disableStdin: true, cols: entry.cols, rows: entry.rows })
  swallowQueries(term)
  const fit = new FitAddon()
  term.loadAddon(fit)
  term.open(host)
  const item = { entry, term, fit, host, tab, replaying: 0, pending: null }
  shown.set(entry.id, item)
  const input = (data, binary) => {
    if (item.entry.state !== 'running') return
    if (holding(item)) send({ type: 'input', id: entry.id, data, binary })
    else if (item.pending !== null) item.pending.push({ data, binary })
  }
  term.onData((data) => input(data, false))
  term.onBinary((data) => input(data, true))
  term.onResize(({ cols, rows }) => {
    if (holding(item) && item.entry.state === 'running' && (cols !== item.entry.cols || rows !== item.entry.rows)) {
      send({ type: 'resize', id: entry.id, cols, rows })
    }
  })
  showTab(item)
  return item
}

/** A new state of an entry: the tab, the bar, and the terminal's size and input. */
function updateEntry(entry) {
  const item = shown.get(entry.id) ?? addEntry(entry)
  const took = !holding(item) && entry.holder === me
  item.entry = entry
  if (item.pending !== null && (took || entry.holder !== null || !entry.canTake)) {
    // The take is settled: what was typed meanwhile goes in if it is ours, else nowhere.
    const keys = item.pending
    item.pending = null
    if (holding(item)) for (const { data, binary } of keys) send({ type: 'input', id: entry.id, data, binary })
  }
  item.term.options.disableStdin = !holding(item) && item.pending === null
  if (holding(item)) {
    if (took && active === entry.id) {
      item.fit.fit()
      item.term.focus()
    }
  } else if (item.term.cols !== entry.cols || item.term.rows !== entry.rows) {
    // A watcher shows the session at its size.
    item.term.resize(entry.cols, entry.rows)
  }
  showTab(item)
  if (active === entry.id) showBar()
}

function removeEntry(id) {
  const item = shown.get(id)
  if (!item) return
  item.term.dispose()
  item.host.remove()
  item.tab.remove()
  shown.delete(id)
  if (active === id) {
    active = null
    const last = [...shown.keys()].at(-1)
    if (last) activate(last)
    else showBar()
  }
}

function activate(id) {
  const item = shown.get(id)
  if (!item) return
  for (const [other, it] of shown) {
    it.host.classList.toggle('active', other === id)
    it.tab.classList.toggle('active', other === id)
  }
  active = id
  if (holding(item)) item.fit.fit()
  showBar()
  item.term.focus()
}

/** The size the active terminal would have, fitted to the window. */
function fittedSize() {
  const item = shown.get(active)
  const size = item?.fit.proposeDimensions()
  return size && Number.isInteger(size.cols) && Number.isInteger(size.rows) ? { cols: size.cols, rows: size.rows } : {}
}

function acknowledge(id, bytes) {
  drawn.set(id, (drawn.get(id) ?? 0) + bytes)
  ackTimer ??= setTimeout(() => {
    ackTimer = null
    for (const [key, n] of drawn) send({ type: 'ack', id: key, bytes: n })
    drawn.clear()
  }, 20)
}

/** A binary frame: kind (0 live, 1 replay), id, newline, the output bytes. */
function output(frame) {
  const bytes = new Uint8Array(frame)
  const end = bytes.indexOf(10, 1)
  const id = new TextDecoder().decode(bytes.subarray(1, end))
  const data = bytes.subarray(end + 1)
  const item = shown.get(id)
  if (!item) return
  const replay = bytes[0] === 1
  if (replay) item.replaying++
  item.term.write(data, () => {
    if (replay) item.replaying--
    acknowledge(id, data.length)
  })
}

socket.addEventListener('open', setStatus)
socket.addEventListener('close', () => {
  setStatus()
  for (const item of shown.values()) item.term.options.disableStdin = true
})
socket.addEventListener('message', (event) => {
  if (typeof event.data !== 'string') {
    output(event.data)
    return
  }
  const message = JSON.parse(event.data)
  switch (message.type) {
    case 'hello': {
      me = message.page
      if (message.canStart) {
        $('run').classList.add('shown')
        $('presets').replaceChildren(
          ...message.presets.map((name) => {
            const button = document.createElement('button')
            button.textContent = name
            button.dataset.preset = name
            button.addEventListener('click', () => send({ type: 'start', preset: name, ...fittedSize() }))
            return button
          }),
        )
      }
      // Their kept output follows as replay frames.
      for (const entry of message.entries) addEntry(entry)
      const last = message.entries.at(-1)
      if (last) activate(last.id)
      break
    }
    case 'entry': {
      const known = shown.has(message.entry.id)
      updateEntry(message.entry)
      // A new session takes the panel.
      if (!known) activate(message.entry.id)
      break
    }
    case 'removed': {
      // A session that ended stays on this page until the person closes its tab.
      const item = shown.get(message.id)
      if (item === undefined || item.entry.state === 'running') removeEntry(message.id)
      else updateEntry({ ...item.entry, canTake: false, holder: null, gone: true })
      break
    }
    case 'reset':
      shown.get(message.id)?.term.reset()
      break
    case 'refused': {
      // A take refused: the keys typed while it was on its way go nowhere.
      const item = message.action === 'take' ? shown.get(message.id) : undefined
      if (item !== undefined && item.pending !== null) {
        item.pending = null
        item.term.options.disableStdin = !holding(item)
      }
      showNotice(message.message)
      console.warn('panel:', message.message)
      break
    }
  }
})

$('take').addEventListener('click', () => {
  const item = shown.get(active)
  if (item === undefined) return
  send({ type: 'take', id: active, ...fittedSize() })
  // The terminal takes the keyboard now, not the button; keys typed before
  // the server confirms wait for it (updateEntry sends them).
  if (!holding(item)) {
    item.pending = []
    item.term.options.disableStdin = false
  }
  item.term.focus()
})
$('release').addEventListener('click', () => {
  if (active !== null) send({ type: 'release', id: active })
})
window.addEventListener('resize', () => {
  const item = shown.get(active)
  if (holding(item)) item.fit.fit()
})
$('run').addEventListener('submit', (event) => {
  event.preventDefault()
  const command = $('command').value.trim()
  if (command) send({ type: 'start', command, ...fittedSize() })
  $('command').value = ''
})

// For tests and the console: the sessions and what each terminal shows.
window.panel = {
  get active() {
    return active
  },
  get page() {
    return me
  },
  get connected() {
    return socket.readyState === WebSocket.OPEN && me !== null
  },
  get notice() {
    return notice
  },
  /** The entries as the server last described them, with the terminal's size. */
  entries: () => [...shown.values()].map((it) => ({ ...it.entry, holding: holding(it), shownCols: it.term.cols, shownRows: it.term.rows })),
  /** The rows of a session's terminal buffer, right-trimmed, trailing blank rows dropped. */
  text(id = active) {
    const item = shown.get(id)
    if (!item) return ''
    const buffer = item.term.buffer.active
    const rows = []
    for (let i = 0; i < buffer.length; i++) rows.push(buffer.getLine(i).translateToString(true).trimEnd())
    while (rows.length && rows.at(-1) === '') rows.pop()
    return rows.join('\n')
  },
  activate,
}
