// ToolRegistry against real programs: schemas, the git tool (stage, rebase,
// log), a Python REPL tool, errors, exit states, events.
import { describe, it, expect, beforeEach, afterEach, vi } from 'vitest'
import Ajv from 'ajv'
import { Process, ToolRegistry, gitTool, type InteractiveTool, type ToolEvent, type ToolState } from '../index.js'
import { repoWithTwoHunks } from './helpers'

function stopped(state: ToolState) {
  expect(state.state).toBe('stopped')
  if (state.state !== 'stopped') throw new Error('not stopped')
  return state.result
}

function running(state: ToolState) {
  expect(state.state).toBe('running')
  if (state.state !== 'running') throw new Error('not running')
  return state.content ?? ''
}

const ajv = new Ajv({ strict: false })

/** Asserts that `input` validates against the tool's generated schema. */
function expectValid(registry: ToolRegistry, tool: string, input: unknown) {
  const validate = ajv.compile(registry.schema(tool))
  const ok = validate(input)
  expect(ok, JSON.stringify(validate.errors)).toBe(true)
}

let registry: ToolRegistry
let previousHome: string | undefined

beforeEach(() => {
  previousHome = process.env.HOME
})

afterEach(async () => {
  await registry?.abortAll()
  process.env.HOME = previousHome
})

describe('schemas and definitions', () => {
  it('gitTool() schema is a oneOf of spawn, fetch, apply, abort', () => {
    registry = new ToolRegistry()
    registry.register(gitTool())
    const schema = registry.schema('git') as { type: string; oneOf: Array<{ properties: { action: { const: string } } }> }
    expect(schema.type).toBe('object')
    expect(schema.oneOf.map((v) => v.properties.action.const)).toEqual(['spawn', 'fetch', 'apply', 'abort'])
    expect(schema).toMatchSnapshot()
  })

  it('a tool without input has no apply variant', () => {
    registry = new ToolRegistry()
    registry.register({ name: 'lister', commands: [{ name: 'ls', program: ['ls'], pty: false }] })
    const schema = registry.schema('lister') as { oneOf: Array<{ properties: { action: { const: string } } }> }
    expect(schema.oneOf.map((v) => v.properties.action.const)).toEqual(['spawn', 'fetch', 'abort'])
    expect(schema).toMatchSnapshot()
    expect(() => expectValid(registry, 'lister', { action: 'apply', id: 'h1', input: 'x' })).toThrow()
  })

  it('sample calls validate against the generated schema with a real JSON Schema validator', () => {
    registry = new ToolRegistry()
    registry.register(gitTool())
    for (const call of [
      { action: 'spawn', command: 'stage' },
      { action: 'spawn', command: 'stage', args: ['notes.txt'] },
      { action: 'spawn', command: 'rebase', args: ['HEAD~1'] },
      { action: 'spawn', command: 'log' },
      { action: 'fetch', id: 'h1' },
      { action: 'apply', id: 'h1', input: 'y<enter>' },
      { action: 'abort', id: 'h1' },
    ]) {
      expectValid(registry, 'git', call)
    }
    const validate = ajv.compile(registry.schema('git'))
    expect(validate({ action: 'spawn', command: 'push' })).toBe(false)
    expect(validate({ action: 'fetch' })).toBe(false)
    expect(validate({ action: 'apply', id: 'h1' })).toBe(false)
  })

  it('definitions() in every format carry the same flat schema', () => {
    registry = new ToolRegistry()
    registry.register(gitTool())
    const [anthropic] = registry.definitions('anthropic')
    const [openai] = registry.definitions('openai')
    const [responses] = registry.definitions('openai-responses')
    const [mcp] = registry.definitions('mcp')
    expect(responses).toEqual({ type: 'function', ...openai.function })
    expect(mcp).toEqual({ name: 'git', description: anthropic.description, inputSchema: anthropic.input_schema })
    expect(() => registry.definitions('gemini' as never)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringContaining("'openai-responses', 'mcp'") }),
    )
  })

  it('definitions() are ready to send for anthropic and openai', () => {
    registry = new ToolRegistry()
    registry.register(gitTool())
    const [anthropic] = registry.definitions('anthropic') as Array<{ name: string; description: string; input_schema: { type: string; oneOf?: unknown } }>
    expect(anthropic.name).toBe('git')
    expect(anthropic.input_schema.type).toBe('object')
    expect(anthropic.input_schema.oneOf).toBeUndefined()
    expect(anthropic.description).toMatch(/spawn/)
    const [openai] = registry.definitions('openai') as Array<{ type: string; function: { name: string; parameters: { type: string } } }>
    expect(openai.type).toBe('function')
    expect(openai.function.name).toBe('git')
    expect(openai.function.parameters.type).toBe('object')
    // A call shaped for the flat schema (OpenAI strict mode sends nulls) is accepted the same.
    expectValid(registry, 'git', { action: 'fetch', id: 'h1' })
    expect(() => registry.definitions('gemini' as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
  })

  it('register() rejects bad specs with ERR_INVALID_ARG naming the field', () => {
    registry = new ToolRegistry()
    expect(() => registry.register({ name: 'bad name', commands: [] } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG' }),
    )
    expect(() =>
      registry.register({ name: 't', commands: [{ name: 'a', program: [] }] }),
    ).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringContaining('program') }))
    expect(() =>
      registry.register({
        name: 't',
        commands: [
          { name: 'a', program: ['true'] },
          { name: 'a', program: ['false'] },
        ],
      }),
    ).toThrow(/unique/)
    registry.register(gitTool())
    expect(() => registry.register(gitTool())).toThrow(/already registered/)
    expect(registry.names()).toEqual(['git'])
    expect(registry.unregister('git')).toBe(true)
    expect(registry.unregister('git')).toBe(false)
    expect(registry.names()).toEqual([])
  })
})

