// The live panel of the terminal tools (the `web` option, lib/panel.js) seen
// from a page's side of its WebSocket: access (the token in the URL, the Host
// and Origin checks), the sessions listed live with their output, a person
// taking a session over — the model's input refused meanwhile, what the
// person types never in a reply, the model told how many characters they
// typed — a second page that stays read-only, and handing back (by the
// button, or by closing the page).
import { describe, it, expect, afterEach, vi } from 'vitest'
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { ToolRegistry, readRecording, terminalTools, type ToolEvent } from '../index.js'

let registry: ToolRegistry | undefined
const sockets: WebSocket[] = []
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate()
  await registry?.[Symbol.asyncDispose]()
  registry = undefined
})

/** A wait with room for a machine shared with other suites. */
const until = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 10_000 })

/** A registry with the terminal tools and their panel; resolves with the panel's URL. */
async function withPanel(options: Parameters<typeof terminalTools>[0] = {}, registryOptions = {}) {
  const events: ToolEvent[] = []
  registry = new ToolRegistry({ ...registryOptions, onEvent: (e: ToolEvent) => events.push(e) })
  registry.register(terminalTools({ web: true, ...options }))
  // The panel starts with the set: with an isolated host, once the host is up.
  await vi.waitFor(() => expect(events.some((e) => e.type === 'web')).toBe(true), { timeout: 15_000 })
  const web = events.find((e) => e.type === 'web') as { url: string }
  return { r: registry, url: web.url, events }
}

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

interface Page {
  ws: WebSocket
  name: string
  messages: any[]
  output: Map<string, string>
  send(message: object): void
  next(type: string, pred?: (m: any) => boolean): Promise<any>
}

