// The terminal tool set (terminalTools()) in a ToolRegistry: typed call()
// results, reads by cursor and tail, waits, the screen of a full-screen
// program, named keys, limits, spills, permission classes, the allow list,
// options, and unregistering.
import { describe, it, expect, afterEach, vi } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ToolRegistry, gitTool, terminalTools, type ToolEvent } from '../index.js'
import { alive } from './helpers'

let registry: ToolRegistry | undefined
afterEach(async () => {
  await registry?.abortAll()
  registry = undefined
})

function withTools(options: Parameters<typeof terminalTools>[0] = {}, registryOptions = {}) {
  registry = new ToolRegistry(registryOptions)
  registry.register(terminalTools(options))
  return registry
}

describe('the tool set', () => {
  it('six tools with permission classes, schemas and MCP annotations derived from them', () => {
    const set = terminalTools()
    expect(set.tools.map((t) => [t.name, t.permission])).toEqual([
      ['pty_exec', 'start'],
      ['pty_start', 'start'],
      ['pty_read', 'read'],
      ['pty_send', 'input'],
      ['pty_list', 'read'],
      ['pty_stop', 'stop'],
    ])
    for (const tool of set.tools) {
      expect(tool.annotations.readOnlyHint).toBe(tool.permission === 'read')
      expect(tool.annotations.destructiveHint).toBe(tool.permission !== 'read')
      expect(tool.inputSchema.additionalProperties).toBe(false)
      // The strict form: every field required, the optional ones nullable.
      expect(tool.strictSchema.required).toEqual(Object.keys(tool.strictSchema.properties))
    }
    const exec = set.tools[0]
    expect(exec.inputSchema.required).toEqual(['command'])
    expect(exec.strictSchema.properties.timeout_ms).toMatchObject({ type: ['integer', 'null'] })
    expect(exec.inputSchema.properties.timeout_ms).toMatchObject({ maximum: 300000 })
    expect(Object.isFrozen(set)).toBe(true)
  })

  it('sits beside interactive tools: names, schema, definitions; a taken name is refused whole', () => {
    const r = withTools()
    r.register({ name: 'sh', commands: [{ name: 'run', program: ['sh', '-c'] }] })
    expect(r.names()).toEqual(['pty_exec', 'pty_list', 'pty_read', 'pty_send', 'pty_start', 'pty_stop', 'sh'])
    expect(r.schema('pty_send')).toMatchObject({ required: ['id', 'input'] })
    expect(() => r.register(terminalTools())).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringContaining('"pty_exec" is already registered') }))
    expect(() => r.register({ name: 'pty_list', commands: [{ name: 'x', program: ['true'] }] })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringContaining('"pty_list" is already registered') }),
    )
    const other = new ToolRegistry()
    other.register({ name: 'pty_read', commands: [{ name: 'x', program: ['true'] }] })
    expect(() => other.register(terminalTools())).toThrow(/"pty_read" is already registered/)
    expect(other.names()).toEqual(['pty_read'])
  })

  it('bad options are ERR_INVALID_ARG naming the option', () => {
    expect(() => terminalTools({ maxSessions: 0 })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringContaining('options.maxSessions') }))
    expect(() => terminalTools({ allow: 'git' as never })).toThrow(/options\.allow/)
    expect(() => terminalTools({ colour: true } as never)).toThrow(/unknown option "colour"/)
    expect(() => terminalTools({ defaultTimeoutMs: 10_000, maxTimeoutMs: 5000 })).toThrow(/must not exceed options\.maxTimeoutMs/)
    expect(() => terminalTools({ env: { A: 1 } as never })).toThrow(/options\.env\.A/)
  })
})

