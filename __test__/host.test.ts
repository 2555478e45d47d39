// The isolated host (`new ToolRegistry({ isolation: 'process' })`): the same
// API and results as the in-process registry, events in order, and crash
// isolation — a host killed or aborted mid-session rejects the pending calls
// with ERR_HOST_CRASHED naming the lost handles, leaves no program running
// (a setsid grandchild included), and the next call works on a fresh host.
import { describe, it, expect, afterEach, vi } from 'vitest'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { Process, ToolRegistry, gitTool, terminalTools, type ToolEvent, type ToolState } from '../index.js'
import { alive } from './helpers'

const shTool = {
  name: 'sh',
  description: 'A shell command line in a terminal.',
  commands: [
    { name: 'run', program: ['sh', '-c'], acceptsInput: true, settleMs: 200 },
    { name: 'pipe', program: ['sh', '-c'], pty: false },
  ],
}

/** Pids of the host processes that are children of this process. */
function hostPids(): number[] {
  const me = Process.fromPid(process.pid)
  if (me === null) return []
  return me
    .children()
    .filter((c) => c.status() === 'running' && c.args().some((a) => a.endsWith('host-process.js')))
    .map((c) => c.pid)
}

/** The one host started since `before` was taken. */
async function newHost(before: number[]): Promise<number> {
  let pid = 0
  await vi.waitFor(() => {
    const fresh = hostPids().filter((p) => !before.includes(p))
    expect(fresh).toHaveLength(1)
    pid = fresh[0]
  })
  return pid
}

function content(state: ToolState): string {
  if (state.state === 'running') return (state.content ?? '').trimEnd()
  return (state.result.ok ? state.result.content : state.result.error.message).trimEnd()
}

function pidsIn(text: string, name: string): number {
  const m = new RegExp(`${name}=(\\d+)`).exec(text)
  if (m === null) throw new Error(`no ${name}= in ${JSON.stringify(text)}`)
  return Number(m[1])
}

async function expectGone(pids: number[]) {
  await vi.waitFor(() => expect(pids.filter(alive)).toEqual([]), { timeout: 5000 })
}

/**
 * A shell that starts a setsid grandchild (its own session) and reports both pids. The
 * grandchild's pid is read before the shell goes on: a settle ends as soon as the shell waits
 * for its line, which can be before a grandchild left to itself has printed anything.
 */
const TREE = 'echo GC=$(setsid sh -c "echo \\$\\$; exec sleep 1000 >/dev/null 2>&1" &); echo P=$$; read line; echo "got $line"; sleep 1000'

const registries: ToolRegistry[] = []
function isolated(options: ConstructorParameters<typeof ToolRegistry>[0] = {}) {
  const registry = new ToolRegistry({ isolation: 'process', ...options })
  registries.push(registry)
  return registry
}

afterEach(async () => {
  delete process.env.PTYPILOT_HOST_TEST_ABORT_ON
  delete process.env.PTYPILOT_HOST_TEST_HANG
  await Promise.all(registries.splice(0).map((r) => r[Symbol.asyncDispose]()))
})

