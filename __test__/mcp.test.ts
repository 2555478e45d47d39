// The MCP server (`ptypilot mcp`, lib/mcp.js), end to end over real stdio:
// the SDK's Client spawns bin/ptypilot.js, lists the tools, and drives real
// programs through them — git add --patch, user tools from a module — with
// error results for bad calls, progress notifications, idle cleanup, the
// command line and config file, and crash isolation (the host dies, the
// server answers with an error result and goes on).
import { describe, it, expect, afterEach, vi } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Ajv from 'ajv'
import { Process } from '../index.js'
import { alive, capMs, gitEnv, repoWithTwoHunks } from './helpers'
import { BIN, serveMcp, type Reply, type Served } from './mcp-client'



/** A module exporting a user's interactive tool (a shell command line in a terminal). */
function toolModule(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ptypilot-mcp-tools-'))
  const file = join(dir, 'tools.cjs')
  writeFileSync(
    file,
    `console.log('a tool module that logs while loading')
module.exports = [{
  name: 'sh',
  description: 'A shell command line in a terminal.',
  commands: [{ name: 'run', program: ['sh', '-c'], acceptsInput: true, settleMs: 150 }],
}]
`,
  )
  return file
}

const servers: Served[] = []

function serve(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Served> {
  return serveMcp(args, { env, cwd }).then((served) => (servers.push(served), served))
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

/** Every process below `pid` (children first found, then theirs). */
function descendants(pid: number): Process[] {
  const root = Process.fromPid(pid)
  if (root === null) return []
  const out: Process[] = []
  const walk = (p: Process) => {
    for (const c of p.children()) {
      if (c.status() !== 'running') continue
      out.push(c)
      walk(c)
    }
  }
  walk(root)
  return out
}

/** The isolated host under the server (the one child running lib/host-process.js). */
function hostOf(serverPid: number): number {
  const hosts = descendants(serverPid).filter((p) => p.args().some((a) => a.endsWith('host-process.js')))
  expect(hosts).toHaveLength(1)
  return hosts[0].pid
}

/** The handle id a reply names (h1, h2, ...). */
function handleId(text: string): string {
  const m = /\b(h\d+)\b/.exec(text)
  if (m === null) throw new Error(`no handle id in ${JSON.stringify(text)}`)
  return m[1]
}

/** The terminal session id a reply names (pty1, pty2, ...). */
function sessionId(text: string): string {
  const m = /\b(pty\d+)\b/.exec(text)
  if (m === null) throw new Error(`no session id in ${JSON.stringify(text)}`)
  return m[1]
}

/** The `[cursor: N]` a pty_read reply ends with. */
function cursorOf(text: string): number {
  const m = /\[cursor: (\d+)\]/.exec(text)
  if (m === null) throw new Error(`no cursor in ${JSON.stringify(text)}`)
  return Number(m[1])
}

/** Reads a session until its output shows `pattern`; the reply that did. */
async function readUntil(s: Served, id: string, pattern: RegExp, since?: number): Promise<Reply> {
  let last: Reply = { text: '', isError: false }
  let output = ''
  await vi.waitFor(
    async () => {
      last = await s.call('pty_read', { id, wait_ms: 500, ...(since !== undefined && { since }) })
      expect(last.isError, last.text).toBe(false)
      if (since !== undefined) since = cursorOf(last.text)
      output += last.text
      expect(output).toMatch(pattern)
    },
    { timeout: capMs(15000), interval: 10 },
  )
  return { text: output, isError: false }
}

const ajv = new Ajv({ strict: false })

describe('ptypilot mcp: tools over stdio', () => {
  it('lists the git tool and the tools of modules (CommonJS and ES) with valid JSON Schemas, and runs one', async () => {
    const example = join(__dirname, '..', 'examples', 'mcp-tools.mjs')
    const s = await serve(['--no-terminal', '--tools', toolModule(), '--tools', example])
    const { tools } = await s.client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['git', 'python', 'sh', 'sqlite'])
    const first = { git: 'stage', python: 'repl', sh: 'run', sqlite: 'open' } as Record<string, string>
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.description).toBeTruthy()
      const validate = ajv.compile(tool.inputSchema)
      expect(validate({ action: 'spawn', command: first[tool.name] })).toBe(true)
      expect(validate({ action: 'fetch', id: 'h1' })).toBe(true)
      expect(validate({ action: 'explode' })).toBe(false)
      // Domain tools carry no annotations unless their spec gives them.
      expect(tool.annotations).toBeUndefined()
    }
    // What the module logged went to stderr, not into the protocol on stdout.
    await vi.waitFor(() => expect(s.stderr()).toContain('a tool module that logs while loading'))
    const repl = await s.call('python', { action: 'spawn', command: 'repl' })
    expect(repl.text).toContain('>>>')
    const answer = await s.call('python', { action: 'apply', id: handleId(repl.text), input: 'print(6 * 7)<enter>' })
    expect(answer.isError, answer.text).toBe(false)
    expect(answer.text).toMatch(/\b42\b/)
  })

  it('stages one hunk of two with the git tool', async () => {
    const { dir, git } = repoWithTwoHunks('ptypilot-mcp-git-')
    const s = await serve(['--no-terminal', '--cwd', dir], gitEnv(dir))
    const spawned = await s.call('git', { action: 'spawn', command: 'stage' })
    expect(spawned.isError).toBe(false)
    expect(spawned.text).toContain('line 2, first change')
    expect(spawned.text).toMatch(/Stage this hunk \[y,n,q,a,d/)
    const id = handleId(spawned.text)
    const yes = await s.call('git', { action: 'apply', id, input: 'y<enter>' })
    expect(yes.isError).toBe(false)
    expect(yes.text).toContain('line 28, second change')
    const no = await s.call('git', { action: 'apply', id, input: 'n<enter>' })
    expect(no.isError).toBe(false)
    const cached = git('diff', '--cached')
    expect(cached).toContain('+line 2, first change')
    expect(cached).not.toContain('line 28, second change')
    expect(git('diff')).toContain('+line 28, second change')
  })

  it('answers bad calls with isError results and keeps serving', async () => {
    const { dir } = repoWithTwoHunks('ptypilot-mcp-git-')
    const s = await serve(['--no-terminal', '--cwd', dir], gitEnv(dir))
    const bad = [
      await s.call('nope', { action: 'spawn', command: 'stage' }),
      await s.call('git', { action: 'spawn', command: 'push' }),
      await s.call('git', { action: 'fetch', id: 'h42' }),
      await s.call('git', { action: 'spawn', command: 'stage', args: 'not an array' }),
      await s.call('git', {}),
    ]
    for (const reply of bad) expect(reply.isError, reply.text).toBe(true)
    expect(bad[0].text).toContain('nope')
    expect(bad[1].text).toContain('push')
    expect(bad[2].text).toContain('h42')
    // A command that takes no input: applying to it is an error, not a no-op.
    const log = await s.call('git', { action: 'spawn', command: 'log' })
    expect(log.isError).toBe(false)
    expect(log.text).toContain('first commit')
    const ok = await s.call('git', { action: 'spawn', command: 'stage' })
    expect(ok.isError).toBe(false)
    expect(ok.text).toMatch(/Stage this hunk/)
    await s.call('git', { action: 'abort', id: handleId(ok.text) })
  })
})

