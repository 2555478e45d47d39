#!/usr/bin/env node
'use strict'
// `npm run test:runtimes`: the runtime suite. The same representative cases
// run under each JavaScript runtime ptypilot supports — Node 20 (the one on
// PATH, where it is 20), 22, 24 and 26, Bun and Deno (fetched from the npm
// registry by scripts/runtimes.js) — and one line per runtime and case tells
// how it went:
//
//   load (CJS)        require() of the entries, by path and by package name
//   load (ESM)        import of the entries, the same objects as require()'s
//   flood 100 MB      a session with a text and a raw listener, paused and
//                     resumed, 100 MB of numbered lines, none lost; then a
//                     typed answer
//   Shell             a bash Shell: exit codes, state kept, a timeout
//   node-pty API      ptypilot/node-pty: spawn, onData, write, resize, onExit
//   MCP stdio         `ptypilot mcp --web` under the runtime: pty_start then
//                     pty_send to an interactive bash, and the live panel's page
//   README agent      the README's agent example (agent.mjs), its answer
//   README test       the README's Vitest example, Vitest itself run by the runtime
//
// The cases are the scripts beside this file (each exits 0 and prints one line
// when it passed); the MCP one is run from here, its server under the runtime.
// A case whose program is missing (python3, bash) is skipped with the reason.
// Exits 1 when any case failed.
//
// Usage: node scripts/runtime-suite/run.js [--runtimes=node20,node24,bun,...]
//          [--cases=load-cjs,flood,...] [--markdown]
//   --markdown  the table as Markdown, a case a row and a runtime a column (docs/install.md shows it)

const { spawn, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { RUNTIMES, fetchRuntime } = require('../runtimes.js')

const ROOT = path.join(__dirname, '..', '..')
const CASE_TIMEOUT_MS = 180_000

/** @typedef {{ name: string, version: string, argv: string[] | null, bin?: string }} Runtime */
/** @typedef {{ ok?: boolean, skip?: boolean, detail: string }} Verdict */
/** @typedef {{ code: number | string | null, stdout: string, stderr: string }} RunResult */
/** @typedef {{ key: string, title: string, needs?: string[], run: (rt: any, project: string) => Promise<Verdict> }} Case */

/** Whether `cmd` is on PATH. @param {string} cmd */
function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0
}

/** Node 20 from PATH (any `node` on it whose major version is 20), or null. */
function pathNode20() {
  const found = spawnSync('sh', ['-c', 'which -a node'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean)
  for (const bin of found) {
    const v = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim()
    if (v.startsWith('v20.')) return { name: 'node20', version: v.slice(1), bin }
  }
  return null
}

/**
 * The runtimes to run under: `{ name, version, argv }` (argv runs a script).
 * @param {string[]} wanted
 * @returns {Runtime[]}
 */
function runtimes(wanted) {
  /** @type {Runtime[]} */
  const out = []
  for (const name of wanted) {
    if (name === 'node20') {
      const node = pathNode20()
      out.push(node ? { ...node, argv: [node.bin] } : { name, version: 'not on PATH', argv: null })
      continue
    }
    const r = fetchRuntime(name)
    out.push({ ...r, argv: name === 'deno' ? [r.bin, 'run', '-A'] : [r.bin] })
  }
  return out
}

/**
 * Runs `argv` in `cwd` with a time limit: `{ code, stdout, stderr }`.
 * @param {string[]} argv
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number }} [options]
 * @returns {Promise<RunResult>}
 */
function run(argv, { cwd = ROOT, env = process.env, timeoutMs = CASE_TIMEOUT_MS } = {}) {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code: code ?? signal, stdout, stderr })
    })
  })
}

/**
 * A case's result from a script's run: the last line of its output.
 * @param {RunResult} result
 * @returns {Verdict}
 */
function verdict({ code, stdout, stderr }) {
  const last = (/** @type {string} */ text) => text.trim().split('\n').filter(Boolean).pop() ?? ''
  if (code === 0) return { ok: true, detail: last(stdout) }
  return { ok: false, detail: `exit ${code}: ${last(stderr) || last(stdout)}`.slice(0, 300) }
}

