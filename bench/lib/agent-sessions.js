'use strict'
// Multi-step agent sessions on real programs, recorded screen by screen: what
// an agent driving a terminal tool would look at after each of its calls.
// Used by the lean-screens bench case (characters sent to the model) and by
// __test__/lean-screen.test.ts (every screen rebuilt from the lean views).
//
// Each session starts a program in an 80×24 pseudo-terminal in a fresh
// directory (also HOME, so no user configuration applies), then runs its
// steps: type the input (text, with named keys in angle brackets such as
// `<enter>` or `<ctrl+d>`), wait until the screen shows what the step
// expects, wait for it to settle, and take the screen. A step after which
// the program exited is marked `exited`: an agent is then sent the final
// content as a stopped state, not a running screen.
//
//   const { SESSIONS, record } = require('./agent-sessions')
//   const steps = await record(SESSIONS.vim)   // [{ input, screen, exited }]

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { PtySession } = require('../..')

/** A Python module of about 120 lines, the file the vim session edits. */
function pythonSource() {
  const out = ['"""Inventory service: load, validate and report stock levels."""', '', 'import json', 'import os', 'import sys', '']
  const names = ['load_config', 'parse_item', 'validate_item', 'merge_counts', 'format_row', 'write_report', 'main_loop', 'summarize']
  for (const [i, name] of names.entries()) {
    out.push('', `def ${name}(old_name, limit=${10 * (i + 1)}):`)
    out.push(`    """${name.replace('_', ' ')}: step ${i + 1} of the pipeline."""`)
    out.push(`    result = []`)
    out.push(`    for index, entry in enumerate(old_name):`)
    out.push(`        if index >= limit:`)
    out.push(`            break`)
    out.push(`        value = entry.get("count", 0) * ${i + 2}`)
    out.push(`        result.append({"name": entry["name"], "value": value})`)
    out.push(`    return result`)
  }
  out.push('', '', 'if __name__ == "__main__":', '    main_loop(json.load(open(sys.argv[1])))', '')
  return out.join('\n')
}

/** A log of 400 lines of varied length, the file the less session pages through. */
function logText() {
  const levels = ['INFO', 'INFO', 'DEBUG', 'WARN', 'INFO', 'ERROR']
  const what = [
    'request served',
    'cache miss for key',
    'connection pool resized',
    'slow query detected, rows scanned',
    'user session refreshed',
    'upstream returned 502, retrying',
  ]
  const out = []
  for (let i = 0; i < 400; i++) {
    const level = levels[(i * 7) % levels.length]
    const sec = String(i % 60).padStart(2, '0')
    const min = String(Math.floor(i / 60) % 60).padStart(2, '0')
    out.push(`2026-11-25 10:${min}:${sec} ${level.padEnd(5)} worker-${i % 4} ${what[(i * 5) % what.length]} id=${1000 + i * 37}`)
  }
  return out.join('\n') + '\n'
}

/**
 * A file with 5 changes far apart: `git add -p` shows 5 hunks.
 * @param {string} dir
 */
function gitRepo(dir) {
  const lines = []
  for (let i = 0; i < 200; i++) lines.push(`line ${i}: the quick brown fox jumps over the lazy dog`)
  fs.writeFileSync(path.join(dir, 'story.txt'), lines.join('\n') + '\n')
  const git = (/** @type {string[]} */ ...args) => execFileSync('git', args, { cwd: dir, env: envFor(dir), stdio: 'ignore' })
  git('init', '-q', '-b', 'main')
  git('config', 'user.email', 'bench@example.com')
  git('config', 'user.name', 'Bench')
  git('add', 'story.txt')
  git('commit', '-q', '-m', 'story')
  // From the end, so that each change's index still names the original line.
  for (const at of [170, 130, 90, 50, 10]) {
    lines[at] = `line ${at}: the quick red fox leaps over the sleepy cat`
    lines.splice(at + 2, 0, `inserted after line ${at + 1}: a new sentence about the fox`)
  }
  fs.writeFileSync(path.join(dir, 'story.txt'), lines.join('\n') + '\n')
}

