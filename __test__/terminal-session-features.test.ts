// The terminal tools' session features for agents: the environment
// defaults (no pager), the output budget per call (max_chars), the processes
// a program leaves running when it exits (named in the reply, ended by
// pty_stop), and the host's approval hook (approve / ask), in process and
// across the isolated host.
import { describe, it, expect, afterEach, vi } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ToolRegistry, terminalTools } from '../index.js'
import { alive, gitEnv } from './helpers'

let registry: ToolRegistry | undefined
afterEach(async () => {
  await registry?.[Symbol.asyncDispose]()
  registry = undefined
})

function withTools(options: Parameters<typeof terminalTools>[0] = {}, registryOptions = {}) {
  registry = new ToolRegistry(registryOptions)
  registry.register(terminalTools(options))
  return registry
}

/** A git repository with `n` commits (made by git fast-import: one process, not n). */
function repoWithCommits(n: number) {
  const dir = mkdtempSync(join(tmpdir(), 'ptypilot-log-'))
  const env = { ...process.env, ...gitEnv(dir) }
  const run = (args: string[], input?: string) => {
    const r = spawnSync('git', args, { cwd: dir, env, input, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
    return r.stdout
  }
  run(['init', '-q', '-b', 'main'])
  let stream = ''
  for (let i = 1; i <= n; i++) {
    const message = `change number ${i}\n\nWhat change ${i} does, in a body line.\n`
    stream += `commit refs/heads/main\ncommitter Test <test@example.com> ${1_700_000_000 + i * 60} +0000\ndata ${Buffer.byteLength(message)}\n${message}\n`
  }
  run(['fast-import', '--quiet'], stream)
  return { dir, env: gitEnv(dir) }
}

describe('environment defaults', () => {
  it('programs get PAGER=cat and GIT_PAGER=cat, TERM stays xterm-256color; the set’s env overrides them', async () => {
    const show = ['-c', 'echo "$PAGER|$GIT_PAGER|$TERM"']
    expect((await withTools().call('pty_exec', { command: 'sh', args: show })).output).toBe('cat|cat|xterm-256color\n')
    await registry!.abortAll()
    const r = withTools({ env: { PAGER: 'more', GIT_PAGER: undefined } })
    expect((await r.call('pty_exec', { command: 'sh', args: show })).output).toBe('more||xterm-256color\n')
  })

  it('git log in a repository with 500 commits ends without a pager, within the output budget', async () => {
    const repo = repoWithCommits(500)
    const r = withTools({ cwd: repo.dir, env: repo.env })
    const reply = await r.respond('pty_exec', { command: 'git', args: ['log'], max_chars: 4000, timeout_ms: 30_000 })
    const result = reply.result as { timedOut: boolean; exitCode: number; output: string; spillPath: string; lines: number }
    expect(result).toMatchObject({ timedOut: false, exitCode: 0 })
    expect(result.output.length).toBeLessThanOrEqual(4000)
    // The newest commit first, the oldest last; all 500 in the file.
    expect(result.output).toMatch(/^commit [0-9a-f]{40}( \(HEAD -> main\))?\nAuthor: Test <test@example.com>\n/)
    expect(result.output).toContain('change number 500')
    expect(result.output).toMatch(/change number 1\n\s+What change 1 does, in a body line\.\n$/)
    const whole = readFileSync(result.spillPath, 'utf8')
    expect(whole.match(/^commit [0-9a-f]{40}\b/gm)).toHaveLength(500)
    expect(reply.text).toContain(`written in full to ${result.spillPath}`)
    expect(reply.text.length).toBeLessThan(4000 + 500)
    expect(reply.text).toMatch(/\n\[exited 0 after [^\]]+\]$/)

    // With a pager it would not end: less waits for keys (pty_exec says so as soon as it does).
    await r.abortAll()
    const paged = withTools({ cwd: repo.dir, env: { ...repo.env, GIT_PAGER: 'less' } })
    const stuck = await paged.call('pty_exec', { command: 'git', args: ['log'], timeout_ms: 30_000 })
    expect(stuck).toMatchObject({ timedOut: false, reason: 'input', inputKind: 'key', status: 'running' })
  }, 60_000)
})

describe('max_chars', () => {
  it('cuts the output to its head and tail within max_chars and names the file that has it whole', async () => {
    const r = withTools()
    const result = await r.call('pty_exec', { command: 'seq', args: ['1', '20000'], max_chars: 1000 })
    expect(result.output.length).toBeLessThanOrEqual(1000)
    expect(result.output).toMatch(/^1\n2\n3\n/)
    expect(result.output).toMatch(/\n19999\n20000\n$/)
    expect(result.output).toMatch(/\n\[… \d+ lines omitted; the whole output is in \S+ …\]\n/)
    expect(readFileSync(result.spillPath!, 'utf8').split('\n')).toHaveLength(20001)
    // pty_read takes it too.
    const s = await r.call('pty_start', { command: 'seq', args: ['1', '3000'] })
    await vi.waitFor(() => expect(r.list()[0].state).toBe('success'))
    const read = await r.call('pty_read', { id: s.id, max_chars: 300 })
    expect(read.output.length).toBeLessThanOrEqual(300)
    expect(read.output).toMatch(/^1\n[\s\S]*\n3000\n$/)
    await expect(r.call('pty_exec', { command: 'true', max_chars: 199 })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      message: 'input.max_chars must be from 200 to 10000000, got 199',
    })
  })

  it('its default is the set’s maxOutputChars', async () => {
    const r = withTools({ maxOutputChars: 500 })
    // 300 lines, 1092 characters: under the line and byte limits, over the characters.
    const result = await r.call('pty_exec', { command: 'seq', args: ['1', '300'] })
    expect(result.spillPath).not.toBeNull()
    expect(result.output.length).toBeLessThanOrEqual(500)
    expect((await r.call('pty_exec', { command: 'seq', args: ['1', '100'] })).spillPath).toBeNull()
    expect(() => terminalTools({ maxOutputChars: 10 })).toThrow('options.maxOutputChars must be an integer from 200 to 10000000, got number 10')
  })
})