describe('pty_exec', () => {
  it('runs without a shell and returns the exit code and output', async () => {
    const r = withTools()
    const result = await r.call('pty_exec', { command: 'sh', args: ['-c', 'echo "$0 $1"; exit 7', 'a b', '*'] })
    expect(result).toMatchObject({ status: 'exited', exitCode: 7, signal: null, timedOut: false, output: 'a b *\n', spillPath: null, lines: 1 })
    // An argument is one argv element: no globbing, no splitting.
    const echo = await r.call('pty_exec', { command: 'echo', args: ['$HOME', '*', 'a  b'] })
    expect(echo.output).toBe('$HOME * a  b\n')
    const reply = await r.respond('pty_exec', { command: 'sh', args: ['-c', 'exit 2'] })
    expect(reply.isError).toBe(true)
    expect(reply.text).toMatch(/^\(no output\)\n\[exited 2 after \d+(\.\d)? m?s\]$/)
    // A finished exec leaves no session behind.
    expect(r.list()).toEqual([])
  })

  it('a field the native side refuses is ERR_INVALID_INPUT, a reply for the model', async () => {
    const r = withTools()
    await expect(r.call('pty_exec', { command: 'echo', cwd: 'a\0b' })).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT', message: expect.stringContaining('NUL') })
    const s = await r.call('pty_start', { command: 'sleep', args: ['30'] })
    const reply = await r.respond('pty_read', { id: s.id, tail: 2e9 })
    expect(reply).toMatchObject({ isError: true, text: expect.stringMatching(/^Error: input is not usable: .*tail/) })
  })

  it('a program that cannot start is ERR_SPAWN for call() and a hint for the model', async () => {
    const r = withTools()
    await expect(r.call('pty_exec', { command: 'no-such-program-ptypilot' })).rejects.toMatchObject({ code: 'ERR_SPAWN' })
    const reply = await r.respond('pty_exec', { command: 'git status --short' })
    expect(reply.isError).toBe(true)
    expect(reply.text).toContain('programs run without a shell: put the program in command and its arguments in args, e.g. {"command": "git", "args": ["status","--short"]}')
  })

  it('timeout_ms: default and maximum from the options; over the maximum is refused', async () => {
    const r = withTools({ maxTimeoutMs: 1000, defaultTimeoutMs: 200 })
    const slow = await r.call('pty_exec', { command: 'sh', args: ['-c', 'echo one; sleep 30'] })
    expect(slow).toMatchObject({ status: 'running', timedOut: true, timeoutMs: 200, id: 'pty1' })
    expect(r.list()).toMatchObject([{ id: 'pty1', tool: 'pty_exec', command: 'sh', state: 'running' }])
    await expect(r.call('pty_exec', { command: 'true', timeout_ms: 1001 })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      message: 'input.timeout_ms must be from 1 to 1000, got 1001',
    })
  })

  it('cwd is relative to the set’s working directory; env is set for the programs', async () => {
    const base = mkdtempSync(join(tmpdir(), 'ptypilot-tt-'))
    mkdirSync(join(base, 'sub'))
    const r = withTools({ cwd: base, env: { PTYPILOT_TT: 'yes' } })
    expect((await r.call('pty_exec', { command: 'pwd' })).output.trim()).toBe(base)
    expect((await r.call('pty_exec', { command: 'pwd', cwd: 'sub' })).output.trim()).toBe(join(base, 'sub'))
    expect((await r.call('pty_exec', { command: 'sh', args: ['-c', 'echo $PTYPILOT_TT'] })).output).toBe('yes\n')
    // Without its own cwd the set uses the registry's.
    const r2 = new ToolRegistry({ cwd: join(base, 'sub') })
    r2.register(terminalTools())
    expect((await r2.call('pty_exec', { command: 'pwd' })).output.trim()).toBe(join(base, 'sub'))
  })

  it('output over the line or byte limit is spilled to a file, head and tail inline', async () => {
    const spillDir = join(mkdtempSync(join(tmpdir(), 'ptypilot-tt-')), 'spill')
    const r = withTools({ spillDir, maxOutputBytes: 4096 })
    // 100 lines of 60 characters: under 2000 lines, over 4096 bytes.
    const result = await r.call('pty_exec', { command: 'sh', args: ['-c', 'for i in $(seq 1 100); do printf "%059d\\n" $i; done'] })
    expect(result.bytes).toBe(6000)
    expect(result.spillPath).not.toBeNull()
    expect(result.spillPath!.startsWith(spillDir)).toBe(true)
    expect(readFileSync(result.spillPath!, 'utf8')).toHaveLength(6000)
    // All 100 lines fit in head (50) + tail (150): nothing omitted between them.
    expect(result.output).toContain('[… 0 lines omitted; the whole output is in')
    const inline = await r.call('pty_exec', { command: 'seq', args: ['1', '10'] })
    expect(inline.spillPath).toBeNull()
  })
})

