'use strict'
// Case 11: the same agent tasks through two MCP servers — `ptypilot mcp` and
// DesktopCommander's (`@wonderwhy-er/desktop-commander`, the most used MCP
// server with terminal tools) — with the same MCP SDK client, and a script
// per server that does what a competent agent would with that server's
// tools: it reads each reply and acts on what it says (answers a prompt it
// sees, reads again while the program still runs), never on fixed sleeps.
//
// The tasks (programs in bench/lib/agent-tasks/):
//   repl      a Python REPL: define x, print x * 10, leave
//   delayed   a prompt after 1.5 s of silence, answered "y"
//   password  a password prompt with echo off (sh, stty -echo, read)
//   long      20 000 lines of output; the summary line and the exit code
//   compute   a silent 3 s computation; its result and exit code
//   git       `git add -p` staging the first of two hunks only
//
// Per task and server: success (checked by the bench: the answer seen in a
// reply, the exit code known, the git index as asked, no secret shown),
// wall time from the first call to the last reply, tool calls, characters
// returned (text of all replies). The programs that prompt stamp the wall
// clock right before they read (the REPL through its PYTHONSTARTUP prompt
// object); a step that waits for a prompt is timed from that stamp to the
// reply arriving at the client ("prompt latency").
//
// DesktopCommander is installed by this case, never a dependency of the
// package: `npm install --ignore-scripts` into a cache folder
// ($PTYPILOT_BENCH_CACHE, else $XDG_CACHE_HOME/ptypilot-bench, else
// ~/.cache/ptypilot-bench); its install scripts stay off (a dependency of it
// downloads a browser). It runs with its telemetry off
// (DESKTOP_COMMANDER_DISABLE_TELEMETRY) and a throw-away HOME for its config.
//
// `ptypilot` is `ptypilot mcp` as served, in its default sandbox (workspace-write,
// network on, private caches); `ptypilot-unsandboxed` is the same server with
// `--sandbox off`, run in the same run so that the sandbox's cost shows.
//
//   node bench/cases/agent-tasks.js [--repeats=3] [--only=repl,git] [--servers=ptypilot,ptypilot-unsandboxed,desktop-commander] [--sandbox=workspace-write|read-only|off] [--verbose]

const { execFileSync, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { performance } = require('node:perf_hooks')
const { argv, emit, log, summary } = require('../lib/stats')

const opts = argv()
const REPEATS = Number(opts.repeats || 3)
const VERBOSE = Boolean(opts.verbose)
const ROOT = path.join(__dirname, '..', '..')
const PROGRAMS = path.join(__dirname, '..', 'lib', 'agent-tasks')
/** The DesktopCommander release measured (pinned: its prompt heuristics change between releases). */
const DC_VERSION = String(opts['dc-version'] || '0.2.52')
const DC_PACKAGE = '@wonderwhy-er/desktop-commander'

const TASKS = ['repl', 'delayed', 'password', 'long', 'compute', 'git']
const SECRET = 'hunter2'

// ---------- the peer, installed into a cache folder ----------

function cacheDir() {
  if (process.env.PTYPILOT_BENCH_CACHE) return process.env.PTYPILOT_BENCH_CACHE
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache')
  return path.join(base, 'ptypilot-bench')
}

/** The path of DesktopCommander's entry point, installing it first when the cache lacks it. */
function desktopCommander() {
  const dir = path.join(cacheDir(), `desktop-commander-${DC_VERSION}`)
  const pkg = path.join(dir, 'node_modules', ...DC_PACKAGE.split('/'), 'package.json')
  const installed = () => {
    try {
      return JSON.parse(fs.readFileSync(pkg, 'utf8')).version === DC_VERSION
    } catch {
      return false
    }
  }
  if (!installed()) {
    fs.mkdirSync(dir, { recursive: true })
    if (!fs.existsSync(path.join(dir, 'package.json'))) {
      fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'ptypilot-bench-peer', private: true }) + '\n')
    }
    log(`installing ${DC_PACKAGE}@${DC_VERSION} into ${dir} (npm install --ignore-scripts)`)
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
    const out = spawnSync(npm, ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', `${DC_PACKAGE}@${DC_VERSION}`], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 600_000,
    })
    if (out.status !== 0 || !installed()) {
      throw new Error(`installing ${DC_PACKAGE}@${DC_VERSION} failed (status ${out.status}): ${(out.stderr || '').trim().slice(-800)}`)
    }
  }
  const main = JSON.parse(fs.readFileSync(pkg, 'utf8')).bin['desktop-commander']
  return path.join(path.dirname(pkg), main)
}

