'use strict'
// Case 12: knowing when a program waits for input. ptypilot's
// `waitForInput` (the kernel: the foreground job asleep reading the
// terminal, nothing typed still unread) side by side with a 300 ms quiet
// timer, what other terminal tools use (the node-pty + xterm MCP servers),
// on the same programs:
//
// - detection latency: each prompting program (bench/lib/input-wait/)
//   stamps CLOCK_MONOTONIC right before it reads; the latency is from that
//   stamp to the wait resolving (ptypilot) or the timer firing, over
//   `--rounds` prompts of each kind: a line (`input()`), a password
//   (`getpass`, /dev/tty), a key in raw mode (`select`), a key with no
//   prompt printed first (the program starts waiting silently), and a key
//   read by Node's event loop (`epoll`). The timer runs on its own session
//   of the same program, all kinds at once (it mostly sleeps);
// - false reports over silent work: programs that pause without waiting
//   for input (sleep, a busy loop, a server on its socket, a pipe from a
//   sibling, input typed ahead); both watch the same session, ptypilot
//   with back-to-back `waitForInput` calls, the timer once per pause;
// - CPU while waiting, per session: this process's CPU time while N
//   sessions run a silent program, with nobody waiting, with a
//   `waitForInput` pending on each, and with a quiet timer on each.
//
//   node bench/cases/input-wait.js [--rounds=200] [--silent-steps=8] [--sessions=20]

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { PtySession } = require('../..')
const { argv, emit, log, quantile } = require('../lib/stats')

const opts = argv()
const ROUNDS = Number(opts.rounds || 200)
const SILENT_STEPS = Number(opts['silent-steps'] || 8)
const SESSIONS = Number(opts.sessions || 20)
const QUIET_MS = 300

const HERE = path.join(__dirname, '..', 'lib', 'input-wait')
const PY = path.join(HERE, 'prompter.py')
const JS = path.join(HERE, 'prompter.js')

const KINDS = [
  { id: 'line', title: '`input()` (read)', kind: 'line', program: (n, f) => ['python3', [PY, 'line', n, f]], answer: 'a\r' },
  { id: 'password', title: '`getpass` (read of /dev/tty)', kind: 'password', program: (n, f) => ['python3', [PY, 'password', n, f]], answer: 'pw\r' },
  { id: 'key', title: 'raw key (select)', kind: 'key', program: (n, f) => ['python3', [PY, 'key', n, f]], answer: 'x' },
  { id: 'silent-key', title: 'raw key, no prompt printed', kind: 'key', program: (n, f) => ['python3', [PY, 'silent-key', n, f]], answer: 'x' },
  { id: 'node-key', title: 'Node raw key (epoll)', kind: 'key', program: (n, f) => [process.execPath, [JS, n, f]], answer: 'x' },
]

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ptypilot-input-wait-'))
const now = () => process.hrtime.bigint()
const ms = (ns) => Number(ns) / 1e6