describe('the git tool', () => {
  it('stages exactly the chosen hunk: spawn stage, apply y, apply n', async () => {
    const { dir, git } = repoWithTwoHunks()
    process.env.HOME = dir
    registry = new ToolRegistry({ cwd: dir })
    registry.register(gitTool())
    const spawned = await registry.call('git', { action: 'spawn', command: 'stage' })
    const first = running(spawned)
    expect(first).toContain('line 2, first change')
    expect(first).toMatch(/Stage this hunk \[y,n,q,a,d/)
    const afterYes = await registry.call('git', { action: 'apply', id: spawned.id, input: 'y<enter>' })
    expect(running(afterYes)).toContain('line 28, second change')
    const afterNo = await registry.call('git', { action: 'apply', id: spawned.id, input: 'n<enter>' })
    expect(stopped(afterNo).ok).toBe(true)
    const cached = git('diff', '--cached')
    expect(cached).toContain('+line 2, first change')
    expect(cached).not.toContain('line 28, second change')
    expect(git('diff')).toContain('+line 28, second change')
  })

  it('rewords a commit through the editor in the PTY (interactive rebase)', async () => {
    const { dir, git } = repoWithTwoHunks()
    process.env.HOME = dir
    git('commit', '-qam', 'second commit')
    const tool = gitTool()
    const withEditor: InteractiveTool = {
      ...tool,
      commands: tool.commands.map((c) => ({ ...c, env: { GIT_EDITOR: 'vim -u NONE -N -n' } })),
    }
    registry = new ToolRegistry({ cwd: dir })
    registry.register(withEditor)
    const spawned = await registry.call('git', { action: 'spawn', command: 'rebase', args: ['HEAD~1'] })
    expect(running(spawned)).toMatch(/^pick [0-9a-f]+ second commit/m)
    // Change "pick" to "reword" and save: git opens the message next.
    const todo = await registry.call('git', { action: 'apply', id: spawned.id, input: 'cwreword<esc>:wq<enter>' })
    expect(running(todo)).toContain('second commit')
    // Replace the message and save.
    const done = await registry.call('git', {
      action: 'apply',
      id: spawned.id,
      input: 'ggcwreworded<esc>:wq<enter>',
    })
    const final = done.state === 'running' ? await registry.wait(spawned.id, { timeoutMs: 10000 }) : done
    expect(stopped(final).ok).toBe(true)
    expect(git('log', '-1', '--format=%s').trim()).toBe('reworded commit')
  })

  it('log returns the log as content with ok: true', async () => {
    const { dir, git } = repoWithTwoHunks()
    git('commit', '-qam', 'second commit')
    registry = new ToolRegistry({ cwd: dir })
    registry.register(gitTool())
    const state = await registry.call('git', { action: 'spawn', command: 'log' })
    const result = stopped(state)
    expect(result.ok).toBe(true)
    if (!result.ok) return
    const lines = result.content.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^[0-9a-f]{7,} second commit$/)
    expect(lines[1]).toMatch(/^[0-9a-f]{7,} first commit$/)
  })
})