describe('ptypilot mcp: the terminal tools', () => {
  it('lists the terminal tools and git with valid schemas and annotations from the permission classes', async () => {
    const s = await serve([])
    const { tools } = await s.client.listTools()
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect([...byName.keys()].sort()).toEqual(['git', 'pty_exec', 'pty_list', 'pty_read', 'pty_send', 'pty_start', 'pty_stop'])
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object')
      expect(() => ajv.compile(tool.inputSchema)).not.toThrow()
    }
    expect(ajv.compile(byName.get('pty_start')!.inputSchema)({ command: 'python3', args: ['-q'] })).toBe(true)
    expect(ajv.compile(byName.get('pty_read')!.inputSchema)({ id: 'pty1', since: 'soon' })).toBe(false)
    for (const name of ['pty_read', 'pty_list']) expect(byName.get(name)!.annotations).toMatchObject({ readOnlyHint: true })
    expect(byName.get('pty_stop')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
    for (const name of ['pty_exec', 'pty_start', 'pty_send']) expect(byName.get(name)!.annotations?.readOnlyHint).toBe(false)
    expect(byName.get('git')!.annotations).toBeUndefined()
  })

  it('runs a Python REPL through pty_start, pty_send and pty_read; after pty_stop nothing is left running', async () => {
    const s = await serve(['--no-git'])
    const started = await s.call('pty_start', { command: 'python3', args: ['-q'], title: 'python repl' })
    expect(started.isError, started.text).toBe(false)
    const id = sessionId(started.text)
    const pid = Number(/pid (\d+)/.exec(started.text)![1])
    const host = hostOf(s.pid)
    expect(Process.fromPid(pid)!.ppid).toBe(host)
    const prompt = await readUntil(s, id, />>> /)
    const sent = await s.call('pty_send', { id, input: 'print(6 * 7)\r' })
    expect(sent.isError, sent.text).toBe(false)
    await readUntil(s, id, /\b42\b/, cursorOf(prompt.text))
    const listed = await s.call('pty_list', {})
    // The REPL reads keys (its line editor): it waits for input.
    expect(listed.text).toContain(`${id}: waiting for input (key); python3 -q ("python repl"); pid ${pid}`)
    const stopped = await s.call('pty_stop', { id })
    expect(stopped.isError, stopped.text).toBe(false)
    expect(stopped.text).toContain(`Stopped session ${id}`)
    expect(alive(pid)).toBe(false)
    // Nothing below the host but the host itself; the session is gone.
    expect(descendants(host).map((p) => p.pid)).toEqual([])
    expect((await s.call('pty_list', {})).text).toBe('No terminal sessions.')
    const again = await s.call('pty_read', { id })
    expect(again.isError).toBe(true)
    expect(again.text).toContain(id)
  })

  it('bad terminal calls are isError results; a refused program names the allow list', async () => {
    const s = await serve(['--no-git', '--allow', 'echo,sh'])
    const replies = {
      unknownSession: await s.call('pty_read', { id: 'pty42' }),
      badField: await s.call('pty_start', { command: 'echo', args: 'hello' }),
      missing: await s.call('pty_send', { input: 'x' }),
      refused: await s.call('pty_exec', { command: 'python3', args: ['-c', 'print(1)'] }),
      failed: await s.call('pty_exec', { command: 'sh', args: ['-c', 'echo oops; exit 3'] }),
    }
    for (const [what, reply] of Object.entries(replies)) expect(reply.isError, `${what}: ${reply.text}`).toBe(true)
    expect(replies.unknownSession.text).toContain('pty42')
    expect(replies.badField.text).toContain('args')
    expect(replies.missing.text).toContain('id')
    expect(replies.refused.text).toContain('"python3" is not allowed here (allowed: echo, sh)')
    expect(replies.failed.text).toContain('oops')
    expect(replies.failed.text).toMatch(/\n\[exited 3 after [^\]]+\]$/)
    const ok = await s.call('pty_exec', { command: 'echo', args: ['allowed'] })
    expect(ok.isError, ok.text).toBe(false)
    expect(ok.text).toContain('allowed')
  })

  it('a long pty_exec reports progress with its output when the client sends a progress token', async () => {
    const s = await serve(['--no-git', '--progress-interval-ms', '100'])
    const progress: Array<{ progress: number; total?: number; message?: string }> = []
    const reply = await s.call(
      'pty_exec',
      { command: 'sh', args: ['-c', 'for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.2; done'], timeout_ms: 30000 },
      { onprogress: (p) => progress.push(p) },
    )
    expect(reply.isError, reply.text).toBe(false)
    expect(reply.text).toContain('tick 6')
    expect(progress.length).toBeGreaterThan(0)
    for (let i = 1; i < progress.length; i++) expect(progress[i].progress).toBeGreaterThan(progress[i - 1].progress)
    expect(progress.every((p) => p.total === 30000 && p.progress <= 30000)).toBe(true)
    expect(progress.some((p) => /^pty_exec: running for [\d.]+ s — tick \d$/.test(p.message ?? ''))).toBe(true)
  })
})