/** A fenced block of README.md by its `file=` name. @param {string} file */
function readmeExample(file) {
  const text = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const m = new RegExp('```\\w+ runnable file=' + file.replace('.', '\\.') + '[^\\n]*\\n([\\s\\S]*?)\\n```').exec(text)
  if (!m) throw new Error(`README.md has no runnable block file=${file}`)
  return m[1]
}

/** A scratch project with ptypilot (and vitest) in node_modules, linked to this checkout. */
function scratchProject() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptypilot-runtimes-'))
  fs.mkdirSync(path.join(dir, 'node_modules'))
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'ptypilot'))
  for (const pkg of ['vitest']) {
    const from = path.join(ROOT, 'node_modules', pkg)
    if (fs.existsSync(from)) fs.symlinkSync(from, path.join(dir, 'node_modules', pkg))
  }
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }))
  fs.writeFileSync(path.join(dir, 'agent.mjs'), readmeExample('agent.mjs'))
  fs.writeFileSync(path.join(dir, 'python.test.ts'), readmeExample('python.test.ts'))
  return dir
}

/**
 * The MCP case: the server under the runtime, an interactive bash, the live panel.
 * @param {{ argv: string[] }} rt
 * @param {string} project
 * @returns {Promise<Verdict>}
 */
async function mcpCase(rt, project) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
  const transport = new StdioClientTransport({
    command: rt.argv[0],
    args: [...rt.argv.slice(1), path.join(ROOT, 'bin', 'ptypilot.js'), 'mcp', '--web'],
    env: /** @type {Record<string, string>} */ (process.env),
    cwd: project,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (d) => (stderr += d))
  const client = new Client({ name: 'ptypilot-runtimes', version: '0.0.0' })
  const call = async (/** @type {string} */ name, /** @type {Record<string, unknown>} */ args) => {
    const result = await client.callTool({ name, arguments: args })
    const content = /** @type {{ text: string }[]} */ (result.content)
    const text = content.map((c) => c.text).join('\n')
    if (result.isError) throw new Error(`${name}: ${text}`)
    return text
  }
  try {
    await client.connect(transport)
    const started = await call('pty_start', { command: 'bash', args: ['--norc', '--noprofile', '-i'], wait_ms: 5000 })
    const id = /session (pty\d+)/.exec(started)?.[1]
    if (!id) throw new Error(`pty_start named no session: ${started.slice(0, 200)}`)
    const sent = await call('pty_send', { id, input: 'echo $((6 * 7))<enter>', wait_ms: 5000 })
    if (!/^42$/m.test(sent)) throw new Error(`pty_send's reply lacks 42: ${sent.slice(0, 300)}`)
    const url = /live panel of the terminal sessions: (http\S+)/.exec(stderr)?.[1]
    if (!url) throw new Error(`no panel URL on stderr: ${stderr.slice(0, 300)}`)
    const page = await fetch(url)
    if (page.status !== 200) throw new Error(`the panel answered ${page.status}`)
    await call('pty_stop', { id })
    return { ok: true, detail: `pty_start + pty_send answered 42; panel page ${page.status}` }
  } catch (err) {
    return { ok: false, detail: `${err instanceof Error ? err.message : String(err)} ${stderr.trim().split('\n').pop() ?? ''}`.slice(0, 300) }
  } finally {
    await client.close().catch(() => {})
  }
}