describe('a Python REPL tool', () => {
  const python: InteractiveTool = {
    name: 'python',
    description: 'A Python REPL',
    commands: [{ name: 'repl', program: ['python3', '-q'], env: { PYTHONSTARTUP: '' } }],
  }

  it('evaluates expressions and stops ok on ctrl+d', async () => {
    registry = new ToolRegistry()
    registry.register(python)
    const spawned = await registry.call('python', { action: 'spawn', command: 'repl' })
    expect(running(spawned)).toContain('>>>')
    const two = await registry.call('python', { action: 'apply', id: spawned.id, input: '1+1<enter>' })
    expect(running(two).split('\n')).toContain('2')
    const slow = await registry.call('python', {
      action: 'apply',
      id: spawned.id,
      input: 'import time; time.sleep(0.4); print("late answer")<enter>',
    })
    // The answer came after the echo: the tool waited for it, not just for the echo.
    expect(running(slow)).toContain('late answer')
    const fetched = await registry.call('python', { action: 'fetch', id: spawned.id })
    expect(running(fetched)).toContain('late answer')
    const end = await registry.call('python', { action: 'apply', id: spawned.id, input: '<ctrl+d>' })
    expect(stopped(end).ok).toBe(true)
  })
})

describe('waits: why a call returned, and what the program waits for', () => {
  const sh: InteractiveTool = {
    name: 'sh',
    commands: [{ name: 'run', program: ['sh', '-c'], acceptsInput: true, settleMs: 3000 }],
  }

  it('git add -p: each prompt ends the wait at once (input, line), the last answer ends it at the exit', async () => {
    const { dir } = repoWithTwoHunks()
    process.env.HOME = dir
    registry = new ToolRegistry({ cwd: dir })
    registry.register(gitTool())
    const spawned = await registry.call('git', { action: 'spawn', command: 'stage' })
    expect(spawned).toMatchObject({ state: 'running', inputKind: 'line', reason: 'input' })
    const yes = await registry.call('git', { action: 'apply', id: spawned.id, input: 'y<enter>' })
    expect(yes).toMatchObject({ state: 'running', inputKind: 'line', reason: 'input' })
    expect(running(yes)).toContain('line 28, second change')
    const no = await registry.call('git', { action: 'apply', id: spawned.id, input: 'n<enter>' })
    expect(no).toMatchObject({ state: 'stopped', reason: 'exit', result: { ok: true } })
  })

  it('a password prompt is input of kind password; a long settleMs does not hold a call once the program waits', async () => {
    registry = new ToolRegistry()
    registry.register(sh)
    const prompt = await registry.respond('sh', { action: 'spawn', command: 'run', args: ['printf "Password: "; stty -echo; read p; stty echo; echo; echo "${#p} characters"; read q'] })
    expect(prompt.state).toMatchObject({ state: 'running', inputKind: 'password', reason: 'input' })
    expect(prompt.text).toBe('[h1 waiting for input (password)]\n[full view 1, 80x24, cursor 0,10]\nPassword:')
    // settleMs is 3000: the answer comes back because the program waits again, not after a quiet period.
    const answered = await registry.call('sh', { action: 'apply', id: 'h1', input: 'hunter2<enter>' })
    expect(answered).toMatchObject({ state: 'running', inputKind: 'line', reason: 'input' })
    expect(running(answered)).toBe('Password:\n7 characters')
  })

  it('a program that prints and works on without reading its terminal: quiet, running; wait() past its cap: timeout', async () => {
    registry = new ToolRegistry()
    registry.register({ name: 'sh', commands: [{ name: 'run', program: ['sh', '-c'], settleMs: 200 }] })
    const busy = await registry.call('sh', { action: 'spawn', command: 'run', args: ['echo working; sleep 30'] })
    expect(busy).toMatchObject({ state: 'running', inputKind: null, reason: 'quiet', content: 'working' })
    const waited = await registry.wait(busy.id, { timeoutMs: 300 })
    expect(waited).toMatchObject({ state: 'running', inputKind: null, reason: 'timeout' })
    const done = await registry.call('sh', { action: 'spawn', command: 'run', args: ['echo done'] })
    expect(done).toMatchObject({ state: 'stopped', reason: 'exit', result: { ok: true, content: 'done' } })
    const aborted = await registry.call('sh', { action: 'abort', id: busy.id })
    expect(aborted).toMatchObject({ state: 'stopped', reason: 'exit' })
  })
})