describe('ptypilot mcp: waiting for input, as a new user tries it', () => {
  it('pty_exec of a password prompt returns when the prompt is there, waiting for input (password); the password is never shown', async () => {
    const s = await serve(['--no-git'])
    const script = 'echo start; sleep 1; printf "Password: "; stty -echo; read p; stty echo; echo; echo "welcome (${#p} characters)"'
    const reply = await s.call('pty_exec', { command: 'sh', args: ['-c', script], timeout_ms: 30000 })
    expect(reply.isError, reply.text).toBe(false)
    expect(reply.text).toMatch(/^start\nPassword: \n\[waiting for input \(password\): it keeps running as session pty1; /)
    expect(reply.text).toMatch(/\[session pty1: waiting for input \(password\)\] \[cursor: \d+\]$/)
    const sent = await s.call('pty_send', { id: 'pty1', input: 'hunter2<enter>', wait_ms: 10000 })
    expect(sent.isError, sent.text).toBe(false)
    expect(sent.text).toMatch(/^\[sent 7 characters, not shown: the program had echo off\]\n\nwelcome \(7 characters\)\n\[pty1 ran [^\]]+\]\n\[session pty1: exited 0\] \[cursor: \d+\]$/)
    expect(`${reply.text}${sent.text}`).not.toContain('hunter2')
  })

  it('pty_read with wait_ms after a delayed input() returns the prompt; pty_send with wait_ms returns the answer', async () => {
    const s = await serve(['--no-git'])
    const started = await s.call('pty_start', { command: 'python3', args: ['-q'], wait_ms: 10000 })
    expect(started.text).toMatch(/>>> \n\[session pty1: waiting for input \((line|key)\)\] \[cursor: \d+\]$/)
    const sent = await s.call('pty_send', { id: 'pty1', input: 'import time; time.sleep(1); x = input("name? ")<enter>' })
    const read = await s.call('pty_read', { id: 'pty1', since: Number(/"since":(\d+)/.exec(sent.text)![1]), wait_ms: 10000 })
    expect(read.text).toMatch(/name\? \n\[session pty1: waiting for input \((line|key)\)\] \[cursor: \d+\]$/)
    const answer = await s.call('pty_send', { id: 'pty1', input: 'Ada<enter>', wait_ms: 10000 })
    expect(answer.text).toMatch(/^\[sent 4 bytes\]\nAda\n>>> \n\[session pty1: waiting for input \((line|key)\)\]/)
    const shown = await s.call('pty_send', { id: 'pty1', input: 'print(x * 2)<enter>', wait_ms: 10000 })
    expect(shown.text).toContain('AdaAda\n>>> ')
  })

  it('a silent computation is reported running, then exited with its result', async () => {
    const s = await serve(['--no-git'])
    await s.call('pty_start', { command: 'python3', args: ['-c', 'import time; time.sleep(3); print("result: 42")'] })
    const early = await s.call('pty_read', { id: 'pty1', wait_ms: 1000 })
    expect(early.text).toMatch(/^\(no new output\)\n\[session pty1: running\] \[cursor: 0\]$/)
    const done = await s.call('pty_read', { id: 'pty1', since: 0, wait_ms: 20000 })
    expect(done.text).toMatch(/^result: 42\n\[pty1 ran [^\]]+\]\n\[session pty1: exited 0\] \[cursor: \d+\]$/)
  })
})

