/// <reference lib="dom" />
// A person beside an agent, in a real browser: `ptypilot mcp --web` driven by
// the MCP SDK's client (the agent), its live panel opened in Debian's headless
// Chromium through playwright-core (the person). The agent starts a program
// that asks for a password; the page shows it live; the person takes the
// session over and at once, with no click into the terminal, types the
// password into the `read -s` prompt (the terminal has the keyboard); the agent's
// next read shows the program's answer and the state, and no reply, transcript
// or recording holds the password; a second page stays read-only meanwhile;
// the person hands back and the agent finishes the task. Screenshots go to
// test-artifacts/.
import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest'
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { readRecording } from '../index.js'
import { chromiumAvailable, noChromium, openBrowser } from './browser'
import { serveMcp, type Served } from './mcp-client'

const ARTIFACTS = join(__dirname, '..', 'test-artifacts')
const PASSWORD = 'hunter2-correct-horse'

/**
 * The program the agent runs: a password prompt (checked against a file the agent never
 * names the contents of), then a question only the agent answers.
 */
function script(secretFile: string) {
  return [
    'read -s -p "Password: " pw; echo',
    `if [ "$pw" = "$(cat ${secretFile})" ]; then echo "access granted"; else echo "access denied"; fi`,
    'read -p "Deploy to which stage? " stage',
    'echo "deployed to $stage"',
  ].join('; ')
}

