// Everyday builds in `ptypilot mcp`'s default sandbox (workspace-write, network on, caches
// private): npm, pnpm, yarn, pip into a venv, uv, cargo with a dependency, go with a module
// dependency, make, pytest, git status/diff/log, and `git add -p` of one hunk then `git commit`
// through pty_start/pty_send, as an agent would. Each runs through the MCP server, as a model's
// calls do, with HOME pointing at a test home that holds the person's own caches (~/.npm,
// ~/.cargo, ~/.cache/pip, ~/.cache/go-build, ~/go/pkg/mod): afterwards nothing in that home but
// ptypilot's cache folder has changed, and the package managers' downloads are in ptypilot's
// cache folder. A build whose program is missing, or whose registry this machine cannot reach,
// skips with the reason. pnpm and Yarn are installed by the test (npm, into a tools folder),
// uv too (pip, into a venv) where it is not on PATH. The Go module proxy is not reachable
// here: Go fetches its dependency from a module proxy on disk (GOPROXY=file://…), which goes
// through the same download and module cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'
import { serveMcp, type Served } from './mcp-client'

const ROOT = join(__dirname, '..')
// Part of `npm test` on Linux (PTYPILOT_SANDBOX_BUILDS=0 leaves it out; `npm run
// test:sandbox-builds` runs it alone). It downloads from three registries and installs pnpm, Yarn
// and uv, one to two minutes on a quiet machine. A step that does not end within its time puts
// what every sandboxed process waits in (kernel wait channel, system call, stack) into the
// failure, so that a hang shows where it is.
const ENABLED = process.platform === 'linux' && process.env.PTYPILOT_SANDBOX_BUILDS !== '0'

// Not under /tmp: the sandbox's /tmp is its own, and the tools and the module proxy must be seen.
mkdirSync(join(ROOT, 'target'), { recursive: true })
const base = ENABLED ? mkdtempSync(join(ROOT, 'target', 'sandbox-builds-')) : join(ROOT, 'target', 'sandbox-builds-off')
/** The person's home, with their own caches in it. */
const home = join(base, 'home')
/** The workspace `ptypilot mcp` serves. */
const ws = join(base, 'ws')
/** Programs the test installs (pnpm, yarn, uv), outside the sandbox. */
const tools = join(base, 'tools')
const privateCache = join(home, '.cache', 'ptypilot', 'sandbox')
const LONG = 280_000

/** Which program is on PATH (`which`), or null. */
function which(name: string, path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    const p = join(dir, name)
    if (dir !== '' && existsSync(p)) return p
  }
  return null
}

/** True when `url` answers within a few seconds (the registries this machine reaches). */
async function reachable(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(8000) })
    return res.status < 500
  } catch {
    return false
  }
}

/** Every file and folder under `dir` (but `skip`), with size and mtime: what "unchanged" compares. */
function snapshot(dir: string, skip: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (p === skip) continue
      const st = lstatSync(p)
      out[p.slice(dir.length)] = `${st.mode} ${st.size} ${st.mtimeMs}`
      if (st.isDirectory()) walk(p)
    }
  }
  walk(dir)
  return out
}

/** Files under `dir` (recursively), 0 when it does not exist. */
function countFiles(dir: string): number {
  if (!existsSync(dir)) return 0
  let n = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) n += e.isDirectory() ? countFiles(join(dir, e.name)) : 1
  return n
}

let served: Served
/** Why each registry cannot be used, or null when it can. */
const offline: Record<'npm' | 'pypi' | 'crates', string | null> = { npm: null, pypi: null, crates: null }
/** PATH for the server: the tools installed here first. */
let path = process.env.PATH ?? ''
/** Why pnpm / yarn / uv cannot run, or null. */
const missing: Record<'pnpm' | 'yarn' | 'uv', string | null> = { pnpm: null, yarn: null, uv: null }
let before: Record<string, string>

/**
 * What every sandboxed process (one in a network namespace other than this one's) is doing: its
 * command, state, kernel wait channel, system call and, where readable (root), kernel stack. Put
 * into a step's text when it does not end, so that a hang shows where it waits.
 */