describe('pty_start, pty_read, pty_send', () => {
  it('reads from the start, by tail, since a cursor, and waits for new output', async () => {
    const r = withTools()
    const s = await r.call('pty_start', { command: 'sh', args: ['-c', 'seq 1 5; read x; echo "after $x"; read y'], title: 'counter' })
    expect(s).toMatchObject({ id: 'pty1', status: 'running', title: 'counter', command: 'sh' })
    const first = await r.call('pty_read', { id: s.id, wait_ms: 5000 })
    await vi.waitFor(async () => expect((await r.call('pty_read', { id: s.id })).output).toBe('1\n2\n3\n4\n5\n'))
    const tail = await r.call('pty_read', { id: s.id, tail: 2 })
    expect(tail.output).toBe('4\n5\n')
    const end = tail.cursor
    expect(first.cursor).toBeLessThanOrEqual(end)
    const none = await r.call('pty_read', { id: s.id, since: end })
    // The shell waits in its read: running, and waiting for a line.
    expect(none).toMatchObject({ output: '', cursor: end, status: 'running', inputKind: 'line' })
    expect(await r.respond('pty_read', { id: s.id, since: end })).toMatchObject({ text: `(no new output)\n[session pty1: waiting for input (line)] [cursor: ${end}]` })
    const sent = await r.call('pty_send', { id: s.id, input: 'go<enter>' })
    expect(sent).toEqual({ id: 'pty1', bytes: 3, characters: 2, echoOff: false, cursor: end })
    const answer = await r.call('pty_read', { id: s.id, since: sent.cursor, wait_ms: 5000 })
    expect(answer.output).toContain('after go')
    await expect(r.call('pty_read', { id: s.id, since: answer.cursor + 100 })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      message: expect.stringContaining('is past the end of pty1'),
    })
  })

  it('named keys reach the program as apply sends them: <ctrl+c> interrupts, <up> recalls history', async () => {
    const r = withTools()
    const s = await r.call('pty_start', { command: 'python3', args: ['-q'] })
    await r.call('pty_read', { id: s.id, wait_ms: 5000 })
    let cursor = (await r.call('pty_send', { id: s.id, input: 'import time; time.sleep(30)<enter>' })).cursor
    await r.call('pty_read', { id: s.id, since: cursor, wait_ms: 500 })
    cursor = (await r.call('pty_send', { id: s.id, input: '<ctrl+c>' })).cursor
    await vi.waitFor(async () => expect((await r.call('pty_read', { id: s.id, since: cursor, wait_ms: 1000 })).output).toContain('KeyboardInterrupt'), { timeout: 10000 })
    cursor = (await r.call('pty_send', { id: s.id, input: 'print("again" * 2)<enter>' })).cursor
    await vi.waitFor(async () => expect((await r.call('pty_read', { id: s.id, since: cursor, wait_ms: 1000 })).output).toContain('againagain'), { timeout: 10000 })
    cursor = (await r.call('pty_send', { id: s.id, input: '<up><enter>' })).cursor
    await vi.waitFor(async () => expect((await r.call('pty_read', { id: s.id, since: cursor, wait_ms: 1000 })).output).toContain('againagain'), { timeout: 10000 })
    await expect(r.call('pty_send', { id: s.id, input: '<ctrl+nope>' })).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT' })
  })

  it('screen: true returns the screen of a full-screen program (less)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-tt-'))
    writeFileSync(join(dir, 'long.txt'), Array.from({ length: 200 }, (_, i) => `row ${i + 1}`).join('\n') + '\n')
    const r = withTools({ cwd: dir, cols: 80, rows: 24 })
    const s = await r.call('pty_start', { command: 'less', args: ['long.txt'] })
    await vi.waitFor(async () => {
      const shown = await r.call('pty_read', { id: s.id, screen: true, wait_ms: 500 })
      expect(shown.screen.lines[0]).toBe('row 1')
      expect(shown.screen.altScreen).toBe(true)
      expect(shown.screen.text.split('\n')[0]).toBe('row 1')
    }, { timeout: 10000 })
    await r.call('pty_send', { id: s.id, input: '<pagedown>' })
    await vi.waitFor(async () => {
      expect((await r.call('pty_read', { id: s.id, screen: true, wait_ms: 500 })).screen.lines[0]).toBe('row 24')
    }, { timeout: 10000 })
    // respond() sends the screen as a lean view: whole the first time, then what changed.
    const reply = await r.respond('pty_read', { id: s.id, screen: true })
    expect(reply.text).toMatch(/^\[screen of pty1\]\n\[full view \d+, 80x24, cursor 23,\d+, alternate screen\]\nrow 24\n/)
    // less reads keys: waiting for input (key).
    expect(reply.text).toMatch(/\n\[session pty1: waiting for input \(key\)\] \[cursor: \d+\]$/)
    expect((await r.respond('pty_read', { id: s.id, screen: true })).text).toMatch(/^\[screen of pty1\]\n\[screen unchanged\]\n\[session pty1: waiting for input \(key\)\]/)
    await r.call('pty_send', { id: s.id, input: 'q' })
    await vi.waitFor(async () => expect((await r.call('pty_read', { id: s.id, wait_ms: 500 })).status).toBe('exited'), { timeout: 10000 })
  })

  it('pty_send to an exited session is ERR_NOT_RUNNING; pty_stop removes it', async () => {
    const r = withTools()
    const s = await r.call('pty_start', { command: 'sh', args: ['-c', 'echo bye'] })
    await vi.waitFor(() => expect(r.list()).toMatchObject([{ id: 'pty1', state: 'success', exitCode: 0 }]))
    await expect(r.call('pty_send', { id: s.id, input: 'x' })).rejects.toMatchObject({ code: 'ERR_NOT_RUNNING' })
    expect(await r.call('pty_stop', { id: s.id })).toEqual({
      id: 'pty1',
      status: 'exited',
      inputKind: null,
      exitCode: 0,
      signal: null,
      runtimeMs: expect.any(Number),
      leftovers: [],
      person: null,
      panelUrl: null,
      sandbox: null,
      stopped: false,
      ended: [],
    })
    expect(r.list()).toEqual([])
    await expect(r.call('pty_read', { id: s.id })).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_HANDLE',
      message: 'no terminal session "pty1" any more: pty1 (sh -c echo bye) exited with code 0 and was removed (pty_stop removed it)',
    })
  })

  it('an exited session stays readable, and listed as exited, until one read reports its exit; then calls naming it hear what became of it', async () => {
    const r = withTools()
    const s = await r.call('pty_start', { command: 'sh', args: ['-c', 'echo one; echo two; exit 3'] })
    await vi.waitFor(() => expect(r.list()).toMatchObject([{ id: s.id, state: 'error', exitCode: 3 }]))
    // Listed as exited, with how long it ran; a list is not a read.
    expect((await r.respond('pty_list', {})).text).toMatch(/^pty1: exited 3 after \d+(\.\d)? m?s; sh -c echo one; echo two; exit 3; pid \d+; cursor \d+$/)
    expect((await r.respond('pty_list', {})).text).toMatch(/^pty1: exited 3/)
    // The read that reports the exit: the end of the output, the exit, the runtime.
    const reply = await r.respond('pty_read', { id: s.id, tail: 1 })
    expect(reply.text).toMatch(/^two\n\[pty1 ran \d+(\.\d)? m?s; the session is removed now that its exit was read\]\n\[session pty1: exited 3\] \[cursor: \d+\]$/)
    expect(reply.result).toMatchObject({ status: 'exited', exitCode: 3, runtimeMs: expect.any(Number), leftovers: [] })
    expect(r.list()).toEqual([])
    expect((await r.respond('pty_list', {})).text).toBe('No terminal sessions.')
    expect((await r.respond('pty_read', { id: s.id })).text).toBe(
      'Error: no terminal session "pty1" any more: pty1 (sh -c echo one; echo two; exit 3) exited with code 3 and was removed (its exit was reported). pty_list shows the sessions; pty_start starts one.',
    )
    expect((await r.respond('pty_send', { id: s.id, input: 'x' })).text).toBe(
      'Error: session pty1 has exited (exited with code 3); the input was not sent. Start it again with pty_start.',
    )
  })

  it('an exited session nobody reads is removed after keepExitedMs', async () => {
    const r = withTools({ keepExitedMs: 200 })
    const s = await r.call('pty_start', { command: 'true' })
    await vi.waitFor(() => expect(r.list()).toMatchObject([{ id: s.id, state: 'success' }]))
    await vi.waitFor(() => expect(r.list()).toEqual([]), { timeout: 5000 })
    await expect(r.call('pty_read', { id: s.id })).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_HANDLE',
      message: 'no terminal session "pty1" any more: pty1 (true) exited with code 0 and was removed (nobody read it within 200 ms of its exit)',
    })
  })
})