describe('ptypilot mcp: the command line and the config file', () => {
  it('refuses a bad flag, a bad variable and a bad config with exit code 2 and a message naming it', async () => {
    const run = (args: string[], env: Record<string, string> = {}) =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
        let err = ''
        child.stderr.on('data', (d) => (err += d))
        child.on('exit', (code) => resolve({ code, err }))
        child.stdin.end()
      })
    const bogus = await run(['mcp', '--bogus'])
    expect(bogus.code).toBe(2)
    expect(bogus.err).toContain("'--bogus'")
    const count = await run(['mcp', '--max-sessions', 'many'])
    expect(count.code).toBe(2)
    expect(count.err).toContain('--max-sessions: must be a positive integer, got "many"')
    const env = await run(['mcp'], { PTYPILOT_MCP_IDLE_TIMEOUT_MS: '-5' })
    expect(env.code).toBe(2)
    expect(env.err).toContain('PTYPILOT_MCP_IDLE_TIMEOUT_MS')
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-mcp-config-'))
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ tols: ['x.js'] }))
    const config = await run(['mcp', '--config', join(dir, 'bad.json')])
    expect(config.code).toBe(2)
    expect(config.err).toMatch(/unknown key "tols" \(known: cwd, tools, /)
    const cwd = await run(['mcp', '--cwd', join(dir, 'missing')])
    expect(cwd.code).toBe(2)
    expect(cwd.err).toContain(join(dir, 'missing'))
    writeFileSync(join(dir, 'none.cjs'), 'module.exports = { version: 1 }\n')
    const module = await run(['mcp', '--tools', join(dir, 'none.cjs')])
    expect(module.code).toBe(2)
    expect(module.err).toContain('exports no tool')
    writeFileSync(join(dir, 'bad-tool.cjs'), "module.exports = { name: 'bad tool!', commands: [{ name: 'x', program: ['true'] }] }\n")
    const badTool = await run(['mcp', '--no-terminal', '--tools', join(dir, 'bad-tool.cjs')])
    expect(badTool.code).toBe(2)
    expect(badTool.err).toContain(`tool module ${join(dir, 'bad-tool.cjs')}: `)
    expect(badTool.err).toContain('bad tool!')
    const unknown = await run(['serve'])
    expect(unknown.code).toBe(2)
    expect(unknown.err).toContain('unknown command "serve"')
    const help = await run(['mcp', '--help'])
    expect(help.code).toBe(0)
  })

  it('takes its tools, working directory and switches from a config file, paths relative to it', async () => {
    const { dir, git } = repoWithTwoHunks('ptypilot-mcp-git-')
    const module = toolModule()
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ tools: [module], terminal: false, git: false, cwd: '.' }))
    git('add', 'mcp.json')
    const s = await serve([], { PTYPILOT_MCP_CONFIG: join(dir, 'mcp.json') })
    const { tools } = await s.client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['sh'])
    const reply = await s.call('sh', { action: 'spawn', command: 'run', args: ['pwd; echo done'] })
    expect(reply.isError).toBe(false)
    expect(reply.text).toContain(dir)
    // A flag overrides the file.
    const t = await serve(['--config', join(dir, 'mcp.json'), '--tools', module, '--cwd', tmpdir()])
    const there = await t.call('sh', { action: 'spawn', command: 'run', args: ['pwd'] })
    expect(there.text).toContain(tmpdir())
    expect(there.text).not.toContain(dir)
  })
})

