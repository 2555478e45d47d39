/// <reference lib="dom" />
// The task panel example (examples/web: ptypilot's live panel, lib/panel.js,
// over a TaskRunner) in a real browser: Debian's headless Chromium driven by
// playwright-core (no browser download). Opens the page, starts a task and
// sees its output, types into a shell tab and sees the answer, resizes the
// window and sees the program get the new size, and saves a screenshot to
// test-artifacts/.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { CHROMIUM, CHROMIUM_FLAGS, chromiumAvailable } from './browser'
import { startTaskPanel } from '../examples/web/server.mjs'

const ARTIFACTS = join(__dirname, '..', 'test-artifacts')
const FLAGS = CHROMIUM_FLAGS
const available = chromiumAvailable

describe.skipIf(!available)(
  available ? 'web panel in headless Chromium' : `web panel in headless Chromium — skipped: ${CHROMIUM} is not installed (apt-get install chromium)`,
  () => {
    let panel: { url: string; close: () => Promise<void> }
    let context: BrowserContext
    let page: Page
    let profile: string

    beforeAll(async () => {
      panel = await startTaskPanel({ cwd: tmpdir() })
      profile = mkdtempSync(join(tmpdir(), 'ptypilot-chromium-'))
      // launchPersistentContext: the fresh profile directory is Chromium's --user-data-dir.
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: FLAGS,
        viewport: { width: 900, height: 500 },
      })
      page = context.pages()[0] ?? (await context.newPage())
      await page.goto(panel.url)
      await page.waitForFunction(() => (globalThis as any).panel?.connected === true)
    }, 60_000)

    afterAll(async () => {
      await context?.close()
      await panel?.close()
      if (profile) rmSync(profile, { recursive: true, force: true })
    }, 60_000)

    /** What the active tab's terminal shows (its buffer, rows right-trimmed). */
    const activeText = () => page.evaluate(() => (globalThis as any).panel.text() as string)
    const activeTask = () =>
      page.evaluate(() => {
        const p = (globalThis as any).panel
        return p.entries().find((t: { id: string }) => t.id === p.active) as {
          id: string
          name: string
          stateText: string
          holding: boolean
          shownCols: number
          shownRows: number
        }
      })

    it('starts a task, switches to its tab and shows its output as it runs', async () => {
      await page.click('button[data-preset="build"]')
      await page.waitForFunction(() => (globalThis as any).panel.active !== null)
      expect((await activeTask()).name).toBe('build')
      await page.waitForFunction(() => (globalThis as any).panel.text().includes('build finished'), null, { timeout: 15_000 })
      const text = await activeText()
      expect(text).toBe('==> fetch\n==> compile\n==> link\n==> test\nbuild finished')
      // Rendered on the page, not only in the buffer.
      await expect.poll(() => page.locator('.terminal-host.active .xterm-rows').innerText()).toContain('build finished')
      await page.waitForFunction(() => (globalThis as any).panel.entries()[0].stateText === 'success')
      await expect.poll(() => page.locator('.tab.active .state').innerText()).toBe('success')
    })

    it('types a command into a shell tab and sees the answer; a new task takes the panel', async () => {
      await page.click('button[data-preset="shell"]')
      await page.waitForFunction(() => {
        const p = (globalThis as any).panel
        return p.entries().length === 2 && p.active === p.entries()[1].id && p.entries()[1].holding
      })
      // The page that started it types into it.
      expect(await activeTask()).toMatchObject({ name: 'shell', holding: true })
      // The prompt ('\w \$ ': '$' or, for root, '#').
      await page.waitForFunction(() => /[$#]$/.test((globalThis as any).panel.text()), null, { timeout: 15_000 })
      await page.keyboard.type('echo $((6 * 7)) answers\n')
      await page.waitForFunction(() => (globalThis as any).panel.text().includes('\n42 answers'), null, { timeout: 15_000 })
      expect(await activeText()).toMatch(/echo \$\(\(6 \* 7\)\) answers\n42 answers\n/)
    })

    it('resizes the window and the program gets the new size', async () => {
      const before = await activeTask()
      await page.setViewportSize({ width: 640, height: 360 })
      await page.waitForFunction((cols) => {
        const p = (globalThis as any).panel
        return p.entries().find((t: { id: string }) => t.id === p.active).cols !== cols
      }, before.shownCols)
      const after = await activeTask()
      expect(after.shownCols).toBeLessThan(before.shownCols)
      expect(after.shownRows).toBeLessThan(before.shownRows)
      await page.keyboard.type('stty size\n')
      const expected = `${after.shownRows} ${after.shownCols}`
      await page.waitForFunction((want) => (globalThis as any).panel.text().split('\n').includes(want), expected, {
        timeout: 15_000,
      })
      // One answerer: the session answers a cursor-position query, and the
      // page (whose xterm.js would answer too) swallows it: one answer. The
      // program counts the answers that come until the terminal stays quiet
      // for a second.
      const asker = String.raw`python3 -c 'import os,re,select,tty;tty.setraw(0);os.write(1,b"\x1b[6n");b=b"";exec("while select.select([0],[],[],1)[0]: b+=os.read(0,99)");print("answers:",len(re.findall(rb"\x1b\[\d+;\d+R",b)),end="\r\n")'`
      await page.keyboard.type(`${asker}\n`)
      await page.waitForFunction(() => /^answers: \d+$/m.test((globalThis as any).panel.text()), null, {
        timeout: 15_000,
      })
      expect(await activeText()).toMatch(/^answers: 1$/m)
      await page.waitForFunction(() => /[$#]$/.test((globalThis as any).panel.text()), null, { timeout: 15_000 })
      mkdirSync(ARTIFACTS, { recursive: true })
      const shot = join(ARTIFACTS, 'web-panel.png')
      await page.screenshot({ path: shot })
      expect(statSync(shot).size).toBeGreaterThan(1000)
    })

    it('a flood reaches the terminal complete (the page acknowledges what it drew; the task waits when it is behind)', async () => {
      await page.click('button[data-preset="flood"]')
      await page.waitForFunction(
        () => {
          const p = (globalThis as any).panel
          const task = p.entries().find((t: { id: string }) => t.id === p.active)
          return task.name === 'flood' && task.stateText === 'success'
        },
        null,
        { timeout: 60_000 },
      )
      await page.waitForFunction(() => (globalThis as any).panel.text().endsWith('\n199999\n200000'), null, {
        timeout: 30_000,
      })
      const lines = (await activeText()).split('\n')
      // The terminal keeps its scrollback (5000 lines) of the 200 000: the last ones, in order.
      const tail = lines.slice(-4000)
      expect(tail).toEqual(Array.from({ length: 4000 }, (_, i) => String(196001 + i)))
    }, 90_000)
  },
)