describe.skipIf(!chromiumAvailable)(
  `a person beside the agent, in headless Chromium${noChromium}`,
  () => {
    let agent: Served
    let url: string
    let context: BrowserContext
    let closeBrowser: (() => Promise<void>) | undefined
    let records: string
    let secretFile: string
    const replies: string[] = []

    beforeAll(async () => {
      records = mkdtempSync(join(tmpdir(), 'ptypilot-casts-'))
      // Not under /tmp: the program runs in ptypilot mcp's default sandbox, whose /tmp is its own.
      const secrets = join(__dirname, '..', 'target')
      mkdirSync(secrets, { recursive: true })
      secretFile = join(mkdtempSync(join(secrets, 'ptypilot-secret-')), 'expected')
      writeFileSync(secretFile, PASSWORD)
      agent = await serveMcp(['--web', '--record-dir', records, '--no-git'])
      await vi.waitFor(() => expect(agent.stderr()).toMatch(/live panel of the terminal sessions: \S+/), { timeout: 15_000 })
      url = /live panel of the terminal sessions: (\S+)/.exec(agent.stderr())![1]
      ;({ context, close: closeBrowser } = await openBrowser({ width: 1000, height: 560 }))
    }, 60_000)

    afterAll(async () => {
      await closeBrowser?.()
      await agent?.close()
    }, 60_000)

    const call = async (name: string, args: Record<string, unknown>) => {
      const reply = await agent.call(name, args)
      replies.push(reply.text)
      return reply
    }
    const entry = (page: Page, id: string) =>
      page.evaluate((id) => (globalThis as any).panel.entries().find((e: { id: string }) => e.id === id), id)
    const text = (page: Page, id: string) => page.evaluate((id) => (globalThis as any).panel.text(id) as string, id)

    it('the person takes over, types the password; the agent sees the answer, never the password; hands back; the agent finishes', async () => {
      const person = context.pages()[0] ?? (await context.newPage())
      await person.goto(url)
      await person.waitForFunction(() => (globalThis as any).panel?.connected === true)

      // The agent starts the program; the page shows it live.
      const started = await call('pty_start', { command: 'bash', args: ['--norc', '--noprofile', '-c', script(secretFile)], title: 'deploy' })
      expect(started.text).toMatch(/^Started session pty1: /)
      await person.waitForFunction(() => (globalThis as any).panel.active === 'pty1')
      await person.waitForFunction(() => (globalThis as any).panel.text('pty1').includes('Password:'), null, { timeout: 15_000 })
      await expect.poll(() => person.locator('.tab.active .name').innerText()).toBe('deploy')
      await expect.poll(() => person.locator('#role').innerText()).toBe('view only')
      // What it waits for, as the kernel tells it: a password (echo off).
      await expect.poll(() => person.locator('.tab.active .state').innerText(), { timeout: 10_000 }).toBe('waiting for input (password)')
      // The agent sees the prompt, and hears both ways on: send it, or ask the person to type it in the panel.
      const prompt = await call('pty_read', { id: 'pty1', wait_ms: 2000 })
      expect(prompt.text).toMatch(/^Password: \n\[pty1 waits for a password: send it with pty_send [^\n]*\]\n\[session pty1: waiting for input \(password\)\]/)
      expect(prompt.text).toContain(`or ask the person to type it themselves in the live panel at ${url} (Take over, type it, Hand back)`)

      // The person takes it over and types at once: the terminal has the keyboard, not the button.
      await person.click('#take')
      await person.keyboard.type(PASSWORD)
      await person.keyboard.press('Enter')
      expect(await person.evaluate(() => document.activeElement?.closest('.terminal-host.active') !== null)).toBe(true)
      await person.waitForFunction(() => (globalThis as any).panel.entries()[0].holding === true)
      await expect.poll(() => person.locator('#role').innerText()).toContain('you are typing into this session')
      await person.waitForFunction(() => (globalThis as any).panel.text('pty1').includes('Deploy to which stage?'), null, { timeout: 15_000 })
      // A second page watches, read-only: no take-over button, and its keys go nowhere.
      const watcher = await context.newPage()
      await watcher.goto(url)
      await watcher.waitForFunction(() => (globalThis as any).panel?.connected === true && (globalThis as any).panel.text('pty1').includes('Password:'))
      expect(await entry(watcher, 'pty1')).toMatchObject({ holding: false, holder: expect.stringMatching(/^page\d+$/) })
      await expect.poll(() => watcher.locator('#role').innerText()).toBe('view only: another page has taken this session over')
      expect(await watcher.locator('#take').isVisible()).toBe(false)
      await watcher.click('.terminal-host.active')
      await watcher.keyboard.type('typed-by-the-watcher\n')
      // The agent's input waits too.
      const refused = await call('pty_send', { id: 'pty1', input: 'from-the-agent<enter>' })
      expect(refused).toMatchObject({ isError: true })
      expect(refused.text).toContain('a person has taken session pty1 over in the live panel; your input was not sent')

      await person.bringToFront()
      await expect.poll(() => person.locator('.tab.active .state').innerText(), { timeout: 10_000 }).toBe('waiting for input (line)')
      await watcher.waitForFunction(() => (globalThis as any).panel.text('pty1').includes('access granted'), null, { timeout: 15_000 })

      // The agent's next read: the program's answer and the state; how much the person typed, not what.
      const answer = await call('pty_read', { id: 'pty1', wait_ms: 2000 })
      expect(answer.text).toMatch(
        new RegExp(
          `^\\[a person took pty1 over in the live panel; a person typed ${PASSWORD.length + 1} characters \\(not shown\\); ` +
            'they still hold it: your input is refused until they hand it back\\]\\nPassword: \\naccess granted\\nDeploy to which stage\\? \\n\\[session pty1: waiting for input \\(line\\)\\]',
        ),
      )
      mkdirSync(ARTIFACTS, { recursive: true })
      await person.screenshot({ path: join(ARTIFACTS, 'live-panel-takeover.png') })

      // Handed back: the agent finishes the task.
      await person.click('#release')
      await person.waitForFunction(() => (globalThis as any).panel.entries()[0].holder === null)
      await expect.poll(() => person.locator('#role').innerText()).toBe('view only')
      const sent = await call('pty_send', { id: 'pty1', input: 'staging<enter>' })
      expect(sent.isError).toBe(false)
      const done = await call('pty_read', { id: 'pty1', wait_ms: 3000 })
      expect(done.text).toMatch(/^\[the person handed pty1 back\]\n/)
      expect(done.text).toContain('Deploy to which stage? staging\ndeployed to staging\n')
      expect(done.text).toMatch(/\[session pty1: exited 0\] \[cursor: \d+\]$/)
      await person.waitForFunction(() => (globalThis as any).panel.text('pty1').includes('deployed to staging'))
      // The agent read its exit, so the session is gone; the page keeps it until the person closes it.
      await expect.poll(async () => (await entry(person, 'pty1'))?.gone).toBe(true)
      await expect.poll(() => person.locator('.tab.active .state').innerText()).toBe('exited 0')
      const shot = join(ARTIFACTS, 'live-panel.png')
      await person.screenshot({ path: shot })
      expect(statSync(shot).size).toBeGreaterThan(1000)

      // The password: in no reply, in no transcript, in no recording, on no page. The watcher's keys reached nothing.
      const transcript = (done.text.match(/\]\n([\s\S]*)\n\[pty1 ran/) ?? [])[1]
      expect(transcript).toBe('Password: \naccess granted\nDeploy to which stage? staging\ndeployed to staging')
      // The recording's input and output, each joined (a page sends a key per message).
      const { events } = readRecording(join(records, 'pty1.cast'))
      const recorded = (kind: string) => events.filter((e) => e[1] === kind).map((e) => e[2]).join('')
      expect(recorded('i')).toContain('staging')
      for (const seen of [...replies, recorded('i'), recorded('o'), await text(person, 'pty1'), await text(watcher, 'pty1')]) {
        expect(seen).not.toContain('hunter2')
        expect(seen).not.toContain('typed-by-the-watcher')
      }
    }, 120_000)
  },
)
