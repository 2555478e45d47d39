// An agent loop as an agent author writes it with ptypilot: the typed
// definitions go to the model, every tool_use goes to registry.respond(), and
// the reply text goes back as the tool_result — no try/catch, no formatting.
// The model is scripted: a fixed list of tool calls (some of them wrong, as
// models make them) whose fields it takes from the replies it read, the way a
// model reads a handle id or a cursor. It stages a hunk with git add -p, uses
// a Python REPL, follows a command that outlived its timeout, gets an output
// spilled to a file, and stops a process tree with a setsid grandchild.
import { describe, it, expect, afterEach, vi } from 'vitest'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type Anthropic from '@anthropic-ai/sdk'
import { Process, ToolRegistry, gitTool, terminalTools, type ModelReply, type ToolEvent } from '../index.js'
import { alive, repoWithTwoHunks } from './helpers'

type MessageParam = Anthropic.Messages.MessageParam
type ToolUseBlock = Anthropic.Messages.ToolUseBlock

/** One scripted turn: the call (from the last reply's text) and what the model must have been told. */
interface Step {
  /** The tool call, given the text of the previous reply. */
  call: (last: string) => { name: string; input: unknown }
  /** What the reply must say. */
  expect: { isError: boolean; text: RegExp | string }
  /** Repeat this step (reading its own reply) until `until` matches the reply. */
  until?: RegExp
}

/** A model that plays back a script against the tools it was given. */
class ScriptedModel {
  #steps: Step[]
  #at = 0
  #repeats = 0
  #last = ''
  /** Every reply the model read, with the call that produced it. */
  readonly transcript: Array<{ name: string; input: unknown; reply: string; isError: boolean }> = []

  constructor(steps: Step[]) {
    this.#steps = steps
  }

  /** The model's next message: one tool_use, or null when the script is done. */
  next(tools: Anthropic.Messages.Tool[], messages: MessageParam[]): ToolUseBlock | null {
    const previous = messages[messages.length - 1]
    if (previous.role === 'user' && Array.isArray(previous.content)) {
      const [result] = previous.content
      if (result.type === 'tool_result') this.#read(result)
    }
    if (this.#at >= this.#steps.length) return null
    const { name, input } = this.#steps[this.#at].call(this.#last)
    // A model calls the tools it was given (and, now and then, one it imagines).
    if (!tools.some((t) => t.name === name) && name !== 'shell') throw new Error(`script calls ${name}, not in the definitions`)
    return { type: 'tool_use', id: `toolu_${messages.length}`, name, input, caller: { type: 'direct' } } as ToolUseBlock
  }

  #read(result: Anthropic.Messages.ToolResultBlockParam) {
    const text = typeof result.content === 'string' ? result.content : ''
    const step = this.#steps[this.#at]
    const { name, input } = step.call(this.#last)
    this.transcript.push({ name, input, reply: text, isError: result.is_error === true })
    expect(result.is_error ?? false, `${name} ${JSON.stringify(input)} → ${text}`).toBe(step.expect.isError)
    if (typeof step.expect.text === 'string') expect(text).toContain(step.expect.text)
    else expect(text).toMatch(step.expect.text)
    this.#last = text
    if (step.until !== undefined && !step.until.test(text)) {
      if (++this.#repeats > 50) throw new Error(`step ${this.#at} never reached ${step.until}`)
      return
    }
    this.#repeats = 0
    this.#at++
  }
}

/** The agent loop: definitions to the model, tool_use to respond(), reply text back. */
async function agentLoop(registry: ToolRegistry, model: ScriptedModel, task: string): Promise<MessageParam[]> {
  const tools: Anthropic.Messages.Tool[] = registry.definitions('anthropic')
  const messages: MessageParam[] = [{ role: 'user', content: task }]
  for (;;) {
    const toolUse = model.next(tools, messages)
    if (toolUse === null) return messages
    messages.push({ role: 'assistant', content: [toolUse] })
    const reply: ModelReply = await registry.respond(toolUse.name, toolUse.input)
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: reply.text, is_error: reply.isError }],
    })
  }
}