describe('processes left running', () => {
  it('a command that starts `sleep 300 &` and exits: the reply names the sleep’s pid; pty_stop ends it', async () => {
    const r = withTools()
    // The shell ignores the terminal's hangup, as its & job then does (a shell that does not loses the job to it).
    const reply = await r.respond('pty_exec', { command: 'sh', args: ['-c', 'trap "" HUP; sleep 300 & echo "sleep=$!"'] })
    const pid = Number(/sleep=(\d+)/.exec(reply.text)![1])
    expect(alive(pid)).toBe(true)
    expect(reply.result).toMatchObject({ status: 'exited', exitCode: 0, leftovers: [{ pid, args: ['sleep', '300'] }] })
    expect(reply.text).toContain(`[it left 1 process running: pid ${pid} (sleep 300); pty_stop {"id":"pty1"} ends it]`)
    // The session stays for pty_stop, listed with what it left.
    expect((await r.respond('pty_list', {})).text).toMatch(new RegExp(`^pty1: exited 0 after [^,]+, left pid ${pid} \\(sleep 300\\) running; sh -c`))
    const stop = await r.respond('pty_stop', { id: 'pty1' })
    expect(stop.text).toBe(`Session pty1 had exited with code 0; ended the process it left running: pid ${pid} (sleep 300). The session is removed.`)
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 5000 })
    expect(r.list()).toEqual([])
  })

  it('a daemon that left the session (setsid, double fork) is found by the marker in its environment', async () => {
    const r = withTools()
    // The daemon tells its first parent its pid through a pipe; that parent prints it and exits.
    const daemon = [
      'import os, sys, time',
      'r, w = os.pipe()',
      'if os.fork():',
      '    os.close(w)',
      '    print("daemon", os.read(r, 32).decode(), flush=True)',
      '    sys.exit(0)',
      'os.close(r)',
      'os.setsid()',
      'if os.fork(): os._exit(0)',
      'os.write(w, str(os.getpid()).encode())',
      'os.close(w)',
      'time.sleep(300)',
    ].join('\n')
    const s = await r.call('pty_start', { command: 'python3', args: ['-c', daemon] })
    await vi.waitFor(() => expect(r.list()[0]).toMatchObject({ id: s.id, state: 'success' }), { timeout: 10_000 })
    const reply = await r.respond('pty_read', { id: s.id })
    const pid = Number(/daemon (\d+)/.exec(reply.text)![1])
    expect(reply.text).toContain(`[pty1 ran `)
    expect(reply.text).toMatch(new RegExp(`it left 1 process running: pid ${pid} \\(\\S*python3 -c import os, sys, time r, w = os.pipe\\(\\) `))
    // Read after its exit, yet kept: something it started still runs.
    expect(r.list()).toMatchObject([{ id: s.id }])
    expect(alive(pid)).toBe(true)
    // abortAll (the registry's dispose too) ends what exited sessions left.
    await r.abortAll()
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 5000 })
  })
})