describe('ptypilot mcp: progress, idle cleanup, shutdown', () => {
  it('reports progress for a long call when the client sends a progress token', async () => {
    const s = await serve(['--no-terminal', '--no-git', '--tools', toolModule(), '--progress-interval-ms', '100'])
    const progress: Array<{ progress: number; total?: number; message?: string }> = []
    const reply = await s.call(
      'sh',
      { action: 'spawn', command: 'run', args: ['for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.2; done'] },
      { onprogress: (p) => progress.push(p) },
    )
    expect(reply.isError).toBe(false)
    expect(progress.length).toBeGreaterThan(0)
    for (let i = 1; i < progress.length; i++) expect(progress[i].progress).toBeGreaterThan(progress[i - 1].progress)
    expect(progress.some((p) => /tick \d/.test(p.message ?? ''))).toBe(true)
  })

  it('stops a session or handle that no call has named for the idle timeout, and says so when it is named later', async () => {
    const s = await serve(['--no-git', '--tools', toolModule(), '--idle-timeout-ms', '300'])
    const handle = await s.call('sh', { action: 'spawn', command: 'run', args: ['echo P=$$; sleep 1000'] })
    const session = await s.call('pty_start', { command: 'sleep', args: ['1000'] })
    // Both were running when their calls returned (the cleanup may have come since).
    expect(handle.text).toMatch(/^\[h\d+ running\]/)
    expect(session.text).toMatch(/^Started session pty\d+: sleep 1000, pid \d+/)
    const pids = [Number(/P=(\d+)/.exec(handle.text)![1]), Number(/pid (\d+)/.exec(session.text)![1])]
    await vi.waitFor(() => expect(pids.filter(alive)).toEqual([]), { timeout: capMs(10000) })
    const later = [
      await s.call('sh', { action: 'apply', id: handleId(handle.text), input: 'x' }),
      await s.call('pty_read', { id: sessionId(session.text) }),
    ]
    for (const reply of later) {
      expect(reply.isError).toBe(true)
      expect(reply.text).toMatch(/stopped (h|pty)\d+ after .* without a call naming it \(idle timeout 300 ms\)/)
    }
  })

  it('when the client disconnects, the server stops every program and exits with its host', async () => {
    const s = await serve(['--no-git', '--tools', toolModule()])
    const handle = await s.call('sh', { action: 'spawn', command: 'run', args: ['echo P=$$; sleep 1000'] })
    const session = await s.call('pty_start', { command: 'sleep', args: ['1000'] })
    const pids = [Number(/P=(\d+)/.exec(handle.text)![1]), Number(/pid (\d+)/.exec(session.text)![1])]
    const host = hostOf(s.pid)
    for (const pid of pids) expect(Process.fromPid(pid)!.ppid).toBe(host)
    await s.close()
    await vi.waitFor(() => expect([s.pid, host, ...pids].filter(alive)).toEqual([]), { timeout: capMs(10000) })
  })
  it('on SIGTERM the server exits at once and its host kills what it started', async () => {
    const s = await serve(['--no-git'])
    const session = await s.call('pty_start', { command: 'sh', args: ['-c', 'setsid sleep 1000 & echo GC=$!; sleep 1000'] })
    const pid = Number(/pid (\d+)/.exec(session.text)![1])
    const grandchild = Number(/GC=(\d+)/.exec((await readUntil(s, sessionId(session.text), /GC=\d+/)).text)![1])
    const host = hostOf(s.pid)
    expect([pid, grandchild].every(alive)).toBe(true)
    process.kill(s.pid, 'SIGTERM')
    await vi.waitFor(() => expect([s.pid, host, pid, grandchild].filter(alive)).toEqual([]), { timeout: capMs(10000) })
  })
})