describe('isolated host: same API and results', () => {
  it('answers names, schema and definitions as the in-process registry does', () => {
    const here = new ToolRegistry()
    const there = isolated()
    expect(there).toBeInstanceOf(ToolRegistry)
    for (const r of [here, there]) {
      r.register(gitTool())
      r.register(shTool)
    }
    expect(there.names()).toEqual(here.names())
    expect(there.schema('git')).toEqual(here.schema('git'))
    expect(there.definitions('openai')).toEqual(here.definitions('openai'))
    expect(there.definitions()).toEqual(here.definitions())
    // Validation errors are thrown at once, with the same code and message.
    const bad = { name: 'bad tool!', commands: [] }
    expect(() => here.register(bad)).toThrow()
    let err: any
    try {
      there.register(bad)
    } catch (e) {
      err = e
    }
    expect(err?.code).toBe('ERR_INVALID_ARG')
    expect(() => here.register(bad)).toThrow(err.message)
    expect(there.unregister('git')).toBe(true)
    expect(there.unregister('git')).toBe(false)
    expect(there.names()).toEqual(['sh'])
  })

  it('rejects bad options as the in-process registry does', () => {
    expect(() => new ToolRegistry({ isolation: 'thread' } as any)).toThrow(/isolation must be 'none' or 'process'/)
    expect(() => new ToolRegistry({ isolation: 'process', maxHandles: 0 })).toThrow(/maxHandles/)
    expect(() => new ToolRegistry({ isolation: 'process', hostTimeoutMs: -1 })).toThrow(/hostTimeoutMs/)
    expect(() => new ToolRegistry({ isolation: 'process', hostStartTimeoutMs: 'soon' as any })).toThrow(/hostStartTimeoutMs/)
    const plain = new ToolRegistry({ isolation: 'none' })
    expect(plain.names()).toEqual([])
  })

  it('runs calls in the host: same states, same errors, list and events in order', async () => {
    const events: ToolEvent[] = []
    const here = new ToolRegistry()
    const there = isolated({ onEvent: (e) => events.push(e) })
    here.register(shTool)
    there.register(shTool)
    const script = 'echo ready; read x; echo "got $x"'
    const a = await here.call('sh', { action: 'spawn', command: 'run', args: [script] })
    const b = await there.call('sh', { action: 'spawn', command: 'run', args: [script] })
    expect(b).toEqual(a)
    expect(there.list().map((h) => [h.id, h.tool, h.command, h.state])).toEqual([['h1', 'sh', 'run', 'running']])
    const hostPid = hostPids()
    expect(hostPid).toHaveLength(1)
    // The program runs under the host, not under this process.
    expect(Process.fromPid(there.list()[0].pid!)?.ppid).toBe(hostPid[0])
    expect(await there.call('sh', { action: 'apply', id: b.id, input: 'yes<enter>' })).toEqual(
      await here.call('sh', { action: 'apply', id: a.id, input: 'yes<enter>' }),
    )
    expect(await there.call('sh', { action: 'spawn', command: 'pipe', args: ['echo piped'] })).toEqual(
      await here.call('sh', { action: 'spawn', command: 'pipe', args: ['echo piped'] }),
    )
    for (const input of [
      ['nope', { action: 'fetch', id: 'h1' }],
      ['sh', { action: 'fetch', id: 'h42' }],
      ['sh', { action: 'spawn', command: 'nope' }],
      ['sh', { action: 'apply', id: 'h3' }],
      ['sh', 'not json'],
      ['sh', [1, 2]],
      ['sh', undefined],
      [42, {}],
      ['sh', { action: 'spawn', command: 'run', args: [1n] }],
    ] as [any, any][]) {
      const mine = await here.call(input[0], input[1]).catch((e) => e)
      const theirs = await there.call(input[0], input[1]).catch((e) => e)
      expect(theirs).toBeInstanceOf(Error)
      expect({ code: theirs.code, message: theirs.message }).toEqual({ code: mine.code, message: mine.message })
    }
    expect(await there.wait('h1', { timeoutMs: 100 }).catch((e) => e.code)).toBe('ERR_UNKNOWN_HANDLE')
    // Events: started, output..., finished for each handle, in that order.
    await vi.waitFor(() => expect(events.filter((e) => e.type === 'finished')).toHaveLength(2))
    for (const id of ['h1', 'h2']) {
      const mine = events.filter((e) => e.id === id)
      expect(mine[0].type).toBe('started')
      expect(mine[mine.length - 1].type).toBe('finished')
      expect(mine.slice(1, -1).every((e) => e.type === 'output')).toBe(true)
    }
    const output = events.filter((e): e is Extract<ToolEvent, { type: 'output' }> => e.type === 'output' && e.id === 'h1')
    expect(output.map((e) => e.chunk).join('')).toContain('got yes')
    await vi.waitFor(() => expect(there.list()).toEqual([]))
    await here.abortAll()
  })

  it('carries many concurrent calls and keeps each reply with its call', async () => {
    const there = isolated()
    there.register(shTool)
    const states = await Promise.all(
      Array.from({ length: 12 }, (_, i) => there.call('sh', { action: 'spawn', command: 'pipe', args: [`echo call-${i}`] })),
    )
    states.forEach((s, i) => expect(content(s)).toBe(`call-${i}`))
    expect(new Set(states.map((s) => s.id)).size).toBe(12)
  })
})