/** Vitest's CLI under the runtime. @param {{ argv: string[] }} rt */
function vitestArgv(rt) {
  return [...rt.argv, path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')]
}

/** @type {Case[]} */
const CASES = [
  { key: 'load-cjs', title: 'load (CJS)', run: (rt, project) => run([...rt.argv, 'scripts/runtime-suite/load.cjs', project]).then(verdict) },
  { key: 'load-esm', title: 'load (ESM)', run: (rt) => run([...rt.argv, 'scripts/runtime-suite/load.mjs']).then(verdict) },
  { key: 'flood', title: 'listener + 100 MB flood', run: (rt) => run([...rt.argv, 'scripts/runtime-suite/flood.cjs']).then(verdict) },
  { key: 'shell', title: 'Shell', needs: ['bash'], run: (rt) => run([...rt.argv, 'scripts/runtime-suite/shell.cjs']).then(verdict) },
  { key: 'node-pty', title: 'node-pty API', needs: ['bash'], run: (rt) => run([...rt.argv, 'scripts/runtime-suite/node-pty.cjs']).then(verdict) },
  { key: 'mcp', title: 'MCP stdio + panel', needs: ['bash'], run: mcpCase },
  {
    key: 'readme-agent',
    title: 'README agent',
    needs: ['python3'],
    run: async (rt, project) => {
      const result = await run([...rt.argv, 'agent.mjs'], { cwd: project })
      const v = verdict(result)
      if (v.ok && !/^42$/m.test(result.stdout)) return { ok: false, detail: `no 42 in: ${result.stdout.slice(0, 200)}` }
      return v.ok ? { ok: true, detail: 'the reply shows 42' } : v
    },
  },
  {
    key: 'readme-test',
    title: 'README test (Vitest)',
    needs: ['python3'],
    run: async (rt, project) => {
      const result = await run([...vitestArgv(rt), 'run', 'python.test.ts'], { cwd: project, env: { ...process.env, CI: 'true', NO_COLOR: '1' } })
      const passed = /Tests\s+1 passed/.test(result.stdout)
      if (result.code === 0 && passed) return { ok: true, detail: '1 passed' }
      return { ok: false, detail: verdict(result.code === 0 ? { ...result, code: 'ok, but no "1 passed"' } : result).detail }
    },
  },
]

/** @param {string[]} argv */
async function main(argv) {
  const opt = (/** @type {string} */ name) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1]
  const wanted = (opt('runtimes') ?? ['node20', ...Object.keys(RUNTIMES)].join(',')).split(',')
  const caseKeys = opt('cases')?.split(',')
  const cases = caseKeys ? CASES.filter((c) => caseKeys.includes(c.key)) : CASES
  const markdown = argv.includes('--markdown')
  const rts = runtimes(wanted)
  const project = scratchProject()
  /** @type {{ runtime: string, case: string, status: string, secs: string, detail: string }[]} */
  const rows = []
  let failed = 0
  const t0 = Date.now()
  try {
    for (const rt of rts) {
      for (const c of cases) {
        const t = Date.now()
        /** @type {Verdict} */
        let result
        const missing = (c.needs ?? []).filter((cmd) => !have(cmd))
        if (rt.argv === null) result = { skip: true, detail: 'Node 20 is not on PATH' }
        else if (missing.length > 0) result = { skip: true, detail: `${missing.join(', ')} not installed` }
        else result = await c.run(rt, project).catch((err) => ({ ok: false, detail: err instanceof Error ? err.message : String(err) }))
        const status = result.skip ? 'skip' : result.ok ? 'ok' : 'FAIL'
        if (status === 'FAIL') failed++
        const row = { runtime: `${rt.name} ${rt.version}`, case: c.title, status, secs: ((Date.now() - t) / 1000).toFixed(1), detail: result.detail }
        rows.push(row)
        if (!markdown) console.log(`${row.runtime.padEnd(16)} ${row.case.padEnd(24)} ${row.status.padEnd(4)} ${row.secs.padStart(5)} s  ${row.detail}`)
      }
    }
  } finally {
    fs.rmSync(project, { recursive: true, force: true })
  }
  if (markdown) {
    // A case a row, a runtime a column (docs/install.md shows it).
    const names = [...new Set(rows.map((r) => r.runtime))]
    console.log(`| case | ${names.join(' | ')} |\n| --- |${' --- |'.repeat(names.length)}`)
    for (const c of cases) {
      const cells = names.map((n) => rows.find((r) => r.runtime === n && r.case === c.title)).map((r) => (r ? `${r.status} ${r.secs} s` : ''))
      console.log(`| ${c.title} | ${cells.join(' | ')} |`)
    }
  }
  const passed = rows.filter((r) => r.status === 'ok').length
  const skipped = rows.filter((r) => r.status === 'skip').length
  console.log(`runtimes: ${passed} passed, ${failed} failed, ${skipped} skipped (${((Date.now() - t0) / 1000).toFixed(0)} s)`)
  return failed === 0 ? 0 : 1
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err) => {
    console.error(err)
    process.exitCode = 1
  },
)