/** @param {string} home */
function envFor(home) {
  return {
    ...process.env,
    HOME: home,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    LESS: '',
    LESSHISTFILE: '-',
    GIT_CONFIG_NOSYSTEM: '1',
    PYTHONSTARTUP: '',
  }
}

/**
 * @typedef {object} Session
 * @property {string} title what the session does
 * @property {(dir: string) => void} [setup] prepares the directory
 * @property {string} command
 * @property {string[]} args
 * @property {string | RegExp} ready what the first screen shows
 * @property {[string, string | RegExp | null][]} steps input, and what the screen shows after it
 *   (null: the program exits)
 */

/** @type {Record<string, Session>} */
const SESSIONS = {
  vim: {
    title: 'vim: search, edit, undo, substitute, page and jump through a 120-line file, write',
    setup: (/** @type {string} */ dir) => fs.writeFileSync(path.join(dir, 'app.py'), pythonSource()),
    command: 'vim',
    args: ['-u', 'DEFAULTS', '-i', 'NONE', '-n', 'app.py'],
    ready: '"app.py"',
    steps: [
      ['/def merge_counts<enter>', /^def merge_counts/m],
      ['j', /merge counts: step/],
      ['o', '-- INSERT --'],
      ['    # counts are per warehouse', 'per warehouse'],
      ['<esc>', /^(?![\s\S]*-- INSERT --)/],
      ['jj', /for index, entry/],
      ['dd', /    result = \[\]\n        if index/],
      ['u', /more line|line less|before #/],
      ['/value = entry<enter>', /value = entry/],
      ['cw', '-- INSERT --'],
      ['amount<esc>', /amount = entry/],
      [':%s/old_name/records/g<enter>', /substitutions/],
      ['gg', /Inventory service/],
      ['<ctrl+d>', /def /],
      ['<ctrl+d>', /def /],
      ['<ctrl+u>', /def /],
      ['G', /__main__/],
      ['/def summarize<enter>', /^def summarize/m],
      ['x', /^ef summarize/m],
      ['u', /^def summarize/m],
      [':w<enter>', /written/],
    ],
  },
  less: {
    title: '`less`: page forward and back, line by line, search and repeat, jump to the end and back',
    setup: (/** @type {string} */ dir) => fs.writeFileSync(path.join(dir, 'service.log'), logText()),
    command: 'less',
    args: ['service.log'],
    ready: 'service.log',
    steps: [
      ['<space>', /id=\d+\n[\s\S]*:\s*$/],
      ['<space>', /id=\d+/],
      ['j', /id=\d+/],
      ['j', /id=\d+/],
      ['j', /id=\d+/],
      ['d', /id=\d+/],
      ['b', /id=\d+/],
      ['/upstream returned<enter>', /upstream returned/],
      ['n', /upstream returned/],
      ['n', /upstream returned/],
      ['k', /id=\d+/],
      ['<space>', /id=\d+/],
      ['G', /\(END\)/],
      ['g', /10:00:00/],
      ['<space>', /id=\d+/],
    ],
  },
  'git-add-p': {
    title: '`git add -p` over 5 hunks: help, stage, skip, split view',
    setup: gitRepo,
    command: 'git',
    args: ['add', '-p'],
    ready: /\(1\/5\) Stage this hunk/,
    steps: [
      ['?<enter>', /print help/],
      ['y<enter>', /\(2\/5\) Stage this hunk/],
      ['n<enter>', /\(3\/5\) Stage this hunk/],
      ['y<enter>', /\(4\/5\) Stage this hunk/],
      ['s<enter>', /Split into 2 hunks[\s\S]*\(4\/6\) Stage this hunk/],
      ['y<enter>', /\(5\/6\) Stage this hunk/],
      ['n<enter>', /\(6\/6\) Stage this hunk/],
      ['y<enter>', null],
    ],
  },
  repl: {
    title: 'Python REPL: definitions, calls, loops, a traceback, a slow call polled with fetch, a long listing',
    command: 'python3',
    args: ['-q'],
    ready: />>>$/m,
    steps: [
      ['import math, json, time<enter>', />>>$/m],
      ['def area(r):<enter>', /\.\.\.$/m],
      ['    return math.pi * r * r<enter>', /\.\.\.$/m],
      ['<enter>', />>>$/m],
      ['[round(area(r), 2) for r in range(8)]<enter>', /153\.94\]\n>>>$/m],
      ['for i in range(6): print(i, math.sqrt(i))<enter>', /\.\.\.$/m],
      ['<enter>', /5 2\.23606797749979\n>>>$/m],
      ['1 / 0<enter>', /ZeroDivisionError[\s\S]*>>>$/m],
      ['config = {"name": "svc", "ports": [80, 443], "debug": False}<enter>', />>>$/m],
      ['print(json.dumps(config, indent=2))<enter>', /^}\n>>>$/m],
      ['sorted(config)<enter>', /'ports'\]\n>>>$/m],
      // A slow call: the screen settles before it answers, so the agent
      // looks again (a fetch: no input) until the answer is there.
      ['time.sleep(1.5); print("loaded", len(config))<enter>', /time\.sleep\(1\.5\)/],
      ['', /^loaded 3\n>>>$/m],
      ['for k in range(12): print(k, k ** 2, k ** 3)<enter>', /\.\.\.$/m],
      ['<enter>', /^11 121 1331\n>>>$/m],
      ['len(config["ports"])<enter>', /^2\n>>>$/m],
      ['area(2.5)<enter>', /19\.63[\d.]*\n>>>$/m],
      ['words = "the quick brown fox jumps over the lazy dog".split()<enter>', />>>$/m],
      ['{w: len(w) for w in words}<enter>', /dog': 3\}\n>>>$/m],
      ['max(words, key=len)<enter>', /'quick'\n>>>$/m],
    ],
  },
}