// ---------- the workspace the tasks run in ----------

/** A fresh folder with the task programs and a git repository with two unstaged hunks. */
function workspace() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptypilot-agent-tasks-'))
  for (const f of fs.readdirSync(PROGRAMS)) fs.copyFileSync(path.join(PROGRAMS, f), path.join(dir, f))
  fs.mkdirSync(path.join(dir, 'home'))
  return dir
}

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
}

/** A repository in `dir/repo` whose notes.txt has two changes far apart: two hunks. */
function gitRepo(dir) {
  const repo = path.join(dir, 'repo')
  fs.rmSync(repo, { recursive: true, force: true })
  fs.mkdirSync(repo)
  const git = (...args) => execFileSync('git', args, { cwd: repo, env: { ...process.env, ...GIT_ENV, HOME: path.join(dir, 'home') }, encoding: 'utf8' })
  git('init', '-q')
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`)
  fs.writeFileSync(path.join(repo, 'notes.txt'), lines.join('\n') + '\n')
  git('add', 'notes.txt')
  git('commit', '-q', '-m', 'notes')
  lines[2] = 'line 3, changed: stage this one'
  lines[26] = 'line 27, changed: leave this one'
  fs.writeFileSync(path.join(repo, 'notes.txt'), lines.join('\n') + '\n')
  return { repo, git }
}

// ---------- one MCP server and the calls made to it ----------

/** Wall clock in ms with sub-ms precision (comparable with the programs' time_ns stamps). */
const wallMs = () => performance.timeOrigin + performance.now()

class Server {
  constructor(name, command, args, env, cwd, warmUp) {
    this.name = name
    this.warmUp = warmUp
    this.spec = { command, args, env, cwd }
    this.client = null
    this.version = null
  }

  async connect() {
    const { Client } = require('@modelcontextprotocol/sdk/client/index.js')
    const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js')
    const transport = new StdioClientTransport({ ...this.spec, stderr: 'pipe' })
    this.stderr = ''
    transport.stderr?.on('data', (d) => (this.stderr = (this.stderr + d).slice(-4000)))
    this.client = new Client({ name: 'ptypilot-agent-tasks-bench', version: '1.0.0' })
    await this.client.connect(transport)
    this.version = this.client.getServerVersion()?.version ?? '?'
    // One untimed call first: what a server sets up on its first call (ptypilot's host process) is not a task's.
    await this.client.callTool({ name: this.warmUp, arguments: {} })
  }

  async close() {
    await this.client?.close().catch(() => {})
  }
}

/**
 * One task run's calls: each timed, its reply's text kept, the steps that
 * wait for a prompt marked so their latency can be measured.
 */
class Run {
  constructor(server, task) {
    this.server = server
    this.task = task
    this.calls = []
    this.seen = ''
  }

  /** Calls `name` with `args`; returns the reply's text. `prompt`: this step ends at a prompt. */
  async call(name, args, { prompt = false } = {}) {
    const startedAt = wallMs()
    const t0 = performance.now()
    const reply = await this.server.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })
    const ms = performance.now() - t0
    const text = (reply.content || []).map((c) => (c.type === 'text' ? c.text : '')).join('\n')
    this.calls.push({ name, args, ms, startedAt, endedAt: wallMs(), chars: text.length, prompt, isError: Boolean(reply.isError) })
    this.seen += `\n${text}`
    if (VERBOSE) {
      const shown = text.length > 600 ? `${text.slice(0, 300)} … ${text.slice(-300)}` : text
      log(`  [${this.server.name} ${this.task}] ${name} ${JSON.stringify(args)} → ${ms.toFixed(0)} ms\n    ${shown.replace(/\n/g, '\n    ')}`)
    }
    return text
  }
}

// ---------- the agent scripts ----------

const WAIT = 10_000
/** Reads an agent makes while waiting for one thing before it gives up (the task then fails). */
const PATIENCE = 6

function givenUp(run, what) {
  return new Error(`gave up after ${PATIENCE} reads waiting for ${what}`)
}

/** ptypilot's state line: `[session ID: STATE] [cursor: N]`, or a finished pty_exec's `[exited N after T]`. */
function ptyState(text) {
  const lines = [...text.matchAll(/\[session (\S+): ([^\]]+)\] \[cursor: (\d+)\]/g)]
  const last = lines[lines.length - 1]
  const exited = /\[exited (-?\d+)(?: after [^\]]*)?\]\s*$/.exec(text)
  if (last === undefined) return exited ? { id: null, state: `exited ${exited[1]}`, cursor: null } : null
  return { id: last[1], state: last[2], cursor: Number(last[3]) }
}

const isWaiting = (s) => s !== null && s.state.startsWith('waiting for input')
const isExited = (s) => s !== null && s.state.startsWith('exited')

/**
 * Reads session `state.id` while its program runs without waiting for input
 * and `done(text)` is not yet true; the last reply's state.
 */
async function ptyFollow(run, state, done, options) {
  let s = state
  let text = ''
  for (let reads = 0; s !== null && s.id !== null && !isWaiting(s) && !isExited(s) && !done(text); reads++) {
    if (reads === PATIENCE) throw givenUp(run, 'input or the exit')
    text = await run.call('pty_read', { id: s.id, since: s.cursor, wait_ms: WAIT }, options)
    s = ptyState(text) ?? s
  }
  return s
}

const ptypilotAgent = {
  async repl(run) {
    let text = await run.call('pty_start', { command: 'python3', wait_ms: WAIT }, { prompt: true })
    let s = await ptyFollow(run, ptyState(text), () => false, { prompt: true })
    const id = s.id
    text = await run.call('pty_send', { id, input: 'x = 6 * 7<enter>', wait_ms: WAIT }, { prompt: true })
    s = await ptyFollow(run, ptyState(text), () => false, { prompt: true })
    text = await run.call('pty_send', { id, input: 'print(x * 10)<enter>', wait_ms: WAIT }, { prompt: true })
    s = await ptyFollow(run, ptyState(text), () => false, { prompt: true })
    const answered = /^420$/m.test(text)
    text = await run.call('pty_send', { id, input: 'exit()<enter>', wait_ms: WAIT })
    s = await ptyFollow(run, ptyState(text), () => false)
    return { answered, exited: s !== null && s.state === 'exited 0' }
  },

  async delayed(run) {
    let text = await run.call('pty_exec', { command: 'python3', args: ['delayed_prompt.py'], timeout_ms: 60_000 }, { prompt: true })
    let s = await ptyFollow(run, ptyState(text), (t) => /\[y\/N\]/.test(t), { prompt: true })
    text = await run.call('pty_send', { id: s.id, input: 'y<enter>', wait_ms: WAIT })
    s = await ptyFollow(run, ptyState(text), () => false)
    return { answered: run.seen.includes('Installed 3 packages.'), exited: s !== null && s.state === 'exited 0' }
  },

  async password(run) {
    let text = await run.call('pty_exec', { command: 'sh', args: ['login.sh'], timeout_ms: 60_000 }, { prompt: true })
    let s = await ptyFollow(run, ptyState(text), (t) => /Password:/.test(t), { prompt: true })
    text = await run.call('pty_send', { id: s.id, input: `${SECRET}<enter>`, wait_ms: WAIT })
    s = await ptyFollow(run, ptyState(text), () => false)
    return { answered: run.seen.includes('Vault unlocked.'), exited: s !== null && s.state === 'exited 0' }
  },

  async long(run) {
    const text = await run.call('pty_exec', { command: 'python3', args: ['tests.py'], timeout_ms: 60_000 })
    const s = await ptyFollow(run, ptyState(text), () => false)
    return { answered: run.seen.includes('# 20000 passed, 0 failed'), exited: s !== null && s.state === 'exited 0' }
  },

  async compute(run) {
    const text = await run.call('pty_exec', { command: 'python3', args: ['compute.py'], timeout_ms: 60_000 })
    const s = await ptyFollow(run, ptyState(text), () => false)
    return { answered: run.seen.includes('result: 42'), exited: s !== null && s.state === 'exited 0' }
  },

  async git(run) {
    let text = await run.call('pty_exec', { command: 'git', args: ['add', '-p'], cwd: 'repo', timeout_ms: 60_000 })
    let s = await ptyFollow(run, ptyState(text), () => false)
    // Each hunk shown with its question: stage the one to stage, leave the other.
    while (isWaiting(s)) {
      const hunk = text.slice(text.lastIndexOf('@@ '))
      text = await run.call('pty_send', { id: s.id, input: hunk.includes('stage this one') ? 'y<enter>' : 'n<enter>', wait_ms: WAIT })
      s = await ptyFollow(run, ptyState(text), () => false)
    }
    return { answered: true, exited: s !== null && s.state === 'exited 0' }
  },
}

/** DesktopCommander's pid from start_process's reply. */
function dcPid(text) {
  const m = /PID (-?\d+)/.exec(text)
  if (!m) throw new Error(`no PID in start_process's reply: ${text.slice(0, 300)}`)
  return Number(m[1])
}

