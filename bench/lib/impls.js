'use strict'
// Adapters that give ptypilot and its peers one shape, so every case drives
// them the same way:
//
//   const s = impl.spawn({ command, args, cols, rows }, onData)
//   s.write(text); await s.exited; s.kill(); await s.screenText()
//
// `onData` receives what the library delivers (a string, or a Buffer for
// ruspty); `size(chunk)` counts it (characters or bytes — the workloads are
// ASCII, so both count the same).

const path = require('node:path')
const { performance } = require('node:perf_hooks')

const ROOT = path.join(__dirname, '..', '..')
const ENV = { ...process.env, TERM: 'xterm-256color' }
for (const k of ['TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'COLUMNS', 'LINES']) delete ENV[k]

let ptypilotModule
function ptypilotLib() {
  if (ptypilotModule === undefined) ptypilotModule = require(ROOT)
  return ptypilotModule
}

/** An adapter for the ptypilot that `lib()` loads. */
function ptypilotAdapter(name, label, lib) {
  return {
    name,
    label,
    spawn({ command, args = [], cols = 80, rows = 24 }, onData, extra = {}) {
      const { PtySession } = lib()
      const session = PtySession.spawn({ command, args, cols, rows, env: { TERM: 'xterm-256color' }, ...extra }, onData)
      return {
        pid: session.pid,
        write: (data) => session.write(data),
        exited: session.exited,
        kill: () => session.kill(),
        screenText: async () => session.screen().text,
        session,
      }
    },
  }
}

/** ptypilot: output as strings through its one pump; screen model always on. */
const ptypilot = ptypilotAdapter('ptypilot', 'ptypilot (screen model on)', ptypilotLib)

let baselineModule
/**
 * Another checkout of ptypilot, built, at PTYPILOT_BASELINE (say, main before a
 * change): `--impls=ptypilot,ptypilot-baseline` measures before and after in one
 * run, turn by turn, under the same load.
 */
const ptypilotBaseline = ptypilotAdapter('ptypilot-baseline', 'ptypilot (PTYPILOT_BASELINE checkout)', () => {
  if (baselineModule === undefined) {
    if (!process.env.PTYPILOT_BASELINE) throw new Error('ptypilot-baseline: set PTYPILOT_BASELINE to a built checkout')
    baselineModule = require(path.resolve(process.env.PTYPILOT_BASELINE))
  }
  return baselineModule
})

/**
 * The pty's own ceiling: a blocking read loop in Python (bench/lib/bare-reader.py)
 * with no JS and no screen model, timing itself. Only the throughput case uses
 * it (`run(command, args)` instead of `spawn`).
 */
const bare = {
  name: 'bare',
  label: 'bare read loop, no JS (the pty ceiling)',
  selfTimed: true,
  run(command, args) {
    const { execFileSync } = require('node:child_process')
    const out = execFileSync('python3', [path.join(__dirname, 'bare-reader.py'), command, ...args], { env: ENV })
    return JSON.parse(out.toString())
  },
}

let nodePtyModule
function nodePtyLib() {
  if (nodePtyModule === undefined) nodePtyModule = require('@lydell/node-pty')
  return nodePtyModule
}

let adapterModule
function adapterLib() {
  if (adapterModule === undefined) adapterModule = require(path.join(ROOT, 'lib', 'node-pty.js'))
  return adapterModule
}

/** An implementation of node-pty's API (`lib().spawn`), driven as node-pty is: strings (utf8), no screen model. */
function nodePtyApi(name, label, lib) {
  return {
    name,
    label,
    spawn({ command, args = [], cols = 80, rows = 24 }, onData) {
      const pty = lib().spawn(command, args, { name: 'xterm-256color', cols, rows, cwd: process.cwd(), env: ENV })
      if (onData) pty.onData(onData)
      const exited = new Promise((resolve) => pty.onExit(({ exitCode, signal }) => resolve({ exitCode, signal })))
      return {
        pid: pty.pid,
        write: (data) => pty.write(data),
        exited,
        kill: () => pty.kill('SIGKILL'),
        screenText: async () => {
          throw new Error(`${name} has no screen model`)
        },
        pty,
      }
    },
  }
}

/** node-pty: strings (utf8, its default), no screen model. */
const nodePty = nodePtyApi('node-pty', 'node-pty (no screen model)', nodePtyLib)

/** ptypilot/node-pty: node-pty's API on ptypilot's session engine, no screen model. */
const nodePtyAdapter = nodePtyApi('ptypilot/node-pty', 'ptypilot/node-pty (node-pty API, no screen model)', adapterLib)

let xtermModule
function xtermLib() {
  if (xtermModule === undefined) xtermModule = require('@xterm/headless')
  return xtermModule
}

/** The visible rows of an xterm.js buffer, right-trimmed, trailing blank rows dropped. */
function xtermText(term) {
  const buffer = term.buffer.active
  const lines = []
  for (let y = buffer.viewportY; y < buffer.viewportY + term.rows; y++) {
    const line = buffer.getLine(y)
    lines.push(line ? line.translateToString(true) : '')
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
  return lines.join('\n')
}

/** node-pty feeding @xterm/headless, the usual way to get screen text with node-pty. */
const nodePtyXterm = {
  name: 'node-pty+xterm',
  label: 'node-pty + @xterm/headless',
  spawn({ command, args = [], cols = 80, rows = 24 }, onData) {
    const { Terminal } = xtermLib()
    const term = new Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true })
    const pty = nodePtyLib().spawn(command, args, { name: 'xterm-256color', cols, rows, cwd: process.cwd(), env: ENV })
    const handle = {}
    // The time xterm.js finished parsing the latest chunk (it parses
    // asynchronously, after the data callback returned).
    const parsed = () => (handle.parsedAt = performance.now())
    pty.onData((data) => {
      term.write(data, parsed)
      if (onData) onData(data)
    })
    // Terminal query answers go back to the program, as in a real embedding.
    term.onData((reply) => pty.write(reply))
    const exited = new Promise((resolve) => pty.onExit(({ exitCode, signal }) => resolve({ exitCode, signal })))
    return Object.assign(handle, {
      parsedAt: null,
      pid: pty.pid,
      write: (data) => pty.write(data),
      exited,
      kill: () => pty.kill('SIGKILL'),
      /** Waits until xterm parsed everything written so far, then reads the screen. */
      screenText: () => new Promise((resolve) => term.write('', () => resolve(xtermText(term)))),
      dispose: () => term.dispose(),
      pty,
      term,
    })
  },
}

let rusptyModule
function rusptyLib() {
  if (rusptyModule === undefined) rusptyModule = require('@replit/ruspty')
  return rusptyModule
}

/** @replit/ruspty: raw Buffers from a tty.ReadStream, no screen model. */
const ruspty = {
  name: 'ruspty',
  label: '@replit/ruspty (raw bytes)',
  spawn({ command, args = [], cols = 80, rows = 24 }, onData) {
    const { Pty } = rusptyLib()
    let resolveExit
    const exited = new Promise((r) => (resolveExit = r))
    const pty = new Pty({
      command,
      args,
      envs: ENV,
      dir: process.cwd(),
      size: { cols, rows },
      onExit: (err, exitCode) => resolveExit({ exitCode, err }),
    })
    if (onData) pty.read.on('data', onData)
    else pty.read.resume()
    return {
      pid: pty.pid,
      write: (data) => pty.write.write(data),
      exited,
      kill: () => {
        try {
          process.kill(pty.pid, 'SIGKILL')
        } catch {}
      },
      screenText: async () => {
        throw new Error('ruspty has no screen model')
      },
      pty,
    }
  },
}

const ALL = { ptypilot, 'ptypilot-baseline': ptypilotBaseline, bare, 'node-pty': nodePty, 'ptypilot/node-pty': nodePtyAdapter, 'node-pty+xterm': nodePtyXterm, ruspty }

module.exports = { ALL, ptypilot, nodePty, nodePtyAdapter, nodePtyXterm, ruspty, xtermText, xtermLib, ptypilotLib, ENV, ROOT }