/**
 * Types `input`: plain text as is, `<name>` as the named key.
 * @param {import('../..').PtySession} s
 * @param {string} input
 */
function type(s, input) {
  // An empty input is a look without typing (a fetch).
  for (const part of input.split(/(<[a-z0-9+]+>)/)) {
    if (part === '') continue
    const key = /^<([a-z0-9+]+)>$/.exec(part)
    if (key) s.sendKeys(key[1])
    else s.write(part)
  }
}

/**
 * @param {import('../..').PtySession} s
 * @param {string | RegExp | null} until
 * @param {string} label
 */
async function settle(s, until, label) {
  if (until !== null) {
    await s.waitFor(until, { since: 'input', in: 'screen', timeoutMs: 15_000 }).catch((/** @type {any} */ err) => {
      if (err && err.code === 'ERR_NOT_RUNNING') return
      err.message = `${label}: ${err.message}`
      throw err
    })
  }
  if (s.running) await s.waitForSettle({ quietMs: 150, timeoutMs: 10_000 })
}

/**
 * Runs `session` and resolves to its screens: the first one after the
 * program started (`input: null`), then one per step.
 * @param {Session} session
 * @returns {Promise<{ input: string | null, screen: import('../..').ScreenSnapshot, exited: boolean }[]>}
 */
async function record(session) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptypilot-lean-'))
  try {
    if (session.setup) session.setup(dir)
    const s = PtySession.spawn({ command: session.command, args: session.args, cwd: dir, env: envFor(dir), inheritEnv: false, cols: 80, rows: 24 })
    try {
      await s.waitFor(session.ready, { timeoutMs: 15_000 })
      await s.waitForSettle({ quietMs: 150, timeoutMs: 10_000 })
      /** @type {{ input: string | null, screen: import('../..').ScreenSnapshot, exited: boolean }[]} */
      const out = [{ input: null, screen: s.screen(), exited: false }]
      for (const [input, until] of session.steps) {
        type(s, input)
        if (until === null) await s.exited
        await settle(s, until, `${session.command} step ${JSON.stringify(input)}`)
        out.push({ input, screen: s.screen(), exited: !s.running })
      }
      return out
    } finally {
      if (s.running) await s.terminate({ graceMs: 500 })
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

module.exports = { SESSIONS, record }