describe('isolated host: respond() and the terminal tools', () => {
  it('respond() gives the same replies as in process, mistakes included', async () => {
    const here = new ToolRegistry()
    const there = isolated()
    for (const r of [here, there]) r.register(shTool)
    const calls: Array<[string, unknown]> = [
      ['sh', { action: 'spawn', command: 'run', args: ['echo ready; read x; echo "got $x"'] }],
      ['sh', { action: 'apply', id: 'h1', input: 'yes<enter>' }],
      ['sh', { action: 'fetch', id: 'h9' }],
      ['sh', { action: 'spawn', command: 'nope' }],
      ['sh', { action: 'spawn', command: 'pipe', args: ['exit 4'] }],
      ['bash', { action: 'spawn', command: 'run' }],
    ]
    for (const [name, input] of calls) {
      expect(await there.respond(name, input)).toEqual(await here.respond(name, input))
    }
    expect((await there.respond('sh', { action: 'fetch', id: 'h9' })).text).toContain('no handle "h9"')
    // The caller's bug still rejects.
    const empty = isolated()
    await expect(empty.respond('sh', {})).rejects.toMatchObject({ code: 'ERR_UNKNOWN_TOOL' })
  })

  it('terminal tools run in the host: sessions in list() and events, replies as in process', async () => {
    const events: ToolEvent[] = []
    const there = isolated({ onEvent: (e) => events.push(e) })
    there.register(terminalTools({ allow: ['sh', 'echo'] }))
    expect(there.names()).toContain('pty_start')
    expect(there.definitions('mcp').find((d) => d.name === 'pty_stop')?.annotations?.destructiveHint).toBe(true)
    const started = await there.call('pty_start', { command: 'sh', args: ['-c', 'read x; echo "got $x"'] })
    expect(started).toMatchObject({ id: 'pty1', status: 'running', command: 'sh' })
    const hostPid = hostPids()
    expect(Process.fromPid(started.pid!)?.ppid).toBe(hostPid[0])
    expect(there.list().map((h) => [h.id, h.tool, h.command, h.state])).toEqual([['pty1', 'pty_start', 'sh', 'running']])
    const sent = await there.respond('pty_send', { id: 'pty1', input: 'yes<enter>' })
    expect(sent.text).toMatch(/^Sent 4 bytes to pty1\./)
    const read = await there.respond('pty_read', { id: 'pty1', wait_ms: 5000, since: 0 })
    expect(read.text).toContain('got yes')
    await vi.waitFor(() => expect(events.map((e) => e.type)).toContain('finished'))
    expect(events.filter((e) => e.type !== 'output').map((e) => [e.type, e.id])).toEqual([['started', 'pty1'], ['finished', 'pty1']])
    // The allow list crossed to the host.
    const denied = await there.respond('pty_exec', { command: 'rm', args: ['-rf', '/nonexistent'] })
    expect(denied).toEqual({ isError: true, text: expect.stringContaining('input.command "rm" is not allowed here (allowed: sh, echo)') })
  })

  it('a host that dies during respond() is a reply for the model, and its lost handles too', async () => {
    const before = hostPids()
    const there = isolated()
    there.register(shTool)
    there.register(terminalTools())
    const host = await newHost(before)
    const started = await there.respond('pty_start', { command: 'sleep', args: ['1000'] })
    expect(started.text).toMatch(/^Started session pty1/)
    const pending = there.respond('sh', { action: 'spawn', command: 'run', args: ['echo waiting; sleep 1000'] })
    await vi.waitFor(() => expect(there.list()).toHaveLength(2))
    process.kill(host, 'SIGKILL')
    const reply = await pending
    expect(reply.isError).toBe(true)
    expect(reply.text).toMatch(/^Error: the isolated host \(pid \d+\) was killed by SIGKILL; lost 2 running handles: h1 \(sh run\), pty1 \(pty_start sleep\)\. The next call starts a fresh host\.$/)
    const lost = await there.respond('pty_read', { id: 'pty1' })
    expect(lost).toEqual({ isError: true, text: expect.stringContaining('handle pty1 was lost when the isolated host was killed by SIGKILL') })
    // The next call works on a fresh host; session ids do not repeat the lost one.
    expect((await there.respond('pty_start', { command: 'sleep', args: ['1000'] })).text).toMatch(/^Started session pty2/)
  })

  it('an allow function stays in this process and is checked before the call leaves it', async () => {
    const asked: string[] = []
    const there = isolated()
    there.register(terminalTools({ allow: (command) => (asked.push(command), command === 'echo') }))
    const ok = await there.call('pty_exec', { command: 'echo', args: ['fine'] })
    expect(ok).toMatchObject({ status: 'exited', exitCode: 0, output: 'fine\n' })
    await expect(there.call('pty_exec', { command: 'sh', args: ['-c', 'echo no'] })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      denied: true,
    })
    const reply = await there.respond('pty_start', '{"command": "python3"}')
    expect(reply).toEqual({ isError: true, text: 'Error: input.command "python3" is not allowed here.' })
    expect(asked).toEqual(['echo', 'sh', 'python3'])
    expect(there.list()).toEqual([])
  })
})