/** Connects to the panel as a page does (its Origin); the first message is `hello`. */
function open(url: string, origin = new URL(url).origin): Promise<Page> {
  const ws = new WebSocket(new URL('ws', url).href.replace(/^http/, 'ws'), { origin })
  sockets.push(ws)
  const page: Page = {
    ws,
    name: '',
    messages: [],
    output: new Map(),
    send: (message) => ws.send(JSON.stringify(message)),
    async next(type, pred = () => true) {
      let found: any
      await vi.waitFor(() => {
        found = page.messages.find((m) => m.type === type && pred(m))
        expect(found).toBeDefined()
      }, { timeout: 10_000 })
      page.messages.splice(page.messages.indexOf(found), 1)
      return found
    },
  }
  ws.on('message', (data, binary) => {
    if (binary) {
      const bytes = data as Buffer
      const end = bytes.indexOf(10, 1)
      const id = bytes.subarray(1, end).toString()
      page.output.set(id, (page.output.get(id) ?? '') + bytes.subarray(end + 1).toString())
      return
    }
    page.messages.push(JSON.parse(String(data)))
  })
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused: ${res.statusCode}`)))
    ws.once('error', reject)
    ws.once('open', async () => {
      const hello = await page.next('hello')
      page.name = hello.page
      page.messages.unshift(hello)
      resolve(page)
    })
  })
}

describe('the live panel of the terminal tools', () => {
  it('is refused without the right token, Host or Origin; serves its page and xterm.js with them', async () => {
    const { url } = await withPanel()
    const { origin, pathname } = new URL(url)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/$/)
    const page = await get(url)
    expect(page.status).toBe(200)
    expect(page.body).toContain('<script type="module" src="app.js">')
    expect((await get(`${url}vendor/xterm.mjs`)).body).toContain('class')
    // A wrong or missing token: nothing, not even the page's files.
    expect((await get(`${origin}/`)).status).toBe(404)
    expect((await get(`${origin}/${'x'.repeat(32)}/`)).status).toBe(404)
    expect((await get(`${origin}${pathname.slice(0, -2)}/app.js`)).status).toBe(404)
    // Another Host (a DNS-rebound name): refused.
    expect((await get(url, { host: 'attacker.example:80' })).status).toBe(403)
    // The WebSocket: only from the panel's own page.
    await expect(open(url, 'http://attacker.example')).rejects.toThrow('refused: 403')
    await expect(open(`${origin}/${'x'.repeat(32)}/`)).rejects.toThrow('refused: 403')
    await expect(open(url, 'null')).rejects.toThrow('refused: 403')
    const ok = await open(url)
    expect(ok.messages[0]).toMatchObject({ type: 'hello', entries: [], canStart: false })
  })

  it('shows sessions live; a person takes one over, types a password the model never sees, and hands it back', async () => {
    const records = mkdtempSync(join(tmpdir(), 'ptypilot-panel-cast-'))
    const { r, url } = await withPanel({ recordDir: records })
    const watcher = await open(url)
    const script = 'read -s -p "Password: " pw; echo; if [ "$pw" = "hunter2-secret" ]; then echo "access granted"; else echo "access denied"; fi; read -p "next: " x; echo "got $x"'
    const s = await r.call('pty_start', { command: 'bash', args: ['--norc', '--noprofile', '-c', script] })
    // The page lists it at once and draws its output.
    const listed = await watcher.next('entry', (m) => m.entry.id === s.id)
    expect(listed.entry).toMatchObject({ id: 'pty1', kind: 'terminal', state: 'running', holder: null, canTake: true, cols: 120, rows: 30 })
    await until(() => expect(watcher.output.get('pty1')).toContain('Password: '))
    // What it waits for, live: a password (the terminal's echo is off).
    await watcher.next('entry', (m) => m.entry.id === 'pty1' && m.entry.input === 'password' && m.entry.stateText === 'waiting for input (password)')

    // The person takes it over (at their window's size).
    const person = await open(url)
    expect(person.messages[0].entries).toMatchObject([{ id: 'pty1' }])
    person.send({ type: 'take', id: 'pty1', cols: 100, rows: 20 })
    await person.next('entry', (m) => m.entry.holder === person.name && m.entry.cols === 100)
    // A second page cannot take it, and what it types goes nowhere.
    watcher.send({ type: 'take', id: 'pty1' })
    expect((await watcher.next('refused')).message).toBe('session pty1 is held by another page; it is read-only here until it is handed back')
    watcher.send({ type: 'input', id: 'pty1', data: 'from the watcher\r' })
    expect((await watcher.next('refused')).message).toBe('session pty1 is not held by this page; take it over first')
    // The model's input waits too.
    const refused = await r.respond('pty_send', { id: 'pty1', input: 'model input<enter>' })
    expect(refused).toMatchObject({ isError: true })
    expect(refused.text).toBe(
      'Error: a person has taken session pty1 over in the live panel; your input was not sent. Follow it with pty_read; it is yours again when they hand it back.',
    )

    person.send({ type: 'input', id: 'pty1', data: 'hunter2-secret\r' })
    await until(() => expect(watcher.output.get('pty1')).toContain('access granted'))
    await watcher.next('entry', (m) => m.entry.id === 'pty1' && m.entry.input === 'line' && m.entry.stateText === 'waiting for input (line)')
    const read = await r.respond('pty_read', { id: 'pty1', wait_ms: 2000 })
    expect(read.text).toMatch(
      /^\[a person took pty1 over in the live panel; a person typed 15 characters \(not shown\); they still hold it: your input is refused until they hand it back\]\nPassword: \naccess granted\nnext: \n\[session pty1: waiting for input \(line\)\]/,
    )

    // Handed back: the model types again, at its own size.
    person.send({ type: 'release', id: 'pty1' })
    await person.next('entry', (m) => m.entry.holder === null && m.entry.cols === 120)
    expect((await r.respond('pty_send', { id: 'pty1', input: 'from the model<enter>' })).isError).toBe(false)
    const last = await r.respond('pty_read', { id: 'pty1', wait_ms: 3000 })
    expect(last.text).toMatch(/^\[the person handed pty1 back\]\n/)
    expect(last.text).toContain('got from the model')
    await until(() => expect(watcher.output.get('pty1')).toContain('got from the model'))

    // The password is in no reply, no transcript and nothing the pages got.
    // (`last` read from the start, without `since`: the whole transcript.)
    const whole = last.result as { output: string }
    expect(whole.output).toMatch(/^Password: \naccess granted\nnext: from the model\ngot from the model\n$/)
    for (const text of [refused.text, read.text, last.text, whole.output, watcher.output.get('pty1')!, person.output.get('pty1')!]) {
      expect(text).not.toContain('hunter2')
    }
    // The recording has the answer and the model's input, not the password (typed while echo was off).
    expect(readdirSync(records)).toEqual(['pty1.cast'])
    const { events } = readRecording(join(records, 'pty1.cast'))
    const recorded = (kind: string) => events.filter((e) => e[1] === kind).map((e) => e[2]).join('')
    expect(recorded('o')).toContain('access granted')
    expect(recorded('i')).toBe('from the model\r')
  })

  it('a reply about a session that waits for a password names both ways on: pty_send, or the person in the panel', async () => {
    const { r, url } = await withPanel()
    const ask = ['--norc', '--noprofile', '-c', 'read -s -p "Password: " pw; echo; echo "${#pw} characters"']
    const reply = await r.respond('pty_exec', { command: 'bash', args: ask })
    const hint =
      '[pty1 waits for a password: send it with pty_send {"id":"pty1","input":"...<enter>"} (typed while echo is off, it is in no reply and kept nowhere); ' +
      `or ask the person to type it themselves in the live panel at ${url} (Take over, type it, Hand back), then follow with pty_read]\n` +
      '[session pty1: waiting for input (password)]'
    expect(reply.text).toMatch(/^Password: \n/)
    expect(reply.text).toContain(hint)
    expect(reply.result).toMatchObject({ status: 'running', inputKind: 'password', panelUrl: url })
    // The same on a read; once answered, no more.
    expect((await r.respond('pty_read', { id: 'pty1' })).text).toContain(hint)
    const answered = await r.respond('pty_send', { id: 'pty1', input: 'secret<enter>', wait_ms: 5000 })
    expect(answered.text).toContain('6 characters')
    expect(answered.text).not.toContain('waits for a password')
    // Without a panel: only the first way.
    await r[Symbol.asyncDispose]()
    registry = new ToolRegistry()
    registry.register(terminalTools())
    const plain = await registry.respond('pty_exec', { command: 'bash', args: ask })
    expect(plain.text).toContain(
      '[pty1 waits for a password: send it with pty_send {"id":"pty1","input":"...<enter>"} (typed while echo is off, it is in no reply and kept nowhere)]\n[session pty1: waiting for input (password)]',
    )
  })

  it('closing the page hands the session back and changes nothing else for the model', async () => {
    const { r, url } = await withPanel()
    const s = await r.call('pty_start', { command: 'cat' })
    const person = await open(url)
    person.send({ type: 'take', id: s.id })
    await person.next('entry', (m) => m.entry.holder === person.name)
    person.send({ type: 'input', id: s.id, data: 'typed by a person\r' })
    await until(async () => expect((await r.call('pty_read', { id: s.id })).output).toContain('typed by a person\ntyped by a person\n'))
    person.ws.close()
    const back = await until(async () => {
      const reply = await r.respond('pty_send', { id: s.id, input: 'the model again<enter>' })
      expect(reply.isError).toBe(false)
      return reply
    })
    expect(back.text).toMatch(/^Sent \d+ bytes to pty1/)
    const read = await r.respond('pty_read', { id: s.id, wait_ms: 2000 })
    expect(read.text).toContain('the person handed pty1 back')
    expect(read.text).toContain('the model again\nthe model again')
    expect(r.list()).toMatchObject([{ id: s.id, state: 'running' }])
  })

  it('shows the registry’s interactive-tool handles too, view only', async () => {
    const { r, url } = await withPanel()
    r.register({ name: 'sh', commands: [{ name: 'run', program: ['sh', '-c'], acceptsInput: true }] })
    const page = await open(url)
    const state = await r.call('sh', { action: 'spawn', command: 'run', args: ['echo tool output; read x; echo "x=$x"'] })
    const listed = await page.next('entry', (m) => m.entry.id === state.id)
    expect(listed.entry).toMatchObject({ kind: 'tool', name: 'sh run', state: 'running', canTake: false, holder: null, cols: 80, rows: 24 })
    await until(() => expect(page.output.get(state.id)).toContain('tool output'))
    page.send({ type: 'take', id: state.id })
    expect((await page.next('refused')).message).toBe(`${state.id} is an interactive tool's handle: the panel shows it, the model's apply types into it`)
    await r.call('sh', { action: 'apply', id: state.id, input: 'from the model<enter>' })
    await until(() => expect(page.output.get(state.id)).toContain('x=from the model'))
    await page.next('entry', (m) => m.entry.id === state.id && m.entry.state === 'exited' && m.entry.stateText === 'exited 0')
  })

  it('works with an isolated host: the panel runs beside the sessions, its URL comes as an event', async () => {
    const { r, url, events } = await withPanel({}, { isolation: 'process' })
    expect(events.filter((e) => e.type === 'web')).toEqual([{ type: 'web', id: 'terminal', url }])
    const page = await open(url)
    const s = await r.call('pty_start', { command: 'sh', args: ['-c', 'echo hello from the host; read x; echo "x=$x"'] })
    await until(() => expect(page.output.get(s.id)).toContain('hello from the host'))
    page.send({ type: 'take', id: s.id })
    await page.next('entry', (m) => m.entry.holder === page.name)
    page.send({ type: 'input', id: s.id, data: 'typed\r' })
    await until(() => expect(page.output.get(s.id)).toContain('x=typed'))
    const read = await r.respond('pty_read', { id: s.id, wait_ms: 2000 })
    expect(read.text).toContain('a person typed 6 characters (not shown)')
  })
})