describe('ptypilot mcp: crash isolation', () => {
  it('a host that aborts in the middle of a Python session: an error result naming the lost session, then a fresh host', async () => {
    const s = await serve(['--no-git'], { PTYPILOT_HOST_TEST_ABORT_ON: 'ABORT-NOW' })
    const started = await s.call('pty_start', { command: 'python3', args: ['-q'] })
    const id = sessionId(started.text)
    const pid = Number(/pid (\d+)/.exec(started.text)![1])
    const host = hostOf(s.pid)
    const prompt = await readUntil(s, id, />>> /)
    // The echo of the line does not hold the switch's text; python's answer does.
    await s.call('pty_send', { id, input: "import time; time.sleep(0.3); print('ABORT' + '-NOW')\r" })
    let failed: Reply | null = null
    await vi.waitFor(
      async () => {
        const reply = await s.call('pty_read', { id, since: cursorOf(prompt.text), wait_ms: 2000 })
        if (reply.isError) failed = reply
        expect(failed).not.toBeNull()
      },
      { timeout: capMs(20000), interval: 10 },
    )
    expect(failed!.text).toContain(id)
    expect(failed!.text).toMatch(/isolated host (\(pid \d+\) )?was killed by SIGABRT/)
    await vi.waitFor(() => expect([host, pid].filter(alive)).toEqual([]), { timeout: capMs(5000) })
    expect(alive(s.pid)).toBe(true)
    const after = await s.call('pty_exec', { command: 'echo', args: ['after the crash'] })
    expect(after.isError, after.text).toBe(false)
    expect(after.text).toContain('after the crash')
    expect((await s.call('pty_list', {})).text).toBe('No terminal sessions.')
    expect(hostOf(s.pid)).not.toBe(host)
    // A new session on the fresh host gets a new id (not the lost one) and works.
    const next = await s.call('pty_start', { command: 'python3', args: ['-q'] })
    const nextId = sessionId(next.text)
    expect(nextId).not.toBe(id)
    await readUntil(s, nextId, />>> /)
    await s.call('pty_stop', { id: nextId })
  })

  it('a host that aborts mid-session is an error result naming the lost handle; the next call works', async () => {
    const s = await serve(['--no-terminal', '--no-git', '--tools', toolModule()], { PTYPILOT_HOST_TEST_ABORT_ON: 'ABORT-NOW' })
    const started = await s.call('sh', { action: 'spawn', command: 'run', args: ['echo P=$$; read x; printf "%s-%s\\n" ABORT NOW; sleep 1000'] })
    const id = handleId(started.text)
    const pid = Number(/P=(\d+)/.exec(started.text)![1])
    const host = hostOf(s.pid)
    const crashed = await s.call('sh', { action: 'apply', id, input: 'go<enter>' })
    expect(crashed.isError).toBe(true)
    expect(crashed.text).toMatch(/the isolated host \(pid \d+\) was killed by SIGABRT/)
    expect(crashed.text).toContain(`${id} (sh run)`)
    await vi.waitFor(() => expect([host, pid].filter(alive)).toEqual([]), { timeout: capMs(5000) })
    expect(alive(s.pid)).toBe(true)
    // The lost handle says it was lost; a fresh host serves the next call.
    const lost = await s.call('sh', { action: 'apply', id, input: 'x' })
    expect(lost.isError).toBe(true)
    expect(lost.text).toContain('lost when the isolated host was killed by SIGABRT')
    const after = await s.call('sh', { action: 'spawn', command: 'run', args: ['echo after the crash'] })
    expect(after.isError).toBe(false)
    expect(after.text).toContain('after the crash')
    expect(hostOf(s.pid)).not.toBe(host)
  })
})
