/// <reference lib="dom" />
// `ptypilot view <recording.cast>`: one self-contained HTML trace. Opened in
// Debian's headless Chromium, xterm.js (inlined, no network) shows the screen
// the recording ends on, and the screen of a moment chosen with the slider
// (by keyboard, as a person would); the timeline names the input as keys.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { BrowserContext, Page } from 'playwright-core'
import { PtySession, readRecording, replay } from '../index.js'
import { chromiumAvailable, noChromium, openBrowser } from './browser'

const BIN = join(__dirname, '..', 'bin', 'ptypilot.js')
const ARTIFACTS = join(__dirname, '..', 'test-artifacts')
const run = promisify(execFile)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { inputTokens, describeInput } = require('../lib/trace.js')

describe('input as keys', () => {
  it('reads typed text, named keys, alt, pastes and mouse reports', () => {
    expect(describeInput('ls -la\r\x1b[A\x03\x1bx\x7f\t\x1b')).toBe('"ls -la" <enter> <up> <ctrl+c> <alt+x> <backspace> <tab> <esc>')
    expect(describeInput('\x1b[200~two\nlines\x1b[201~\x1bOP')).toBe('paste "two\\nlines" <f1>')
    expect(describeInput('\x1b[<0;3;4M\x1b[<0;3;4m')).toBe('mouse press left at 2,3 mouse release left at 2,3')
    expect(inputTokens('\x1b[M !!')).toEqual([expect.objectContaining({ kind: 'mouse', action: 'press', button: 'left', col: 0, row: 0, encoding: 'default' })])
  })
})

describe('ptypilot view', () => {
  it('names its usage and fails clearly on a file that is not a recording', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-view-'))
    const bad = join(dir, 'bad.cast')
    writeFileSync(bad, 'not json\n')
    const err = await run(process.execPath, [BIN, 'view', bad]).catch((e) => e)
    expect(err.code).toBe(1)
    expect(err.stderr).toMatch(/bad.cast is not an asciicast v2 recording: line 1: the header is not JSON/)
    const none = await run(process.execPath, [BIN, 'view']).catch((e) => e)
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('Usage: ptypilot view <recording.cast>')
  })
})

describe.skipIf(!chromiumAvailable)(`the trace in headless Chromium${noChromium}`, () => {
  let browser: { context: BrowserContext; close: () => Promise<void> }
  let page: Page
  let cast: string
  let tracePath: string

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-trace-'))
    cast = join(dir, 'session.cast')
    const s = PtySession.spawn({
      command: 'bash',
      args: ['--norc', '--noprofile', '-i'],
      env: { PS1: '$ ', HISTFILE: '/dev/null' },
      cols: 70,
      rows: 12,
      record: cast,
    })
    await s.waitFor(/^\$$/m)
    s.write('echo first\r')
    await s.waitFor(/^first$/m)
    s.write("printf '\\033[31mred\\033[0m and plain\\n'\r")
    await s.waitFor(/^red and plain$/m)
    s.resize(60, 10)
    s.write('tput cols\r')
    await s.waitFor(/^60\n\$$/m)
    s.sendKeys('up')
    await s.waitFor(/^60\n\$ tput cols$/m)
    s.sendKeys('ctrl+c')
    await s.waitFor(/^\$ tput cols\^C\n\$$/m)
    s.write('echo last\r')
    await s.waitFor(/^last$/m)
    s.write('exit\r')
    await s.exited
    const { stdout } = await run(process.execPath, [BIN, 'view', cast])
    tracePath = stdout.trim()
    browser = await openBrowser({ width: 1400, height: 800 })
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    await page.goto(`file://${tracePath}`)
    await page.waitForFunction(() => (globalThis as any).trace !== undefined, null, { polling: 50 })
    await page.evaluate(() => (globalThis as any).trace.ready)
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
  }, 60_000)

  /** The rows xterm.js drew on the page (its DOM renderer), right-trimmed. */
  const drawn = () =>
    page.evaluate(() => Array.from(document.querySelectorAll('.xterm-rows > div')).map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()))
  const position = () => page.evaluate(() => (globalThis as any).trace.position as number)

  it('is one self-contained file next to the recording', () => {
    expect(tracePath).toBe(cast.replace(/\.cast$/, '.html'))
    const page = readFileSync(tracePath, 'utf8')
    expect(page).not.toMatch(/<script[^>]+src=|<link[^>]+href=/)
    expect(page).toContain('xterm-rows')
  })

  it('shows the screen the recording ends on', async () => {
    const { events } = readRecording(cast)
    expect(await position()).toBe(events.length)
    const expected = replay(cast).screen().lines
    await expect.poll(drawn).toEqual(expected)
    expect(expected.join('\n')).toMatch(/\$ echo last\nlast\n\$ exit/)
  })

  it('shows the screen of a moment chosen on the slider', async () => {
    const { events } = readRecording(cast)
    // The moment right after "red and plain" was printed, before the resize.
    const chosen = events.findIndex((e) => e[1] === 'o' && e[2].includes('red\x1b[0m and plain')) + 1
    expect(chosen).toBeGreaterThan(0)
    await page.focus('#slider')
    await page.keyboard.press('Home')
    for (let i = 0; i < chosen; i++) await page.keyboard.press('ArrowRight')
    await page.waitForFunction((n) => (globalThis as any).trace.position === n, chosen, { polling: 50 })
    await page.evaluate(() => (globalThis as any).trace.seek((globalThis as any).trace.position))
    const expected = replay(cast, { until: events[chosen - 1][0] }).screen().lines
    expect(expected.some((line) => line === 'red and plain')).toBe(true)
    await expect.poll(drawn).toEqual(expected)
    expect(await page.locator('#clock').textContent()).toContain(`event ${chosen} of ${events.length}`)
    // The red is drawn red.
    const colour = await page.evaluate(() => {
      const span = Array.from(document.querySelectorAll('.xterm-rows span')).find((s) => s.textContent === 'red')
      return span ? getComputedStyle(span).color : null
    })
    mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: join(ARTIFACTS, 'trace.png') })
    expect(colour).toMatch(/^rgb\(\s*(2[0-5]\d|1[5-9]\d)\s*,\s*\d{1,2}\s*,\s*\d{1,2}\s*\)$/)
  })

  it('lists output, input as keys, and resizes in the timeline', async () => {
    const items = await page.locator('#timeline li').allTextContents()
    expect(items.some((t) => /input"echo first" <enter>$/.test(t.replace(/^[\d.]+/, '')))).toBe(true)
    expect(items.some((t) => t.endsWith('input<up>'))).toBe(true)
    expect(items.some((t) => t.endsWith('input<ctrl+c>'))).toBe(true)
    expect(items.some((t) => t.endsWith('resize60x10'))).toBe(true)
    // Clicking an event shows the screen after it.
    const index = items.findIndex((t) => t.endsWith('resize60x10'))
    await page.locator('#timeline li').nth(index).click()
    await page.waitForFunction((n) => (globalThis as any).trace.position === n, index + 1, { polling: 50 })
    expect(await page.evaluate(() => (globalThis as any).trace.term.cols)).toBe(60)
  })
})