describe('errors', () => {
  it('unknown tool, unknown id, no-input apply, apply after stop and malformed input are coded errors', async () => {
    const { dir } = repoWithTwoHunks()
    registry = new ToolRegistry({ cwd: dir })
    registry.register(gitTool())
    registry.register({ name: 'echo', commands: [{ name: 'say', program: ['cat'], pty: true }] })
    await expect(registry.call('nope', { action: 'fetch', id: 'h1' })).rejects.toMatchObject({ code: 'ERR_UNKNOWN_TOOL' })
    await expect(registry.call('git', { action: 'fetch', id: 'h99' })).rejects.toMatchObject({ code: 'ERR_UNKNOWN_HANDLE' })
    await expect(registry.call('git', { action: 'launch' })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      message: expect.stringContaining('action'),
    })
    await expect(registry.call('git', { action: 'spawn', command: 'push' })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
      message: expect.stringContaining('command'),
    })
    await expect(registry.call('git', { action: 'apply', id: 'h1' })).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT' })
    await expect(registry.call('git', 'not json')).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT' })

    // A pipes command that is still running does not take input.
    registry.register({ name: 'slow', commands: [{ name: 'wait', program: ['sleep', '5'], pty: false }] })
    const slow = await registry.call('slow', { action: 'spawn', command: 'wait' })
    expect(slow.state).toBe('running')
    await expect(registry.call('slow', { action: 'apply', id: slow.id, input: 'x' })).rejects.toMatchObject({
      code: 'ERR_INVALID_INPUT',
    })
    await registry.call('slow', { action: 'abort', id: slow.id })

    // Apply after the program stopped.
    const cat = await registry.call('echo', { action: 'spawn', command: 'say' })
    await registry.call('echo', { action: 'apply', id: cat.id, input: '<ctrl+d>' })
    await expect(registry.call('echo', { action: 'apply', id: cat.id, input: 'hello<enter>' })).rejects.toMatchObject({
      code: expect.stringMatching(/ERR_INVALID_INPUT|ERR_UNKNOWN_HANDLE/),
    })

    // The registry still works.
    const log = await registry.call('git', { action: 'spawn', command: 'log' })
    expect(stopped(log).ok).toBe(true)
  })

  it('a program that cannot start is a stopped state with the spawn error', async () => {
    registry = new ToolRegistry()
    registry.register({ name: 'ghost', commands: [{ name: 'run', program: ['no-such-program-ptypilot'] }] })
    const state = await registry.call('ghost', { action: 'spawn', command: 'run' })
    const result = stopped(state)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.message).toContain('ENOENT')
    expect(result.error.message).toContain('no-such-program-ptypilot')
  })

  it('maxHandles limits running handles with ERR_LIMIT', async () => {
    registry = new ToolRegistry({ maxHandles: 2 })
    registry.register({ name: 'sleeper', commands: [{ name: 'sleep', program: ['sleep', '30'], pty: false }] })
    const a = await registry.call('sleeper', { action: 'spawn', command: 'sleep' })
    await registry.call('sleeper', { action: 'spawn', command: 'sleep' })
    await expect(registry.call('sleeper', { action: 'spawn', command: 'sleep' })).rejects.toMatchObject({ code: 'ERR_LIMIT' })
    await registry.call('sleeper', { action: 'abort', id: a.id })
    const c = await registry.call('sleeper', { action: 'spawn', command: 'sleep' })
    expect(c.state).toBe('running')
  })
})