describe('isolated host: crashes', () => {
  it('a SIGKILLed host rejects pending calls with ERR_HOST_CRASHED, leaves nothing running, and the next call works', async () => {
    const events: ToolEvent[] = []
    const before = hostPids()
    const registry = isolated({ onEvent: (e) => events.push(e) })
    registry.register(shTool)
    const host = await newHost(before)
    let first = await registry.call('sh', { action: 'spawn', command: 'run', args: [TREE] })
    // The spawn returns once the shell waits in its read; the grandchild's line may come after.
    while (!content(first).includes('GC=')) first = await registry.call('sh', { action: 'fetch', id: first.id })
    const text = content(first)
    const parent = pidsIn(text, 'P')
    const grandchild = pidsIn(text, 'GC')
    expect(alive(parent) && alive(grandchild)).toBe(true)
    // The grandchild left the session (setsid): no pty hangup reaches it.
    expect(Process.fromPid(grandchild)!.groupId()).not.toBe(Process.fromPid(parent)!.groupId())

    const pending = registry.call('sh', { action: 'spawn', command: 'run', args: ['echo second; sleep 1000'] })
    await vi.waitFor(() => expect(registry.list()).toHaveLength(2))
    const second = registry.list()[1]
    process.kill(host, 'SIGKILL')
    const err: any = await pending.catch((e) => e)
    expect(err.code).toBe('ERR_HOST_CRASHED')
    expect(err.signal).toBe('SIGKILL')
    expect(err.lost).toEqual(['h1', 'h2'])
    expect(err.message).toContain(`pid ${host}`)
    expect(err.message).toContain('SIGKILL')
    expect(err.message).toContain('h1 (sh run)')
    expect(err.message).toContain('h2 (sh run)')
    const crashed = events.filter((e) => e.type === 'hostCrashed')
    expect(crashed.map((e) => e.id)).toEqual(['h1', 'h2'])
    expect(crashed[0]).toMatchObject({ hostPid: host, signal: 'SIGKILL', exitCode: null, lost: ['h1', 'h2'], message: err.message })
    // No program survives, the grandchild in its own session included.
    await expectGone([parent, grandchild, second.pid!, host])
    expect(registry.list()).toEqual([])

    // A lost handle says so.
    const lost: any = await registry.call('sh', { action: 'apply', id: 'h1', input: 'x<enter>' }).catch((e) => e)
    expect(lost.code).toBe('ERR_UNKNOWN_HANDLE')
    expect(lost.message).toMatch(/h1 was lost when the isolated host was killed by SIGKILL/)
    // The next call starts a fresh host; ids do not repeat the lost ones.
    const fresh = await registry.call('sh', { action: 'spawn', command: 'pipe', args: ['echo fresh'] })
    expect(fresh.id).toBe('h3')
    expect(content(fresh)).toBe('fresh')
    const hosts = hostPids()
    expect(hosts).toHaveLength(1)
    expect(hosts[0]).not.toBe(host)
  })

  it('a host whose addon aborts mid-session (test switch) is a crash too; the test process is unharmed', async () => {
    process.env.PTYPILOT_HOST_TEST_ABORT_ON = 'ABORT-NOW'
    const registry = isolated()
    registry.register(shTool)
    const state = await registry.call('sh', {
      action: 'spawn',
      command: 'run',
      args: ['echo P=$$; read x; printf "%s-%s\\n" ABORT NOW; sleep 1000'],
    })
    const program = pidsIn(content(state), 'P')
    const err: any = await registry.call('sh', { action: 'apply', id: state.id, input: 'go<enter>' }).catch((e) => e)
    expect(err.code).toBe('ERR_HOST_CRASHED')
    expect(err.signal).toBe('SIGABRT')
    // Node's abort() prints a native stack on its way out.
    expect(err.stderr).toMatch(/abort|node/i)
    expect(err.lost).toEqual([state.id])
    await expectGone([program])
    delete process.env.PTYPILOT_HOST_TEST_ABORT_ON
    const again = await registry.call('sh', { action: 'spawn', command: 'pipe', args: ['echo after'] })
    expect(content(again)).toBe('after')
    expect(process.exitCode ?? 0).toBe(0)
  })

  it('a host that does not start in time is killed with ERR_TIMEOUT; the next call starts one that does', async () => {
    process.env.PTYPILOT_HOST_TEST_HANG = 'start'
    const before = hostPids()
    // Long enough for a fresh host to start on a loaded machine.
    const registry = isolated({ hostStartTimeoutMs: 2000 })
    registry.register(shTool)
    const host = await newHost(before)
    delete process.env.PTYPILOT_HOST_TEST_HANG
    const err: any = await registry.call('sh', { action: 'spawn', command: 'pipe', args: ['echo hi'] }).catch((e) => e)
    expect(err.code).toBe('ERR_TIMEOUT')
    expect(err.message).toMatch(/did not start within 2000 ms/)
    await expectGone([host])
    const ok = await registry.call('sh', { action: 'spawn', command: 'pipe', args: ['echo hi'] })
    expect(content(ok)).toBe('hi')
  })

  it('a host that stops answering is killed and its calls reject with ERR_HOST_CRASHED', async () => {
    process.env.PTYPILOT_HOST_TEST_HANG = 'call'
    const before = hostPids()
    const registry = isolated({ hostTimeoutMs: 400 })
    registry.register(shTool)
    const host = await newHost(before)
    delete process.env.PTYPILOT_HOST_TEST_HANG
    const err: any = await registry.call('sh', { action: 'spawn', command: 'pipe', args: ['echo hi'] }).catch((e) => e)
    expect(err.code).toBe('ERR_HOST_CRASHED')
    expect(err.message).toMatch(/stopped answering for 400 ms and was killed/)
    await expectGone([host])
    expect(content(await registry.call('sh', { action: 'spawn', command: 'pipe', args: ['echo hi'] }))).toBe('hi')
  })

  it('when the agent process dies, the host kills what it started and exits', async () => {
    const agent = spawn(
      process.execPath,
      [
        '-e',
        `const { ToolRegistry } = require(${JSON.stringify(join(__dirname, '..', 'index.js'))})
         const r = new ToolRegistry({ isolation: 'process' })
         r.register(${JSON.stringify(shTool)})
         const untilGC = async (s) => (s.content.includes('GC=') ? s : untilGC(await r.call('sh', { action: 'fetch', id: s.id })))
         r.call('sh', { action: 'spawn', command: 'run', args: [${JSON.stringify(TREE)}] })
           .then(untilGC)
           .then((s) => { console.log(JSON.stringify(s)); setInterval(() => {}, 1000) })`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    let out = ''
    agent.stdout.on('data', (d) => (out += d))
    await vi.waitFor(() => expect(out).toContain('GC='), { timeout: 20000 })
    const state = JSON.parse(out) as ToolState
    const parent = pidsIn(content(state), 'P')
    const grandchild = pidsIn(content(state), 'GC')
    const host = Process.fromPid(parent)!.ppid
    expect(alive(grandchild)).toBe(true)
    agent.kill('SIGKILL')
    await expectGone([host, parent, grandchild])
  })
})