/** The stamp (ns) of round `i` in `file`, or undefined when not written yet. */
function stampOf(file, i) {
  const line = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${i} `))
  return line === undefined ? undefined : BigInt(line.split(' ')[1])
}

function spawn(kind, rounds, file) {
  fs.writeFileSync(file, '')
  const [command, args] = kind.program(String(rounds), file)
  return PtySession.spawn({ command, args: args.map(String) })
}

/** ptypilot: `waitForInput` after each answer. */
async function ours(kind) {
  const file = path.join(tmp, `ours-${kind.id}.txt`)
  const s = spawn(kind, ROUNDS, file)
  const latency = []
  let wrongKind = 0
  let early = 0
  for (let i = 0; i < ROUNDS; i++) {
    const wait = await s.waitForInput({ since: 'input', timeoutMs: 10000 })
    const t = now()
    if (wait.reason !== 'input') throw new Error(`${kind.id} round ${i}: ${wait.reason}; screen:\n${wait.screen.text}`)
    if (wait.state.kind !== kind.kind) wrongKind++
    const stamp = stampOf(file, i)
    // Resolved before the program asked: a false report.
    if (stamp === undefined || stamp > t) early++
    else latency.push(ms(t - stamp))
    s.write(kind.answer)
  }
  const exit = await s.exited
  if (exit.exitCode !== 0) throw new Error(`${kind.id}: exit ${JSON.stringify(exit)}`)
  return { latency, wrongKind, early }
}

/**
 * Calls `fire` whenever `quietMs` pass without output (or input) on `s`;
 * returns `{ reset, stop }`: `reset` restarts the quiet period.
 */
function quietTimer(s, quietMs, fire) {
  let timer
  let stopped = false
  const reset = () => {
    clearTimeout(timer)
    if (!stopped) timer = setTimeout(fire, quietMs)
  }
  const off = s.onData(reset)
  reset()
  return {
    reset,
    stop: () => {
      stopped = true
      clearTimeout(timer)
      off()
    },
  }
}

/** The quiet timer: an answer each time the output was quiet for 300 ms. */
function timer(kind) {
  const file = path.join(tmp, `timer-${kind.id}.txt`)
  const s = spawn(kind, ROUNDS, file)
  const latency = []
  let early = 0
  let i = 0
  return new Promise((resolve, reject) => {
    const t = quietTimer(s, QUIET_MS, () => {
      const at = now()
      const stamp = stampOf(file, i)
      if (stamp === undefined) {
        // Quiet, but the program has not asked (it is starting): a false
        // report; a peer would look again after another quiet period.
        early++
        t.reset()
        return
      }
      latency.push(ms(at - stamp))
      i++
      s.write(kind.answer)
      t.reset()
    })
    s.exited.then((exit) => {
      t.stop()
      if (exit.exitCode !== 0) reject(new Error(`${kind.id} (timer): exit ${JSON.stringify(exit)}`))
      else resolve({ latency, early })
    })
  })
}

const SILENT = [
  { id: 'sleep', title: 'sleeps between steps', command: 'sh', args: ['-c', `for i in $(seq ${SILENT_STEPS}); do sleep 0.5; echo step $i; done`] },
  { id: 'busy', title: 'busy loop between steps', command: 'python3', args: ['-c', `import time\nfor i in range(${SILENT_STEPS}):\n  t = time.time()\n  while time.time() - t < 0.5: pass\n  print('step', i, flush=True)`] },
  {
    id: 'server',
    title: '`http.server` on its socket',
    command: 'python3',
    args: ['-c', `import http.server, threading\ns = http.server.HTTPServer(('127.0.0.1', 0), http.server.SimpleHTTPRequestHandler)\nprint('serving', flush=True)\nthreading.Timer(${SILENT_STEPS * 0.5}, s.shutdown).start()\ns.serve_forever()`],
  },
  { id: 'pipe', title: 'reads a pipe from its sibling', command: 'sh', args: ['-c', `(for i in $(seq ${SILENT_STEPS}); do sleep 0.5; echo step $i; done) | cat`] },
  {
    id: 'typed-ahead',
    title: 'input typed ahead, read later',
    command: 'python3',
    args: ['-c', `import time\nfor i in range(${SILENT_STEPS}):\n  time.sleep(0.5)\n  print('got', input(), flush=True)`],
    typeAhead: Array.from({ length: SILENT_STEPS }, (_, i) => `line ${i}\r`).join(''),
  },
]

/** Both detectors on one run of a program that never waits for input. */
async function silent(c) {
  const s = PtySession.spawn({ command: c.command, args: c.args })
  let timerReports = 0
  const t = quietTimer(s, QUIET_MS, () => {
    // Once per pause: the next output starts a new period.
    timerReports++
  })
  if (c.typeAhead) s.write(c.typeAhead)
  const t0 = now()
  let ourReports = 0
  for (;;) {
    // A report counts once: the next wait needs output after it.
    const wait = await s.waitForInput({ since: s.screen().seq, timeoutMs: 60000 })
    if (wait.reason === 'exit') break
    if (wait.reason === 'input') ourReports++
  }
  t.stop()
  await s.exited
  return { id: c.id, title: c.title, ourReports, timerReports, seconds: ms(now() - t0) / 1000 }
}

/** This process's CPU time (ms) over `seconds` of wall time. */
async function cpuOver(seconds) {
  const a = process.cpuUsage()
  const t0 = now()
  await new Promise((r) => setTimeout(r, seconds * 1000))
  const b = process.cpuUsage(a)
  return { cpuMs: (b.user + b.system) / 1000, wallMs: ms(now() - t0) }
}

async function cpu(program) {
  const sessions = Array.from({ length: SESSIONS }, () => PtySession.spawn({ command: program[0], args: program[1] }))
  await Promise.all(sessions.map((s) => s.waitForSettle({ quietMs: 300 })))
  const seconds = 3
  const perSession = ({ cpuMs, wallMs }) => cpuMs / (wallMs / 1000) / SESSIONS
  const idle = perSession(await cpuOver(seconds))
  const pending = sessions.map((s) => s.waitForInput({ timeoutMs: seconds * 1000 + 500 }))
  const waiting = perSession(await cpuOver(seconds))
  const reasons = await Promise.all(pending)
  if (reasons.some((r) => r.reason === 'input')) throw new Error(`${program[0]}: reported waiting`)
  const timers = sessions.map((s) => quietTimer(s, QUIET_MS, () => {}))
  const timed = perSession(await cpuOver(seconds))
  for (const t of timers) t.stop()
  await Promise.all(sessions.map((s) => s.terminate({ graceMs: 200 })))
  return { program: program[0], sessions: SESSIONS, idleMsPerSec: idle, waitingMsPerSec: waiting, timerMsPerSec: timed }
}

function stats(latency) {
  return {
    n: latency.length,
    p50: quantile(latency, 0.5),
    p95: quantile(latency, 0.95),
    max: latency.length ? Math.max(...latency) : NaN,
  }
}

async function main() {
  const rows = []
  log(`timer: ${KINDS.length} kinds at once, ${ROUNDS} prompts each (about ${Math.round((ROUNDS * (QUIET_MS + 25)) / 1000)} s)`)
  const timers = await Promise.all(KINDS.map(timer))
  for (const [k, kind] of KINDS.entries()) {
    const o = await ours(kind)
    const row = {
      id: kind.id,
      title: kind.title,
      kind: kind.kind,
      ours: { ...stats(o.latency), wrongKind: o.wrongKind, early: o.early },
      timer: { ...stats(timers[k].latency), early: timers[k].early },
    }
    log(
      `${kind.id}: ptypilot p50 ${row.ours.p50.toFixed(2)} p95 ${row.ours.p95.toFixed(2)} max ${row.ours.max.toFixed(2)} ms (${o.wrongKind} wrong kind, ${o.early} early); timer p50 ${row.timer.p50.toFixed(0)} p95 ${row.timer.p95.toFixed(0)} ms`,
    )
    rows.push(row)
  }
  const silentRows = []
  for (const c of SILENT) {
    const r = await silent(c)
    log(`silent ${c.id}: ptypilot ${r.ourReports} false reports, timer ${r.timerReports}, over ${r.seconds.toFixed(1)} s`)
    silentRows.push(r)
  }
  const cpuRows = []
  for (const program of [
    ['sleep', ['60']],
    [process.execPath, ['-e', 'setInterval(() => {}, 1e6)']],
  ]) {
    const r = await cpu(program)
    log(`cpu ${path.basename(r.program)}: idle ${r.idleMsPerSec.toFixed(3)}, waiting ${r.waitingMsPerSec.toFixed(3)}, timer ${r.timerMsPerSec.toFixed(3)} ms CPU per s per session`)
    cpuRows.push({ ...r, program: path.basename(r.program) })
  }
  fs.rmSync(tmp, { recursive: true, force: true })
  emit({ rounds: ROUNDS, quietMs: QUIET_MS, silentSteps: SILENT_STEPS, rows, silent: silentRows, cpu: cpuRows })
}

main().catch((err) => {
  log(err.stack)
  process.exit(1)
})