describe('waits: a program waiting for input, exiting, or working silently', () => {
  /** The state line a reply ends with. */
  const stateLine = (text: string) => /\[session pty\d+: ([^\]]+)\] \[cursor: \d+\]$/.exec(text)?.[1]

  it('pty_exec returns as soon as the program waits for a password, not after timeout_ms; the password is never shown', async () => {
    const events: ToolEvent[] = []
    const r = withTools({}, { onEvent: (e: ToolEvent) => events.push(e) })
    const script = 'echo start; sleep 1; printf "Password: "; stty -echo; read p; stty echo; echo; echo "got ${#p} characters"'
    const result = await r.call('pty_exec', { command: 'sh', args: ['-c', script], timeout_ms: 20000 })
    expect(result).toMatchObject({ id: 'pty1', status: 'running', reason: 'input', inputKind: 'password', timedOut: false })
    expect(result.output).toBe('start\nPassword: ')
    const listed = await r.respond('pty_list', {})
    expect(listed.text).toMatch(/^pty1: waiting for input \(password\); sh -c/)
    // The reply says what the program waits for and how to answer.
    const read = await r.respond('pty_read', { id: 'pty1' })
    expect(stateLine(read.text)).toBe('waiting for input (password)')
    const sent = await r.respond('pty_send', { id: 'pty1', input: 'hunter2<enter>', wait_ms: 10000 })
    expect(sent.result).toMatchObject({ bytes: 8, characters: 7, echoOff: true, answer: { status: 'exited', exitCode: 0, reason: 'exit' } })
    expect((sent.result as { answer: { output: string } }).answer.output).toBe('\ngot 7 characters\n')
    expect(sent.text).toMatch(/^\[sent 7 characters, not shown: the program had echo off\]\n\ngot 7 characters\n/)
    expect(sent.text).toMatch(/\[session pty1: exited 0\] \[cursor: \d+\]$/)
    // Not in a reply, nor in the output the events carried.
    const output = events.filter((e) => e.type === 'output').map((e) => (e as { chunk: string }).chunk).join('')
    expect(output).toContain('Password: ')
    expect(JSON.stringify([result, listed, read, sent, output])).not.toContain('hunter2')
  })

  it('pty_exec of a program that asks a question: its output so far, waiting for input (line), and a way to answer', async () => {
    const r = withTools()
    const reply = await r.respond('pty_exec', { command: 'sh', args: ['-c', 'echo checking; sleep 1; printf "Go on? [y/N] "; read a; echo "answer: $a"'] })
    expect(reply.isError).toBe(false)
    expect(reply.text).toMatch(/^checking\nGo on\? \[y\/N\] \n\[waiting for input \(line\): it keeps running as session pty1; answer with pty_send \{"id":"pty1","input":"\.\.\.<enter>","wait_ms":5000\}/)
    expect(stateLine(reply.text)).toBe('waiting for input (line)')
    const answer = await r.call('pty_send', { id: 'pty1', input: 'y<enter>', wait_ms: 10000 })
    expect(answer).toMatchObject({ id: 'pty1', bytes: 2, characters: 1, echoOff: false })
    expect(answer.answer).toMatchObject({ status: 'exited', exitCode: 0, reason: 'exit', inputKind: null })
    // The terminal's echo, then the program's answer.
    expect(answer.answer!.output).toBe('y\nanswer: y\n')
  })

  it('pty_read with wait_ms after a delayed input(): the prompt, not only the echo of the typed line', async () => {
    const r = withTools()
    const s = await r.call('pty_start', { command: 'python3', args: ['-q'], wait_ms: 10000 })
    expect(s).toMatchObject({ reason: 'input', inputKind: expect.stringMatching(/^(line|key)$/) })
    expect(s.output).toContain('>>> ')
    const sent = await r.call('pty_send', { id: s.id, input: 'import time; time.sleep(1); x = input("name? ")<enter>' })
    const read = await r.call('pty_read', { id: s.id, since: sent.cursor, wait_ms: 10000 })
    expect(read).toMatchObject({ reason: 'input', status: 'running', inputKind: expect.stringMatching(/^(line|key)$/) })
    expect(read.output).toMatch(/x = input\("name\? "\)\nname\? $/)
  })

  it('a silent computation is running, not waiting: pty_read waits it out and reports the exit', async () => {
    const r = withTools()
    const s = await r.call('pty_start', { command: 'python3', args: ['-c', 'import time; time.sleep(3); print("result: 42")'] })
    const early = await r.respond('pty_read', { id: s.id, wait_ms: 1000 })
    expect(stateLine(early.text)).toBe('running')
    const waited = await r.call('pty_read', { id: s.id, wait_ms: 1000 })
    expect(waited).toMatchObject({ status: 'running', inputKind: null, reason: 'timeout', output: '' })
    const done = await r.call('pty_read', { id: s.id, wait_ms: 20000 })
    expect(done).toMatchObject({ status: 'exited', exitCode: 0, reason: 'exit', output: 'result: 42\n' })
  })

  it('pty_send with wait_ms: the echo is not the answer; a slow step after it is waited for', async () => {
    const r = withTools()
    const s = await r.call('pty_start', { command: 'sh', args: ['-c', 'read x; sleep 1.5; echo "done $x"; read y'] })
    const answer = await r.call('pty_send', { id: s.id, input: 'go<enter>', wait_ms: 20000 })
    expect(answer.answer).toMatchObject({ reason: 'input', status: 'running', inputKind: 'line' })
    expect(answer.answer!.output).toBe('go\ndone go\n')
    // Without wait_ms, the reply points at pty_read.
    expect((await r.respond('pty_send', { id: s.id, input: 'bye<enter>' })).text).toMatch(/^Sent 4 bytes to pty1\. Read the answer with pty_read/)
  })

  it('a program that waits for input without printing anything (cat): the waits end at once', async () => {
    const r = withTools()
    const s = await r.call('pty_start', { command: 'cat', wait_ms: 20000 })
    expect(s).toMatchObject({ reason: 'input', status: 'running', inputKind: 'line', output: '' })
    expect(await r.call('pty_read', { id: s.id, wait_ms: 20000 })).toMatchObject({ reason: 'input', inputKind: 'line', output: '' })
    const echoed = await r.call('pty_send', { id: s.id, input: 'hello<enter>', wait_ms: 20000 })
    expect(echoed.answer).toMatchObject({ reason: 'input', inputKind: 'line', output: 'hello\nhello\n' })
  })

  it('a program that prints and goes on without reading the terminal (a server): the wait ends after a quiet pause', async () => {
    const r = withTools()
    const reply = await r.respond('pty_start', {
      command: 'python3',
      args: ['-c', 'import time; print("listening on :8080", flush=True); time.sleep(60)'],
      wait_ms: 20000,
    })
    expect(reply.text).toMatch(/^Started session pty1: python3 -c .*\nlistening on :8080\n\[session pty1: running\] \[cursor: \d+\]$/)
    const typed = await r.call('pty_read', { id: 'pty1', wait_ms: 20000 })
    expect(typed).toMatchObject({ reason: 'quiet', status: 'running', inputKind: null })
  })
})