/** The exit code DesktopCommander reported, or null. */
function dcExit(text) {
  const m = /Process completed with exit code (-?\d+)/.exec(text)
  return m ? Number(m[1]) : null
}

/** Reads new output of `pid` until `done(all text so far)` or the process completed; the text read. */
async function dcFollow(run, pid, done) {
  let text = ''
  for (let reads = 0; !done(run.seen) && dcExit(text) === null; reads++) {
    if (reads === PATIENCE) throw givenUp(run, 'its output')
    text = await run.call('read_process_output', { pid, timeout_ms: 5000 })
  }
  return text
}

/** Reads until DesktopCommander reports the exit (a competent agent wants to know it finished); the code. */
async function dcUntilExit(run, pid, last) {
  let text = last
  for (let reads = 0; dcExit(text) === null; reads++) {
    if (reads === PATIENCE) throw givenUp(run, 'the exit')
    text = await run.call('read_process_output', { pid, timeout_ms: 5000 })
  }
  return dcExit(text)
}

const desktopCommanderAgent = {
  async repl(run) {
    // Its own docs: a Python REPL is `python3 -i` (the program runs on pipes).
    const text = await run.call('start_process', { command: 'python3 -i', timeout_ms: 5000 }, { prompt: true })
    const pid = dcPid(text)
    await dcFollow(run, pid, (t) => t.includes('>>>'))
    await run.call('interact_with_process', { pid, input: 'x = 6 * 7' }, { prompt: true })
    const answer = await run.call('interact_with_process', { pid, input: 'print(x * 10)' }, { prompt: true })
    await run.call('force_terminate', { pid })
    return { answered: /^420$/m.test(answer), exited: true } // force_terminate: no exit code to know
  },

  async delayed(run) {
    const text = await run.call('start_process', { command: 'python3 delayed_prompt.py', timeout_ms: 5000 }, { prompt: true })
    const pid = dcPid(text)
    await dcFollow(run, pid, (t) => /\[y\/N\]/.test(t))
    const answer = await run.call('interact_with_process', { pid, input: 'y' })
    const code = await dcUntilExit(run, pid, answer)
    return { answered: run.seen.includes('Installed 3 packages.'), exited: code === 0 }
  },

  async password(run) {
    const text = await run.call('start_process', { command: 'sh login.sh', timeout_ms: 5000 }, { prompt: true })
    const pid = dcPid(text)
    await dcFollow(run, pid, (t) => /Password:/.test(t))
    const answer = await run.call('interact_with_process', { pid, input: SECRET })
    const code = await dcUntilExit(run, pid, answer)
    return { answered: run.seen.includes('Vault unlocked.'), exited: code === 0 }
  },

  async long(run) {
    const text = await run.call('start_process', { command: 'python3 tests.py', timeout_ms: 5000 })
    const pid = dcPid(text)
    // The last lines and the exit code: a tail read of a finished process.
    let last = ''
    for (let reads = 0; dcExit(last) === null; reads++) {
      if (reads === PATIENCE) throw givenUp(run, 'the exit')
      last = await run.call('read_process_output', { pid, offset: -5 })
    }
    return { answered: run.seen.includes('# 20000 passed, 0 failed'), exited: dcExit(last) === 0 }
  },

  async compute(run) {
    const text = await run.call('start_process', { command: 'python3 compute.py', timeout_ms: 5000 })
    const code = await dcUntilExit(run, dcPid(text), '')
    return { answered: run.seen.includes('result: 42'), exited: code === 0 }
  },

  async git(run) {
    let text = await run.call('start_process', { command: 'cd repo && git add -p', timeout_ms: 5000 })
    const pid = dcPid(text)
    // Question k of n ("(k/n) Stage this hunk [y,n,…]?"), answered by the hunk shown above it.
    for (let k = 1, n = 1; k <= n; k++) {
      const question = new RegExp(`\\(${k}/(\\d+)\\) Stage this hunk`)
      for (let reads = 0; !question.test(run.seen) && dcExit(text) === null; reads++) {
        if (reads === PATIENCE) throw givenUp(run, `question ${k}`)
        text = await run.call('read_process_output', { pid, timeout_ms: 5000 })
      }
      const m = question.exec(run.seen)
      if (m === null) break
      n = Number(m[1])
      const hunk = run.seen.slice(run.seen.lastIndexOf('@@ ', m.index), m.index)
      text = await run.call('interact_with_process', { pid, input: hunk.includes('stage this one') ? 'y' : 'n' })
    }
    const code = await dcUntilExit(run, pid, text)
    return { answered: true, exited: code === 0 }
  },
}