describe('respond()', () => {
  const sh: InteractiveTool = {
    name: 'sh',
    commands: [
      { name: 'run', program: ['sh', '-c'], acceptsInput: true },
      { name: 'pipe', program: ['sh', '-c'], pty: false },
    ],
  }

  it('answers every model mistake with text saying what to do next, never a rejection', async () => {
    registry = new ToolRegistry()
    registry.register(sh)
    const unknownTool = await registry.respond('bash', { action: 'spawn', command: 'run' })
    expect(unknownTool).toEqual({ isError: true, text: expect.stringMatching(/^Error: no tool named "bash" is registered \(registered: sh\)/) })

    const badField = await registry.respond('sh', { action: 'spawn', command: 'go' })
    expect(badField.isError).toBe(true)
    expect(badField.text).toContain('input.command must be one of "run", "pipe", got "go"')
    // The valid calls follow, one per action, with the commands.
    expect(badField.text).toContain('{ "action": "spawn", "command": "run" | "pipe", "args"?: ["…"] }')
    expect(badField.text).toContain('{ "action": "apply", "id": "<handle id>", "input": "<text, keys like <enter>>" }')
    expect(badField.state).toBeUndefined()

    const notJson = await registry.respond('sh', '{"action": "spawn"')
    expect(notJson).toMatchObject({ isError: true, text: expect.stringContaining('input is a string but not JSON') })

    const live = await registry.respond('sh', { action: 'spawn', command: 'pipe', args: ['echo started; sleep 30'] })
    expect(live.isError).toBe(false)
    expect(live.state).toMatchObject({ id: 'h1', state: 'running' })
    expect(live.text).toBe('[h1 running]\nstarted')

    const unknownHandle = await registry.respond('sh', { action: 'fetch', id: 'h7' })
    expect(unknownHandle.isError).toBe(true)
    expect(unknownHandle.text).toContain('no handle "h7" (live handles: h1)')
    expect(unknownHandle.text).toContain('Use a live handle, or spawn the command again')

    const noInput = await registry.respond('sh', { action: 'apply', id: 'h1', input: 'x<enter>' })
    expect(noInput.isError).toBe(true)
    expect(noInput.text).toMatch(/^Error: command "pipe" does not accept input; use fetch to read handle h1, or abort to stop it\.$/)

    const aborted = await registry.respond('sh', { action: 'abort', id: 'h1' })
    expect(aborted).toMatchObject({ isError: false, text: '[h1 finished; the handle is closed]\nstarted' })
  })

  it('tells the model the running screen, the final content and a failure', async () => {
    registry = new ToolRegistry()
    registry.register(sh)
    const prompt = await registry.respond('sh', { action: 'spawn', command: 'run', args: ['printf "name? "; read n; echo "hi $n"; exit 3'] })
    expect(prompt.text).toBe('[h1 waiting for input (line)]\n[full view 1, 80x24, cursor 0,6]\nname?')
    const failed = await registry.respond('sh', { action: 'apply', id: 'h1', input: 'bob<enter>' })
    expect(failed.isError).toBe(true)
    expect(failed.state).toMatchObject({ state: 'stopped', result: { ok: false } })
    expect(failed.text.split('\n')[0]).toBe('[h1 failed: Process exited with code 3; the handle is closed]')
    expect(failed.text).toContain('hi bob')
    const ok = await registry.respond('sh', { action: 'spawn', command: 'pipe', args: ['echo done'] })
    expect(ok).toMatchObject({ isError: false, text: '[h2 finished; the handle is closed]\ndone' })
    // The handle is forgotten once the model saw it stop.
    expect((await registry.respond('sh', { action: 'fetch', id: 'h2' })).isError).toBe(true)
  })

  it('too many handles is a reply that lists them', async () => {
    registry = new ToolRegistry({ maxHandles: 1 })
    registry.register(sh)
    await registry.respond('sh', { action: 'spawn', command: 'pipe', args: ['sleep 30'] })
    const full = await registry.respond('sh', { action: 'spawn', command: 'pipe', args: ['sleep 30'] })
    expect(full.isError).toBe(true)
    expect(full.text).toContain('too many running handles')
    expect(full.text).toContain('Live handles: h1 (sh pipe sleep 30, running); abort one you no longer need.')
  })

  it("rejects only for the caller's bugs: no tool registered, a name that is not a string", async () => {
    registry = new ToolRegistry()
    await expect(registry.respond('git', { action: 'spawn', command: 'log' })).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_TOOL',
      message: expect.stringContaining('without any tool'),
    })
    registry.register(sh)
    await expect(registry.respond(42 as never, {})).rejects.toMatchObject({ code: 'ERR_INVALID_ARG' })
  })
})

