// `ptypilot mcp` and the person beside the agent: the live panel's URL on
// stderr and as an MCP log message (`--web`, `--web=PORT`), and asking the
// person before calls (`--ask`): an MCP elicitation with a client that
// supports it (the SDK client), the allow and deny lists with one that does
// not.
import { describe, it, expect, afterEach } from 'vitest'
import { createServer } from 'node:net'
import { serveMcp, type ServeOptions, type Served } from './mcp-client'

const servers: Served[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function serve(args: string[], options: ServeOptions = {}) {
  const served = await serveMcp(args, options)
  servers.push(served)
  return served
}

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

const PANEL_LINE = /ptypilot mcp: live panel of the terminal sessions: (http:\/\/127\.0\.0\.1:(\d+)\/[A-Za-z0-9_-]{32}\/)/

describe('ptypilot mcp --web', () => {
  it('prints the panel’s URL to stderr and sends it as a log message; the page answers there', async () => {
    const s = await serve(['--web'])
    await expect.poll(() => s.stderr(), { timeout: 10_000 }).toMatch(PANEL_LINE)
    const url = PANEL_LINE.exec(s.stderr())![1]
    await expect.poll(() => s.logs, { timeout: 10_000 }).toEqual([`ptypilot mcp: live panel of the terminal sessions: ${url}`])
    const page = await fetch(url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<title>ptypilot — live terminals</title>')
    // The tools work as ever; the instructions mention the panel.
    expect(s.client.getInstructions()).toContain('take one over')
    expect((await s.call('pty_exec', { command: 'echo', args: ['hi'] })).text).toMatch(/^hi\n\[exited 0 after/)
  })

  it('--web=PORT listens there; PTYPILOT_MCP_WEB=0 turns it off', async () => {
    const port = await freePort()
    const s = await serve([`--web=${port}`])
    await expect.poll(() => s.stderr(), { timeout: 10_000 }).toMatch(PANEL_LINE)
    expect(Number(PANEL_LINE.exec(s.stderr())![2])).toBe(port)
    const off = await serve([], { env: { PTYPILOT_MCP_WEB: '0' } })
    expect((await off.call('pty_list', {})).text).toBe('No terminal sessions.')
    expect(off.stderr()).not.toContain('live panel')
    expect(off.logs).toEqual([])
  })
})

describe('ptypilot mcp --ask', () => {
  const flags = ['--ask', 'start,input', '--allow', 'echo', '--deny', 'rm']

  it('asks the person through an elicitation when the client supports it', async () => {
    const questions: string[] = []
    const s = await serve(flags, {
      elicit({ message }) {
        questions.push(message)
        if (message.includes('run: ls')) return { action: 'decline' }
        if (message.includes('"stop<enter>"')) return { action: 'cancel' }
        return { action: 'accept', content: { allow: true } }
      },
    })
    // On the allow list: runs without asking.
    expect((await s.call('pty_exec', { command: 'echo', args: ['listed'] })).text).toMatch(/^listed\n/)
    // Asked, and allowed.
    expect((await s.call('pty_exec', { command: 'printf', args: ['approved\\n'] })).text).toMatch(/^approved\n/)
    // Asked, and declined: the model hears so, nothing ran.
    expect(await s.call('pty_exec', { command: 'ls', args: ['-a'] })).toEqual({
      isError: true,
      text: 'Error: pty_exec of "ls -a" was denied: the person declined it; the call did not run.',
    })
    // On the deny list: refused without asking.
    expect(await s.call('pty_exec', { command: 'rm', args: ['-rf', 'x'] })).toEqual({
      isError: true,
      text: 'Error: pty_exec of "rm -rf x" was denied: "rm" is on the server\'s deny list; the call did not run.',
    })
    // Input is asked about, with what would be typed; a dismissed question is a denial.
    const started = await s.call('pty_start', { command: 'cat' })
    expect(started.text).toMatch(/^Started session pty3: cat/)
    expect((await s.call('pty_send', { id: 'pty3', input: 'stop<enter>' })).text).toBe(
      'Error: typing into pty3 (cat) was denied: the person dismissed the question; the call did not run.',
    )
    expect((await s.call('pty_send', { id: 'pty3', input: 'go<enter>' })).isError).toBe(false)
    // Stop is not in --ask: not asked.
    expect((await s.call('pty_stop', { id: 'pty3' })).isError).toBe(false)
    expect(questions).toEqual([
      'The agent wants to run: printf approved\\n. Allow it?',
      'The agent wants to run: ls -a. Allow it?',
      'The agent wants to run: cat. Allow it?',
      'The agent wants to type into pty3 (cat): "stop<enter>". Allow it?',
      'The agent wants to type into pty3 (cat): "go<enter>". Allow it?',
    ])
  })

  it('without elicitation the allow and deny lists decide: what is on neither is refused, and the reply says why', async () => {
    const s = await serve(flags)
    expect((await s.call('pty_exec', { command: 'echo', args: ['listed'] })).text).toMatch(/^listed\n/)
    expect(await s.call('pty_exec', { command: 'printf', args: ['x'] })).toEqual({
      isError: true,
      text:
        'Error: pty_exec of "printf x" was denied: it needs the person\'s approval, and this MCP client cannot ask (no elicitation support); ' +
        'the server\'s allow list (echo) does not have "printf"; the call did not run.',
    })
    expect((await s.call('pty_exec', { command: 'rm', args: ['x'] })).text).toBe(
      'Error: pty_exec of "rm x" was denied: "rm" is on the server\'s deny list; the call did not run.',
    )
  })

  it('refuses an unknown permission class on the command line', async () => {
    await expect(serve(['--ask', 'read'])).rejects.toThrow()
  })
})