function sandboxedProcesses(): string {
  const read = (p: string) => {
    try {
      return readFileSync(p, 'utf8')
    } catch {
      return ''
    }
  }
  let mine: string
  try {
    mine = readlinkSync('/proc/self/ns/net')
  } catch {
    return '(no /proc to look at)'
  }
  const out: string[] = []
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let ns: string
    try {
      ns = readlinkSync(`/proc/${pid}/ns/net`)
    } catch {
      continue
    }
    if (ns === mine) continue
    let tids: string[]
    try {
      tids = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tids) {
      const t = `/proc/${pid}/task/${tid}`
      const state = read(`${t}/stat`).split(') ')[1]?.split(' ')[0] ?? '?'
      out.push(`${pid}/${tid} ${read(`/proc/${pid}/cmdline`).replaceAll('\0', ' ').slice(0, 120)} state ${state} wchan ${read(`${t}/wchan`)} syscall ${read(`${t}/syscall`).trim()}\n${read(`${t}/stack`).trim()}`)
    }
  }
  return out.length === 0 ? '(no sandboxed process is left)' : out.join('\n')
}

/** Runs `script` with sh through pty_exec in `cwd` (relative to the workspace); the reply's text and exit code. */
async function run(script: string, cwd = '.'): Promise<{ text: string; code: number | null }> {
  let reply = await served.call('pty_exec', { command: 'sh', args: ['-c', script], cwd, timeout_ms: LONG }, { timeout: LONG + 20_000 })
  let text = reply.text
  // Still running (past timeout_ms on a slow machine, or a pause taken for a wait for input):
  // follow it to the end, as an agent would.
  const deadline = Date.now() + LONG
  while (!/\[exited -?\d+/.test(text) && Date.now() < deadline) {
    const id = /\[session (\S+):/.exec(text)?.[1]
    if (id === undefined) break
    reply = await served.call('pty_read', { id, wait_ms: 30_000 }, { timeout: 60_000 })
    text += `\n${reply.text}`
  }
  const m = /\[exited (-?\d+)/.exec(text)
  if (m === null) text += `\n--- the step did not end; the sandboxed processes:\n${sandboxedProcesses()}`
  return { text, code: m ? Number(m[1]) : null }
}

/** Writes `files` (path → text) under the workspace. */
function write(files: Record<string, string>) {
  for (const [rel, text] of Object.entries(files)) {
    const p = join(ws, rel)
    mkdirSync(join(p, '..'), { recursive: true })
    writeFileSync(p, text)
  }
}

/** A Go module proxy on disk holding example.com/greet v1.0.0 (the layout GOPROXY=file:// reads). */
function goProxy(): string {
  const proxy = join(base, 'goproxy')
  const src = join(base, 'greet-src', 'example.com', 'greet@v1.0.0')
  mkdirSync(src, { recursive: true })
  const mod = 'module example.com/greet\n\ngo 1.18\n'
  writeFileSync(join(src, 'go.mod'), mod)
  writeFileSync(join(src, 'greet.go'), 'package greet\n\nfunc Hello() string { return "hello from a module" }\n')
  const dir = join(proxy, 'example.com', 'greet', '@v')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'list'), 'v1.0.0\n')
  writeFileSync(join(dir, 'v1.0.0.info'), '{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}\n')
  writeFileSync(join(dir, 'v1.0.0.mod'), mod)
  // The zip holds example.com/greet@v1.0.0/… (python3's zipfile: no zip program needed).
  execFileSync('python3', ['-c', `
import os, sys, zipfile
root, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, 'w') as z:
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            z.write(p, os.path.relpath(p, os.path.dirname(os.path.dirname(root))))
`, src, join(dir, 'v1.0.0.zip')])
  return `file://${proxy}`
}

beforeAll(async () => {
  if (!ENABLED) return
  for (const d of [home, ws, tools]) mkdirSync(d, { recursive: true })
  // The person's own caches, each with something in it.
  for (const d of ['.npm/_cacache', '.cargo/registry/cache', '.cargo/bin', '.cache/pip/http', '.cache/go-build/00', 'go/pkg/mod/cache', '.cache/yarn', '.local/share/pnpm/store']) {
    mkdirSync(join(home, d), { recursive: true })
    writeFileSync(join(home, d, 'mine'), 'the person\'s\n')
  }
  // Their Cargo settings, which the private CARGO_HOME must carry.
  writeFileSync(join(home, '.cargo', 'config.toml'), '[net]\nretry = 3\n')

  const [npm, pypi, crates] = await Promise.all([
    reachable('https://registry.npmjs.org/is-number'),
    reachable('https://pypi.org/simple/six/'),
    reachable('https://index.crates.io/config.json'),
  ])
  if (!npm) offline.npm = 'the npm registry is not reachable'
  if (!pypi) offline.pypi = 'PyPI is not reachable'
  if (!crates) offline.crates = 'crates.io is not reachable'

  // pnpm and Yarn (classic, as `npm i -g yarn` gives) from npm, and uv from PyPI, outside the sandbox.
  if (offline.npm === null) {
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', tools, 'pnpm', 'pnpm10@npm:pnpm@10', 'yarn@1'], { encoding: 'utf8', timeout: 180_000 })
    if (r.status !== 0) missing.pnpm = missing.yarn = `installing pnpm and yarn failed: ${(r.stderr ?? '').slice(-300)}`
    path = `${join(tools, 'node_modules', '.bin')}${delimiter}${path}`
  } else {
    missing.pnpm = missing.yarn = offline.npm
  }
  if (which('uv') === null) {
    if (offline.pypi !== null) missing.uv = `uv is not installed and ${offline.pypi}`
    else {
      const venv = join(tools, 'venv')
      const r = spawnSync('sh', ['-c', `python3 -m venv ${venv} && ${venv}/bin/pip install --quiet uv`], { encoding: 'utf8', timeout: 240_000 })
      if (r.status !== 0) missing.uv = `uv is not installed and pip install uv failed: ${(r.stderr ?? '').slice(-300)}`
      else path = `${path}${delimiter}${join(venv, 'bin')}`
    }
  }

  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, stdio: 'pipe' })
  git('init', '-q')
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`)
  writeFileSync(join(ws, 'notes.txt'), lines.join('\n') + '\n')
  git('add', 'notes.txt')
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'notes')
  lines[2] = 'line 3, changed: stage this one'
  lines[26] = 'line 27, changed: leave this one'
  writeFileSync(join(ws, 'notes.txt'), lines.join('\n') + '\n')

  const env: Record<string, string | undefined> = {
    HOME: home,
    PATH: path,
    // rustup's toolchains stay where they are (read-only in the sandbox).
    RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(homedir(), '.rustup'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'agent',
    GIT_AUTHOR_EMAIL: 'agent@example.com',
    GIT_COMMITTER_NAME: 'agent',
    GIT_COMMITTER_EMAIL: 'agent@example.com',
    GOPROXY: goProxy(),
    GOSUMDB: 'off',
    GOFLAGS: '-mod=mod',
    GOTOOLCHAIN: 'local',
  }
  // The person's caches are where the tools put them by default, whatever this machine set.
  for (const name of ['XDG_CACHE_HOME', 'XDG_DATA_HOME', 'CARGO_HOME', 'CARGO_TARGET_DIR', 'GOPATH', 'GOMODCACHE', 'GOCACHE', 'npm_config_cache', 'PIP_CACHE_DIR', 'UV_CACHE_DIR', 'PIP_FIND_LINKS']) env[name] = undefined
  // ptypilot makes its cache folder here (outside the sandbox): made first, the snapshot's
  // ~/.cache is the same before and after.
  mkdirSync(join(home, '.cache', 'ptypilot'))
  before = snapshot(home, join(home, '.cache', 'ptypilot'))
  served = await serveMcp([], { cwd: ws, env })
}, 600_000)

afterAll(async () => {
  await served?.close()
  rmSync(base, { recursive: true, force: true })
})

describe.skipIf(!ENABLED)('everyday builds in ptypilot mcp\'s default sandbox', { timeout: LONG + 60_000 }, () => {
  it('the sandbox is on: workspace-write, network on, caches private', async () => {
    const r = await run('echo x > "$HOME/outside-file"; echo "cache=$npm_config_cache"')
    expect(r.text).toContain(`cache=${privateCache}/npm`)
    expect(r.text).toMatch(/the sandbox refused: write .*outside-file \(outside the workspace\)/)
    expect(existsSync(join(home, 'outside-file'))).toBe(false)
  })

  it('pip install into a venv', async (ctx) => {
    if (offline.pypi) return ctx.skip(offline.pypi)
    const r = await run('python3 -m venv .venv && .venv/bin/pip install --disable-pip-version-check six && .venv/bin/python -c "import six; print(\'six\', six.__version__)" && .venv/bin/python -c "import os; print(\'pip cache:\', os.environ[\'PIP_CACHE_DIR\'])"')
    expect(r.code, r.text).toBe(0)
    expect(r.text).toMatch(/six \d/)
    expect(r.text).not.toContain('the sandbox refused')
    // Its cache is the private one (whether pip stores a download there depends on the index's
    // cache headers: here it stores none, inside the sandbox or out).
    expect(r.text).toContain(`pip cache: ${join(privateCache, 'pip')}`)
    expect(r.text).not.toMatch(/cache has been disabled/)
  })

  it('npm install of a dependency from the registry', async (ctx) => {
    if (offline.npm) return ctx.skip(offline.npm)
    write({ 'npm-app/package.json': JSON.stringify({ name: 'npm-app', version: '1.0.0', private: true, dependencies: { 'is-number': '7.0.0' } }) })
    const r = await run('npm install --no-audit --no-fund && node -p "require(\'is-number\')(5)"', 'npm-app')
    expect(r.code, r.text).toBe(0)
    expect(r.text).toContain('true')
    expect(r.text).not.toContain('the sandbox refused')
    expect(countFiles(join(privateCache, 'npm'))).toBeGreaterThan(0)
  })

  it('pnpm install (the current pnpm, and pnpm 10)', async (ctx) => {
    if (missing.pnpm) return ctx.skip(missing.pnpm)
    const pkg = JSON.stringify({ name: 'pnpm-app', version: '1.0.0', private: true, dependencies: { 'is-number': '7.0.0' } })
    write({ 'pnpm-app/package.json': pkg, 'pnpm10-app/package.json': pkg })
    const r = await run('pnpm --version && pnpm install && node -p "require(\'is-number\')(5)"', 'pnpm-app')
    expect(r.code, r.text).toBe(0)
    expect(r.text).not.toContain('the sandbox refused')
    // pnpm 11 and later keep their store in pnpm_config_store_dir, pnpm 10 in $PNPM_HOME/store.
    expect(countFiles(join(privateCache, 'pnpm', 'store'))).toBeGreaterThan(0)
    const r10 = await run(`node ${join(tools, 'node_modules', 'pnpm10', 'bin', 'pnpm.cjs')} install && node -p "require('is-number')(5)"`, 'pnpm10-app')
    expect(r10.code, r10.text).toBe(0)
    expect(r10.text).not.toContain('the sandbox refused')
    expect(countFiles(join(privateCache, 'pnpm', 'home', 'store'))).toBeGreaterThan(0)
  })

  it('yarn (classic)', async (ctx) => {
    if (missing.yarn) return ctx.skip(missing.yarn)
    write({ 'yarn-app/package.json': JSON.stringify({ name: 'yarn-app', version: '1.0.0', private: true, license: 'MIT', dependencies: { 'is-number': '7.0.0' } }) })
    const r = await run('yarn install --non-interactive && node -p "require(\'is-number\')(5)"', 'yarn-app')
    expect(r.code, r.text).toBe(0)
    expect(r.text).not.toContain('the sandbox refused')
    expect(countFiles(join(privateCache, 'yarn'))).toBeGreaterThan(0)
  })

  it('uv', async (ctx) => {
    if (missing.uv) return ctx.skip(missing.uv)
    if (offline.pypi) return ctx.skip(offline.pypi)
    const r = await run('uv venv --quiet .uvenv && uv pip install --python .uvenv/bin/python six && .uvenv/bin/python -c "import six; print(\'six\', six.__version__)"')
    expect(r.code, r.text).toBe(0)
    expect(r.text).toMatch(/six \d/)
    expect(countFiles(join(privateCache, 'uv'))).toBeGreaterThan(0)
  })

  it('cargo build of a crate with a dependency from crates.io', async (ctx) => {
    if (which('cargo') === null) return ctx.skip('cargo is not installed')
    if (offline.crates) return ctx.skip(offline.crates)
    write({
      'crate/Cargo.toml': '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nitoa = "1"\n',
      'crate/src/main.rs': 'fn main() {\n    let mut b = itoa::Buffer::new();\n    println!("itoa says {}", b.format(42));\n}\n',
    })
    const r = await run('cargo build --quiet && ./target/debug/app', 'crate')
    expect(r.code, r.text).toBe(0)
    expect(r.text).toContain('itoa says 42')
    expect(r.text).not.toContain('the sandbox refused')
    expect(countFiles(join(privateCache, 'cargo', 'registry'))).toBeGreaterThan(0)
    // The person's Cargo settings came along (copied at start).
    expect(readFileSync(join(privateCache, 'cargo', 'config.toml'), 'utf8')).toBe('[net]\nretry = 3\n')
  })

  it('go build with a module dependency', async (ctx) => {
    if (which('go') === null) return ctx.skip('go is not installed (Debian: golang-go)')
    write({
      'gomod/go.mod': 'module example.com/app\n\ngo 1.18\n\nrequire example.com/greet v1.0.0\n',
      'gomod/main.go': 'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/greet"\n)\n\nfunc main() { fmt.Println(greet.Hello()) }\n',
    })
    const r = await run('go build -o app . && ./app', 'gomod')
    expect(r.code, r.text).toBe(0)
    expect(r.text).toContain('hello from a module')
    expect(existsSync(join(privateCache, 'go', 'pkg', 'mod', 'example.com', 'greet@v1.0.0', 'greet.go'))).toBe(true)
    expect(countFiles(join(privateCache, 'go-build'))).toBeGreaterThan(0)
  })

  it('make and pytest', async (ctx) => {
    write({
      'c/hello.c': '#include <stdio.h>\nint main(void) { puts("built by make"); return 0; }\n',
      'c/Makefile': 'hello: hello.c\n\tcc -o hello hello.c\n',
      'py/test_sum.py': 'def test_sum():\n    assert sum([1, 2, 3]) == 6\n',
    })
    const made = await run('make && ./hello', 'c')
    expect(made.code, made.text).toBe(0)
    expect(made.text).toContain('built by make')
    if (which('pytest', path) === null) return ctx.skip('pytest is not installed (Debian: python3-pytest)')
    const tested = await run('pytest -q', 'py')
    expect(tested.code, tested.text).toBe(0)
    expect(tested.text).toMatch(/1 passed/)
  })

  it('git status, diff and log', async () => {
    const status = await run('git status --short && git diff --stat && git log --oneline')
    expect(status.code, status.text).toBe(0)
    expect(status.text).toMatch(/M notes\.txt/)
    expect(status.text).toMatch(/notes\.txt \| 4 \+\+--/)
    expect(status.text).toMatch(/[0-9a-f]{7} (\(HEAD[^)]*\) )?notes/)
  })

  it('git add -p of one hunk through pty_start/pty_send, then git commit', async () => {

    // The agent's task: stage the hunk that says so, leave the other.
    let text = (await served.call('pty_start', { command: 'git', args: ['add', '-p'], wait_ms: 10_000 })).text
    const id = /\[session (\S+):/.exec(text)![1]
    for (let i = 0; i < 6 && /waiting for input/.test(text); i++) {
      const hunk = text.slice(text.lastIndexOf('@@ '))
      text = (await served.call('pty_send', { id, input: hunk.includes('stage this one') ? 'y<enter>' : 'n<enter>', wait_ms: 10_000 })).text
    }
    expect(text).toMatch(/exited 0/)
    const commit = await run('git commit -q -m "stage one hunk" && git log --oneline -1 && git diff')
    expect(commit.code, commit.text).toBe(0)
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, encoding: 'utf8' })
    expect(git('log', '-1', '--format=%s')).toBe('stage one hunk\n')
    expect(git('show', 'HEAD')).toContain('+line 3, changed: stage this one')
    expect(git('diff')).toContain('+line 27, changed: leave this one')
  })

  it('nothing outside the workspace and ptypilot\'s cache folder changed', () => {
    const after = snapshot(home, join(home, '.cache', 'ptypilot'))
    expect(after).toEqual(before)
    for (const d of ['.npm/_cacache', '.cargo/registry/cache', '.cache/pip/http', '.cache/go-build/00', 'go/pkg/mod/cache']) {
      expect(readdirSync(join(home, d))).toEqual(['mine'])
    }
  })

  // After the check above: 'shared' writes in the person's ~/.npm.
  it('--caches none points no tool anywhere; --caches shared opens the person\'s own; a bad value is refused', async () => {
    const script = 'echo "cache=${npm_config_cache:-unset}"; echo x > "$HOME/.npm/from-sandbox"'
    const env = { HOME: home, npm_config_cache: undefined, XDG_CACHE_HOME: undefined }
    const none = await serveMcp(['--caches', 'none'], { cwd: ws, env })
    try {
      const r = (await none.call('pty_exec', { command: 'sh', args: ['-c', script] })).text
      expect(r).toContain('cache=unset')
      expect(r).toMatch(/the sandbox refused: write .*\.npm\/from-sandbox \(outside the workspace\)/)
    } finally {
      await none.close()
    }
    const shared = await serveMcp(['--caches', 'shared'], { cwd: ws, env })
    try {
      const r = (await shared.call('pty_exec', { command: 'sh', args: ['-c', script] })).text
      expect(r).toContain('cache=unset')
      expect(r).not.toContain('the sandbox refused')
      expect(readFileSync(join(home, '.npm', 'from-sandbox'), 'utf8')).toBe('x\n')
    } finally {
      await shared.close()
      rmSync(join(home, '.npm', 'from-sandbox'))
    }
    const bad = spawnSync(process.execPath, [join(ROOT, 'bin', 'ptypilot.js'), 'mcp', '--caches', 'mine'], { encoding: 'utf8', timeout: 30_000 })
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain('--caches: must be private, shared or none, got string "mine"')
  })
})