describe('limits, allow, events, unregister', () => {
  it('maxSessions running sessions; the next start is ERR_LIMIT, a reply for the model', async () => {
    const r = withTools({ maxSessions: 2 })
    await r.call('pty_start', { command: 'sleep', args: ['30'] })
    const b = await r.call('pty_start', { command: 'sleep', args: ['30'] })
    await expect(r.call('pty_start', { command: 'sleep', args: ['30'] })).rejects.toMatchObject({ code: 'ERR_LIMIT' })
    const reply = await r.respond('pty_exec', { command: 'true' })
    expect(reply).toMatchObject({ isError: true, text: expect.stringContaining('too many running sessions (2, limit 2); stop one with pty_stop first') })
    await r.call('pty_stop', { id: b.id })
    expect(await r.call('pty_exec', { command: 'true' })).toMatchObject({ exitCode: 0 })
  })

  it('allow: a list of names or a function; a refused command is ERR_INVALID_INPUT with denied', async () => {
    const r = withTools({ allow: ['echo', '/bin/sh'] })
    expect((await r.call('pty_exec', { command: 'echo', args: ['ok'] })).output).toBe('ok\n')
    expect((await r.call('pty_exec', { command: '/bin/sh', args: ['-c', 'echo sh'] })).output).toBe('sh\n')
    // A listed name allows that name on PATH, not any file of that name; a listed path, only that path.
    await expect(r.call('pty_exec', { command: '/bin/echo', args: ['no'] })).rejects.toMatchObject({ denied: true })
    await expect(r.call('pty_exec', { command: 'sh', args: ['-c', 'true'] })).rejects.toMatchObject({ denied: true })
    await expect(r.call('pty_start', { command: 'python3' })).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT', denied: true })
    expect((await r.respond('pty_exec', { command: 'rm', args: ['-rf', 'x'] })).text).toBe(
      'Error: input.command "rm" is not allowed here (allowed: echo, /bin/sh).',
    )
    const seen: string[] = []
    const r2 = new ToolRegistry()
    r2.register(terminalTools({ allow: (c) => (seen.push(c), c === 'true') }))
    await expect(r2.call('pty_exec', { command: 'false' })).rejects.toMatchObject({ denied: true })
    expect((await r2.call('pty_exec', { command: 'true' })).exitCode).toBe(0)
    expect(seen).toEqual(['false', 'true'])
  })

  it('sessions are in the events like handles, and abortAll stops them with their trees', async () => {
    const events: ToolEvent[] = []
    const r = withTools({}, { onEvent: (e: ToolEvent) => events.push(e) })
    const s = await r.call('pty_start', { command: 'sh', args: ['-c', 'sleep 300 & echo child=$!; wait'] })
    const read = await r.call('pty_read', { id: s.id, wait_ms: 5000 })
    await vi.waitFor(async () => expect((await r.call('pty_read', { id: s.id })).output).toMatch(/child=\d+/))
    const child = Number(/child=(\d+)/.exec((await r.call('pty_read', { id: s.id })).output)![1])
    expect(read.status).toBe('running')
    expect(alive(child)).toBe(true)
    await r.abortAll()
    expect(alive(s.pid!)).toBe(false)
    await vi.waitFor(() => expect(alive(child)).toBe(false))
    await vi.waitFor(() => expect(events.map((e) => e.type)).toContain('finished'))
    expect(events[0]).toMatchObject({ type: 'started', id: 'pty1', tool: 'pty_start', command: 'sh', pid: s.pid })
    expect(events.filter((e) => e.type === 'output').map((e) => (e as { chunk: string }).chunk).join('')).toMatch(/child=\d+/)
    expect(events[events.length - 1]).toMatchObject({ type: 'finished', id: 'pty1', state: 'aborted' })
  })

  it('a running session does not keep the process alive, and does not outlive it', async () => {
    const script = `
      const { ToolRegistry, terminalTools } = require(${JSON.stringify(join(__dirname, '..', 'index.js'))})
      const registry = new ToolRegistry()
      registry.register(terminalTools())
      registry.call('pty_start', { command: 'sleep', args: ['300'] }).then((s) => console.log('pid=' + s.pid))
    `
    // Without the session holding it, Node exits once the script is done (else the timeout kills it).
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 })
    expect(child.signal).toBeNull()
    expect(child.status).toBe(0)
    const pid = Number(/pid=(\d+)/.exec(child.stdout)![1])
    expect(pid).toBeGreaterThan(0)
    await vi.waitFor(() => expect(alive(pid)).toBe(false))

    // Awaiting a session's end holds the process until it comes.
    const waits = `
      const { ToolRegistry, terminalTools } = require(${JSON.stringify(join(__dirname, '..', 'index.js'))})
      const registry = new ToolRegistry()
      registry.register(terminalTools({ stopGraceMs: 300 }))
      ;(async () => {
        const trap = ['-c', 'trap "" TERM; echo ready; sleep 300']
        const a = await registry.call('pty_start', { command: 'sh', args: trap })
        await registry.call('pty_read', { id: a.id, wait_ms: 5000 })
        const stopped = await registry.call('pty_stop', { id: a.id })
        console.log('stopped ' + stopped.signal)
        await registry.call('pty_start', { command: 'sh', args: trap })
        await registry.abortAll()
        console.log('aborted all')
        const c = await registry.call('pty_start', { command: 'sh', args: ['-c', 'read x; exit 4'] })
        setTimeout(() => registry.call('pty_send', { id: c.id, input: 'go<enter>' }).catch(() => {}), 50).unref()
        const state = await registry.wait(c.id)
        console.log('waited ' + state.state)
      })()
    `
    const second = spawnSync(process.execPath, ['-e', waits], { encoding: 'utf8', timeout: 60_000 })
    expect(second.signal).toBeNull()
    expect(second.stdout).toBe('stopped SIGKILL\naborted all\nwaited stopped\n')
  })

  it('unregistering the last tool of the set stops its sessions', async () => {
    const r = withTools()
    const s = await r.call('pty_start', { command: 'sleep', args: ['300'] })
    const names = ['pty_exec', 'pty_start', 'pty_read', 'pty_send', 'pty_list', 'pty_stop']
    for (const name of names.slice(0, -1)) expect(r.unregister(name)).toBe(true)
    expect(r.names()).toEqual(['pty_stop'])
    expect(alive(s.pid!)).toBe(true)
    expect(r.unregister('pty_stop')).toBe(true)
    expect(r.unregister('pty_stop')).toBe(false)
    await vi.waitFor(() => expect(alive(s.pid!)).toBe(false), { timeout: 5000 })
  })
})