/** `name=<number>` in `text`. */
function numberAfter(text: string, name: string): number {
  const m = new RegExp(`${name}=(\\d+)`).exec(text)
  if (m === null) throw new Error(`no ${name}= in ${text}`)
  return Number(m[1])
}

/** The cursor at the end of a reply (`[cursor: N]`) or in a suggested call (`"since":N`). */
function cursorIn(text: string): number {
  const m = /\[cursor: (\d+)\]\s*$/.exec(text) ?? /"since":(\d+)/.exec(text)
  if (m === null) throw new Error(`no cursor in ${text}`)
  return Number(m[1])
}


let registry: ToolRegistry | undefined
afterEach(async () => {
  await registry?.abortAll()
  registry = undefined
})

describe('an agent loop over respond() and the typed definitions', () => {
  it('drives git, a REPL, a long command, a spill and a process tree through a scripted model', async () => {
    const { dir, git } = repoWithTwoHunks('ptypilot-agent-')
    const spillDir = mkdtempSync(join(tmpdir(), 'ptypilot-spill-'))
    const events: ToolEvent[] = []
    registry = new ToolRegistry({ cwd: dir, onEvent: (e) => events.push(e) })
    registry.register(gitTool())
    registry.register({
      name: 'server',
      description: 'A development server.',
      commands: [
        { name: 'serve', program: ['sh', '-c', 'echo listening; exec sleep 60'], pty: false, acceptsInput: false },
        { name: 'console', program: ['sh'], acceptsInput: true },
      ],
    })
    registry.register(terminalTools({ spillDir }))
    let tree = { parent: 0, grandchild: 0 }

    const model = new ScriptedModel([
      // --- git add -p: stage the first hunk, skip the second, with mistakes on the way.
      { call: () => ({ name: 'git', input: { action: 'spawn', command: 'stage', path: 'notes.txt' } }),
        expect: { isError: true, text: /^Error: input\.path is not allowed[\s\S]*Valid calls of git:\n\{ "action": "spawn", "command": "stage" \| "rebase" \| "log"/ } },
      { call: () => ({ name: 'git', input: { action: 'spawn', command: 'stage' } }),
        expect: { isError: false, text: /^\[h1 waiting for input \(line\)\]\n[\s\S]*line 2, first change[\s\S]*Stage this hunk/ } },
      { call: () => ({ name: 'git', input: { action: 'apply', id: 'h7', input: 'y<enter>' } }),
        expect: { isError: true, text: 'no handle "h7" (live handles: h1)' } },
      { call: () => ({ name: 'git', input: { action: 'apply', id: 'h1', input: 'y<enter>' } }),
        expect: { isError: false, text: /^\[h1 waiting for input \(line\)\][\s\S]*line 28, second change[\s\S]*Stage this hunk/ } },
      { call: () => ({ name: 'git', input: { action: 'apply', id: 'h1', input: 'n<enter>' } }),
        expect: { isError: false, text: /^\[h1 finished; the handle is closed\]/ } },
      { call: () => ({ name: 'shell', input: { command: 'git status' } }),
        expect: { isError: true, text: /^Error: no tool named "shell" is registered \(registered: git, pty_exec, .*server\)/ } },
      // --- input to a command that takes none.
      { call: () => ({ name: 'server', input: { action: 'spawn', command: 'serve' } }),
        expect: { isError: false, text: '[h2 running]\nlistening' } },
      { call: () => ({ name: 'server', input: { action: 'apply', id: 'h2', input: 'q<enter>' } }),
        expect: { isError: true, text: 'command "serve" does not accept input; use fetch to read handle h2, or abort to stop it' } },
      { call: () => ({ name: 'server', input: { action: 'abort', id: 'h2' } }),
        expect: { isError: false, text: '[h2 finished; the handle is closed]' } },
      // --- a Python REPL in a terminal session.
      { call: () => ({ name: 'pty_start', input: { command: 'python3', args: ['-q'], title: 'repl' } }),
        expect: { isError: false, text: /^Started session pty1: python3 -q \("repl"\), pid \d+\./ } },
      { call: () => ({ name: 'pty_read', input: { id: 'pty1', wait_ms: 5000 } }),
        expect: { isError: false, text: /^>>>\s*\n\[session pty1: waiting for input \(key\)\] \[cursor: \d+\]$/ } },
      { call: () => ({ name: 'pty_send', input: { id: 'pty1', input: 'x = 6 * 7<enter>' } }),
        expect: { isError: false, text: /^Sent 10 bytes to pty1\./ } },
      { call: () => ({ name: 'pty_send', input: { id: 'pty1', input: 'print(x + 0.5)<enter>', typed: true } }),
        expect: { isError: true, text: 'input.typed is not a field of pty_send (fields: id, input, wait_ms, max_chars). pty_send takes { id, input, wait_ms?, max_chars? }.' } },
      { call: () => ({ name: 'pty_send', input: { id: 'pty1', input: 'print(x + 0.5)<enter>' } }),
        expect: { isError: false, text: /Read the answer with pty_read \{"id":"pty1","since":\d+,"wait_ms":1000\}/ } },
      { call: (last) => ({ name: 'pty_read', input: { id: 'pty1', since: cursorIn(last), wait_ms: 5000 } }),
        expect: { isError: false, text: /print\(x \+ 0\.5\)\n42\.5\n>>>\s*\n\[session pty1: waiting for input \(key\)\]/ } },
      { call: () => ({ name: 'pty_send', input: { id: 'pty1', input: '<ctrl+d>' } }),
        expect: { isError: false, text: 'Sent 1 byte to pty1.' } },
      { call: (last) => ({ name: 'pty_read', input: { id: 'pty1', since: cursorIn(last), wait_ms: 2000 } }),
        expect: { isError: false, text: /\[session pty1: (running|waiting for input \(key\)|exited 0)\]/ }, until: /exited 0/ },
      { call: () => ({ name: 'pty_send', input: { id: 'pty1', input: 'print(1)<enter>' } }),
        expect: { isError: true, text: 'session pty1 has exited (exited with code 0); the input was not sent' } },
      // --- a command that outlives its timeout, followed until it exits.
      { call: () => ({ name: 'pty_exec', input: { command: 'sh', args: ['-c', 'echo begin; sleep 1; echo middle; sleep 1; echo end; exit 3'], timeout_ms: 300 } }),
        expect: { isError: false, text: /^begin\n\[not finished after 300 ms: it keeps running as session pty2; follow it with pty_read \{"id":"pty2","since":\d+,"wait_ms":2000\}/ } },
      { call: (last) => ({ name: 'pty_read', input: { id: 'pty2', since: cursorIn(last), wait_ms: 2000 } }),
        expect: { isError: false, text: /\[session pty2: (running|exited 3)\]/ }, until: /exited 3/ },
      // --- output too long to inline.
      { call: () => ({ name: 'pty_exec', input: { command: 'seq', args: ['1', '5000'] } }),
        expect: { isError: false, text: /^\[output: 5000 lines, 23893 bytes — too long to show; written in full to .*\]\n1\n2\n[\s\S]*\n50\n\[… 4800 lines omitted; [\s\S]*\n4851\n[\s\S]*\n5000\n\[exited 0 after \d+(\.\d)? m?s\]$/ } },
      // --- a process tree with a grandchild in its own session, stopped whole.
      { call: () => ({ name: 'pty_start', input: { command: 'sh', args: ['-c', 'setsid sh -c "echo GC=\\$\\$; exec sleep 1000" & echo P=$$; wait'] } }),
        expect: { isError: false, text: /^Started session pty4: sh -c/ } },
      { call: () => ({ name: 'pty_read', input: { id: 'pty4', wait_ms: 1000 } }),
        expect: { isError: false, text: /\[session pty4: running\]/ }, until: /GC=\d+[\s\S]*P=\d+|P=\d+[\s\S]*GC=\d+/ },
      { call: (last) => {
          tree = { parent: numberAfter(last, 'P'), grandchild: numberAfter(last, 'GC') }
          // The grandchild runs, in a session of its own: no hangup of the terminal reaches it.
          expect(alive(tree.grandchild)).toBe(true)
          expect(Process.fromPid(tree.grandchild)!.groupId()).not.toBe(Process.fromPid(tree.parent)!.groupId())
          return { name: 'pty_list', input: {} }
        },
        // pty1 and pty2 are gone: the reads that reported their exits removed them.
        expect: { isError: false, text: /^pty4: running; sh -c [^\n]*$/ } },
      { call: () => ({ name: 'pty_stop', input: { id: 'pty4' } }),
        expect: { isError: false, text: /^Stopped session pty4 \(killed by SIG(TERM|KILL)\); its processes are gone/ } },
      { call: () => ({ name: 'pty_read', input: { id: 'pty4' } }),
        expect: { isError: true, text: /^Error: no terminal session "pty4" any more: pty4 \(sh -c setsid [^\n]*\) killed by SIG(TERM|KILL) and was removed \(pty_stop removed it\)\. pty_list shows the sessions/ } },
    ])

    const messages = await agentLoop(registry, model, 'Stage the first hunk only, then try Python, the tests and the logs.')
    expect(model.transcript.length).toBeGreaterThanOrEqual(26)
    expect(messages.length).toBe(1 + 2 * model.transcript.length)

    // git staged exactly the first hunk.
    const staged = git('diff', '--cached')
    expect(staged).toContain('+line 2, first change')
    expect(staged).not.toContain('line 28, second change')
    expect(git('diff')).toContain('+line 28, second change')

    // The long command was followed to its end: every line, in order, once.
    const followed = model.transcript.filter((t) => t.name === 'pty_read' && (t.input as { id: string }).id === 'pty2')
    const output = followed.map((t) => t.reply.replace(/\n?\[session [^\n]*$/, '')).join('\n')
    expect(output.match(/middle|end/g)).toEqual(['middle', 'end'])

    // The spilled file holds the whole output.
    const spill = model.transcript.find((t) => t.name === 'pty_exec' && t.reply.startsWith('[output:'))!
    const file = /written in full to (\S+);/.exec(spill.reply)![1]
    expect(file.startsWith(spillDir)).toBe(true)
    const lines = readFileSync(file, 'utf8').split('\n')
    expect(lines.length).toBe(5001)
    expect(lines[4999]).toBe('5000')

    // Nothing of the stopped tree is left, the setsid grandchild included.
    expect(tree.parent).toBeGreaterThan(0)
    const grandchild = Process.fromPid(tree.grandchild)
    // The kill is done when pty_stop answers; a zombie may wait a moment for its reaper (init).
    await vi.waitFor(() => expect([alive(tree.parent), alive(tree.grandchild)]).toEqual([false, false]), { timeout: 2000 })
    if (grandchild !== null) expect(grandchild.status()).toBe('exited')
    // Sessions were registry handles: in the events, each started once and finished once.
    const sessions = events.filter((e) => e.type === 'started' && e.id.startsWith('pty')).map((e) => e.id)
    expect(sessions).toEqual(['pty1', 'pty2', 'pty3', 'pty4'])
    const finished = events.filter((e) => e.type === 'finished' && e.id.startsWith('pty'))
    expect(finished.map((e) => e.id).sort()).toEqual(['pty1', 'pty2', 'pty3', 'pty4'])
    expect(finished.find((e) => e.id === 'pty4')).toMatchObject({ state: 'aborted' })
    // Every program any session ran has exited.
    for (const e of events) {
      if (e.type === 'started' && e.pid !== null) expect(alive(e.pid), `${e.id} pid ${e.pid}`).toBe(false)
    }
    // Every session's exit was read, or it was stopped: none is left.
    expect(registry.list()).toEqual([])
  })
})