describe('approve', () => {
  it('is asked before start, input and stop calls — never reads — and may allow, deny (with a reason) or ask', async () => {
    const asked: unknown[] = []
    const r = withTools({
      approve(request) {
        asked.push(request)
        if (request.command === 'rm') return { decision: 'deny', reason: 'nothing is deleted here' }
        if (request.permission === 'input') return 'ask'
        return 'allow'
      },
      ask: (request) => (String(request.input.input).includes('quit') ? 'deny' : 'allow'),
    })
    expect((await r.respond('pty_exec', { command: 'rm', args: ['-rf', 'build'] })).text).toBe(
      'Error: pty_exec of "rm -rf build" was denied: nothing is deleted here; the call did not run.',
    )
    const s = await r.call('pty_start', { command: 'cat' })
    expect((await r.respond('pty_send', { id: s.id, input: 'hello<enter>' })).isError).toBe(false)
    expect((await r.respond('pty_send', { id: s.id, input: 'quit<enter>' })).text).toBe(
      'Error: typing into pty1 (cat) was denied: the person declined it; the call did not run.',
    )
    // The allowed input reached cat; the denied one never did.
    const read = await r.call('pty_read', { id: s.id, wait_ms: 1000 })
    expect(read.output).toBe('hello\nhello\n')
    await r.call('pty_list', {})
    expect((await r.respond('pty_stop', { id: s.id })).text).toMatch(/^Stopped session pty1/)
    expect(asked).toEqual([
      { permission: 'start', tool: 'pty_exec', input: { command: 'rm', args: ['-rf', 'build'] }, command: 'rm', args: ['-rf', 'build'], session: null },
      { permission: 'start', tool: 'pty_start', input: { command: 'cat' }, command: 'cat', args: [], session: null },
      { permission: 'input', tool: 'pty_send', input: { id: 'pty1', input: 'hello<enter>' }, command: 'cat', args: [], session: 'pty1' },
      { permission: 'input', tool: 'pty_send', input: { id: 'pty1', input: 'quit<enter>' }, command: 'cat', args: [], session: 'pty1' },
      { permission: 'stop', tool: 'pty_stop', input: { id: 'pty1' }, command: 'cat', args: [], session: 'pty1' },
    ])
  })

  it("'ask' with no one to ask is a denial; a bad answer is the host's error; the functions stay in the agent with an isolated host", async () => {
    const r = withTools({ approve: () => 'ask' })
    expect((await r.respond('pty_exec', { command: 'true' })).text).toBe(
      "Error: pty_exec of \"true\" was denied: it needs a person's approval and there is no one to ask; the call did not run.",
    )
    await r.abortAll()
    const bad = withTools({ approve: () => 'maybe' as never })
    await expect(bad.call('pty_exec', { command: 'true' })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARG',
      message: 'approve() must return \'allow\', \'deny\' or \'ask\' (or { decision, reason }), got string "maybe"',
    })
    await bad.abortAll()
    const seen: string[] = []
    const isolated = withTools(
      { approve: async (request) => (seen.push(`${request.permission} ${request.command} ${request.session}`), request.permission === 'stop' ? 'deny' : 'allow') },
      { isolation: 'process' },
    )
    const s = await isolated.call('pty_start', { command: 'cat' })
    expect((await isolated.respond('pty_stop', { id: s.id })).text).toBe('Error: stopping pty1 (cat) was denied; the call did not run.')
    expect(isolated.list()).toMatchObject([{ id: 'pty1', state: 'running' }])
    expect(seen).toEqual(['start cat null', 'stop cat pty1'])
  })
})