describe('exit states', () => {
  it('a non-zero exit is ok: false with the code, and stderr in trace for pipes', async () => {
    registry = new ToolRegistry()
    registry.register({
      name: 'fail',
      commands: [{ name: 'run', program: ['sh', '-c', 'echo partial; echo "something broke" >&2; exit 3'], pty: false }],
    })
    const result = stopped(await registry.call('fail', { action: 'spawn', command: 'run' }))
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.message).toBe('Process exited with code 3')
    expect(result.error.trace).toContain('something broke')
    expect(result.error.transient).toBe(false)
  })

  it('a timeout is state timeout and the program is gone', async () => {
    const events: ToolEvent[] = []
    registry = new ToolRegistry({ onEvent: (e) => events.push(e) })
    registry.register({ name: 'slow', commands: [{ name: 'run', program: ['sleep', '100'], timeoutMs: 300 }] })
    // The spawn waits for a reaction; the timeout comes first, so it returns stopped.
    const spawned = await registry.call('slow', { action: 'spawn', command: 'run' })
    const result = stopped(spawned)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.message).toMatch(/timed out after 300 ms/)
    expect(result.error.transient).toBe(true)
    await vi.waitFor(() => expect(events.map((e) => e.type)).toContain('finished'))
    const finished = events.find((e) => e.type === 'finished')!
    if (finished.type !== 'finished') return
    expect(finished.state).toBe('timeout')
    expect(Process.fromPid(finished.pid!)).toBeNull()
  })

  it('abort stops the whole tree and returns the last screen', async () => {
    registry = new ToolRegistry()
    registry.register({
      name: 'server',
      commands: [{ name: 'run', program: ['sh', '-c', 'sleep 300 & echo "serving, child $!"; wait'] }],
    })
    const spawned = await registry.call('server', { action: 'spawn', command: 'run' })
    const screen = running(spawned)
    const child = Number(/child (\d+)/.exec(screen)![1])
    const shell = registry.list()[0].pid!
    const aborted = await registry.call('server', { action: 'abort', id: spawned.id })
    const result = stopped(aborted)
    expect(result.ok).toBe(true)
    if (result.ok) expect(result.content).toContain('serving')
    // The shell was our child and is reaped; its child (init's now) is not running.
    expect(Process.fromPid(shell)).toBeNull()
    // Once the shell died its child belongs to init; it has exited (a zombie
    // there is init's to reap).
    expect(Process.fromPid(child)?.status() ?? 'exited').toBe('exited')
    // Forgotten once the stopped state was returned.
    expect(registry.list()).toEqual([])
    await expect(registry.call('server', { action: 'fetch', id: spawned.id })).rejects.toMatchObject({ code: 'ERR_UNKNOWN_HANDLE' })
  })

  it('abortAll stops every running handle', async () => {
    registry = new ToolRegistry()
    registry.register({ name: 'sleeper', commands: [{ name: 'sleep', program: ['sleep', '30'] }] })
    await registry.call('sleeper', { action: 'spawn', command: 'sleep' })
    await registry.call('sleeper', { action: 'spawn', command: 'sleep' })
    const pids = registry.list().map((h) => h.pid!)
    await registry.abortAll()
    expect(registry.list().every((h) => h.state === 'aborted')).toBe(true)
    for (const pid of pids) expect(Process.fromPid(pid)).toBeNull()
  })
})

describe('events', () => {
  it('arrive in order started, output..., finished for each handle', async () => {
    const events: ToolEvent[] = []
    registry = new ToolRegistry({ onEvent: (e) => events.push(e) })
    registry.register({
      name: 'talk',
      commands: [
        { name: 'count', program: ['sh', '-c', 'for i in 1 2 3; do echo "tick $i"; sleep 0.05; done'] },
        { name: 'quick', program: ['echo', 'quick'], pty: false },
      ],
    })
    const a = await registry.call('talk', { action: 'spawn', command: 'count' })
    const b = await registry.call('talk', { action: 'spawn', command: 'quick' })
    // Handles that already stopped were returned as such and are forgotten.
    if (a.state === 'running') await registry.wait(a.id)
    if (b.state === 'running') await registry.wait(b.id)
    await vi.waitFor(() => expect(events.filter((e) => e.type === 'finished')).toHaveLength(2))
    for (const id of [a.id, b.id]) {
      const mine = events.filter((e) => e.id === id)
      expect(mine[0].type).toBe('started')
      expect(mine.at(-1)!.type).toBe('finished')
      expect(mine.slice(1, -1).every((e) => e.type === 'output')).toBe(true)
      const output = mine
        .filter((e) => e.type === 'output')
        .map((e) => (e.type === 'output' ? e.chunk : ''))
        .join('')
      expect(output).toContain(id === a.id ? 'tick 3' : 'quick')
      const finished = mine.at(-1)!
      if (finished.type === 'finished') {
        expect(finished.state).toBe('success')
        expect(finished.exitCode).toBe(0)
        expect(finished.durationMs).toBeGreaterThanOrEqual(0)
      }
    }
  })
})