describe('respond() and a model that gets the fields wrong', () => {
  it('never rejects a call to a registered tool, whatever the fields (seeded)', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-tt-'))
    const r = withTools({ allow: ['true', 'echo', 'sh', 'nosuch-ptypilot'], defaultTimeoutMs: 2000, maxSessions: 4 }, { cwd: dir })
    r.register(gitTool())
    let seed = 7
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)]
    const values = (): unknown => pick([
      () => null, () => '', () => 'pty1', () => 'h1', () => 'pty99', () => -1, () => 0, () => 1.5, () => 2 ** 60, () => 40,
      () => true, () => [], () => ['-c', 'exit 0'], () => [1, 2], () => ({}), () => 'a\0b', () => '<ctrl+nope>', () => 'x<enter>',
      () => pick(['true', 'echo', 'sh', 'nosuch-ptypilot', 'rm']), () => pick(['spawn', 'fetch', 'apply', 'abort', 'run']),
      () => pick(['stage', 'log', 'rebase', 'push']),
    ])()
    const fields = ['command', 'args', 'cwd', 'timeout_ms', 'title', 'id', 'since', 'tail', 'wait_ms', 'screen', 'input', 'action', 'extra']
    const tools = ['pty_exec', 'pty_start', 'pty_read', 'pty_send', 'pty_list', 'pty_stop', 'git']
    let calls = 0
    let errors = 0
    for (let i = 0; i < 300; i++) {
      const input: Record<string, unknown> = {}
      for (let n = Math.floor(random() * 4); n >= 0; n--) input[pick(fields)] = values()
      if (input.wait_ms !== undefined && typeof input.wait_ms === 'number' && input.wait_ms > 100) input.wait_ms = 100
      const name = pick(tools)
      // Mostly a program the set allows, so the other fields get looked at.
      if ((name === 'pty_exec' || name === 'pty_start') && random() < 0.7) input.command = pick(['true', 'echo', 'sh'])
      const reply = await r.respond(name, random() < 0.1 ? JSON.stringify(input).slice(0, -1) : input)
      calls++
      expect(typeof reply.text).toBe('string')
      expect(reply.text.length).toBeGreaterThan(0)
      if (reply.isError) {
        errors++
        // Every error reply names what was wrong.
        expect(reply.text).toMatch(/^(Error: |\[h\d+ failed: |\(no output\)|[\s\S]*\[exited -?\d+\]$)/)
      }
    }
    expect(calls).toBe(300)
    // Most random calls are mistakes, and each got an answer.
    expect(errors).toBeGreaterThan(150)
  })
})