// ---------- running and checking ----------

/** Wall-clock stamps (ms) the programs wrote, in order. */
function readStamps(file) {
  try {
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^\d+$/.test(l))
      .map((l) => Number(BigInt(l) / 1000n) / 1000)
  } catch {
    return []
  }
}

/**
 * Each prompt step's latency: from the later of the prompt's stamp (the
 * last one before the reply) and the call's start, to the reply.
 */
function promptLatencies(calls, stamps) {
  const out = []
  for (const c of calls) {
    if (!c.prompt) continue
    const before = stamps.filter((t) => t <= c.endedAt)
    if (before.length === 0) continue
    out.push(c.endedAt - Math.max(before[before.length - 1], c.startedAt))
  }
  return out
}

async function runTask(server, agent, task, ws, stampFile) {
  fs.writeFileSync(stampFile, '')
  const repo = task === 'git' ? gitRepo(ws) : null
  const run = new Run(server, task)
  let outcome
  let error = null
  const t0 = performance.now()
  try {
    outcome = await agent[task](run)
  } catch (err) {
    error = err && err.message ? err.message : String(err)
    outcome = { answered: false, exited: false }
  }
  const ms = performance.now() - t0
  // Each check, named by what is wrong when it fails; a run succeeds when all hold.
  const checks = {
    "the program's answer reached no reply": outcome.answered,
    'the exit code was not reported': outcome.exited,
    'a reply showed the password': !run.seen.includes(SECRET),
  }
  if (repo) {
    const cached = repo.git('diff', '--cached')
    checks['not only the first hunk was staged'] = cached.includes('+line 3, changed: stage this one') && !cached.includes('line 27, changed')
    checks['the second hunk was not left unstaged'] = repo.git('diff').includes('+line 27, changed: leave this one')
  }
  const failed = Object.keys(checks).filter((k) => !checks[k])
  const ok = error === null && failed.length === 0
  const latencies = promptLatencies(run.calls, readStamps(stampFile))
  return {
    ok,
    error: error ?? (failed.length ? failed.join('; ') : null),
    ms,
    calls: run.calls.length,
    chars: run.calls.reduce((a, c) => a + c.chars, 0),
    promptLatencies: latencies,
    steps: run.calls.map((c) => ({ name: c.name, ms: Math.round(c.ms), chars: c.chars, prompt: c.prompt })),
  }
}

async function main() {
  const tasks = opts.only ? String(opts.only).split(',') : TASKS
  const unknown = tasks.filter((t) => !TASKS.includes(t))
  if (unknown.length) throw new Error(`unknown task ${unknown.join(', ')} (tasks: ${TASKS.join(', ')})`)
  const names = opts.servers ? String(opts.servers).split(',') : ['ptypilot', 'ptypilot-unsandboxed', 'desktop-commander']
  const ws = workspace()
  const stampFile = path.join(ws, 'stamps.txt')
  const env = {
    ...process.env,
    ...GIT_ENV,
    HOME: path.join(ws, 'home'),
    PYTHONSTARTUP: path.join(ws, 'startup.py'),
    AGENT_TASK_STAMPS: stampFile,
    DESKTOP_COMMANDER_DISABLE_TELEMETRY: '1',
  }
  const servers = {}
  for (const name of names) {
    if (name === 'ptypilot') {
      // `--sandbox=MODE` (default: the server's own, workspace-write with the network on).
      const sandbox = opts.sandbox === undefined ? [] : ['--sandbox', String(opts.sandbox)]
      servers[name] = { server: new Server(name, process.execPath, [path.join(ROOT, 'bin', 'ptypilot.js'), 'mcp', ...sandbox], env, ws, 'pty_list'), agent: ptypilotAgent }
    } else if (name === 'ptypilot-unsandboxed') {
      servers[name] = { server: new Server(name, process.execPath, [path.join(ROOT, 'bin', 'ptypilot.js'), 'mcp', '--sandbox', 'off'], env, ws, 'pty_list'), agent: ptypilotAgent }
    } else if (name === 'desktop-commander') {
      const entry = desktopCommander()
      servers[name] = { server: new Server(name, process.execPath, [entry, '--no-onboarding'], env, ws, 'list_sessions'), agent: desktopCommanderAgent }
    } else {
      throw new Error(`unknown server ${name} (servers: ptypilot, ptypilot-unsandboxed, desktop-commander)`)
    }
  }
  for (const { server } of Object.values(servers)) await server.connect()

  const results = Object.fromEntries(names.map((n) => [n, Object.fromEntries(tasks.map((t) => [t, []]))]))
  for (let r = 0; r < REPEATS; r++) {
    // Alternate which server goes first, so both see the same load on average.
    const order = r % 2 === 0 ? names : [...names].reverse()
    for (const task of tasks) {
      for (const name of order) {
        const { server, agent } = servers[name]
        const res = await runTask(server, agent, task, ws, stampFile)
        results[name][task].push(res)
        log(
          `${name.padEnd(17)} ${task.padEnd(8)} ${res.ok ? 'ok  ' : 'FAIL'} ${res.ms.toFixed(0).padStart(6)} ms ${String(res.calls).padStart(2)} calls ` +
            `${String(res.chars).padStart(7)} chars  prompts ${res.promptLatencies.map((x) => x.toFixed(1)).join(' ') || '–'}` +
            `${res.ok ? '' : `  ${res.error}`}`,
        )
      }
    }
  }
  for (const { server } of Object.values(servers)) await server.close()
  fs.rmSync(ws, { recursive: true, force: true })

  const rows = []
  for (const name of names) {
    for (const task of tasks) {
      const runs = results[name][task]
      const lat = runs.flatMap((x) => x.promptLatencies)
      rows.push({
        server: name,
        version: servers[name].server.version,
        task,
        runs: runs.length,
        ok: runs.filter((x) => x.ok).length,
        ms: summary(runs.map((x) => x.ms)),
        calls: summary(runs.map((x) => x.calls)),
        chars: summary(runs.map((x) => x.chars)),
        promptLatency: lat.length ? { ...summary(lat), all: lat.map((x) => Math.round(x * 10) / 10) } : null,
        failures: runs.filter((x) => !x.ok).map((x) => x.error),
        steps: runs[0]?.steps ?? [],
      })
    }
  }
  emit({ repeats: REPEATS, tasks, dcVersion: DC_VERSION, rows })
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
