/// <reference lib="dom" />
// Runs Vitest in a child process on a suite that fails on purpose
// (fixtures/kit-failing) and checks what a test author sees: each failure
// shows the program's screen with row numbers and the cursor, names an SVG
// screenshot of it and an HTML trace of its recording (opened in headless
// Chromium: the last frame and a moment chosen on the slider), a wait gives
// up before the test's timeout, and no program outlives the run.
import { describe, it, expect } from 'vitest'
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { readRecording, replay } from '../index.js'
import { fileURLToPath } from 'node:url'
import { chromiumAvailable, openBrowser } from './browser'
import { linuxOnly } from './helpers.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const suite = join(root, '__test__', 'fixtures', 'kit-failing')

/** Pids of processes whose environment holds `needle`. */
function processesWith(needle: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(needle)) found.push(Number(entry))
    } catch {
      // Gone already, or not ours to read.
    }
  }
  return found
}

function runVitest(token: string, recordDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        join(root, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        '--root',
        suite,
        '--config',
        join(suite, 'vitest.config.mts'),
        '--reporter=default',
        `--reporter=${join(suite, 'artifacts.reporter.mjs')}`,
      ],
      {
        cwd: suite,
        env: {
          ...process.env,
          PTYPILOT_KIT_TOKEN: token,
          PTYPILOT_KIT_RECORD_DIR: recordDir,
          PTYPILOT_KIT_ATTACHMENTS_DIR: mkdtempSync(join(tmpdir(), 'ptypilot-kit-attachments-')),
          NO_COLOR: '1',
          FORCE_COLOR: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

/** The part of the report about one failed test (from its FAIL header to the next). */
function failure(output: string, name: string): string {
  const start = output.indexOf(`FAIL  failing.suite.ts > deliberately failing > ${name}`)
  if (start === -1) throw new Error(`no failure report for "${name}" in:\n${output}`)
  const next = output.indexOf('FAIL  ', start + 5)
  return output.slice(start, next === -1 ? undefined : next)
}

describe('a failing suite in a child Vitest', () => {
  it('shows the screens and leaves no program running', { timeout: 60_000 }, async (ctx) => {
    linuxOnly(ctx, 'finds left-over programs by /proc/PID/environ')
    const token = randomUUID()
    const recordDir = mkdtempSync(join(tmpdir(), 'ptypilot-kit-rec-'))
    const { code, output } = await runVitest(token, recordDir)
    expect(code, output).toBe(1)
    expect(output).toMatch(/Tests\s+4 failed \| 1 passed \(5\)/)

    const neverShown = failure(output, 'text that never shows')
    expect(neverShown).toContain('The screen did not show the text within 300 ms.')
    expect(neverShown).toContain('Expected: "never shown"')
    expect(neverShown).toContain('Screen 80x24, cursor at row 1, col 0:\n   0 │menu: open save quit\n>  1 │\n     │^')

    // Vitest's own timeout: the fixture adds the screen of the test's program.
    const timedOut = failure(output, 'a test that times out')
    expect(timedOut).toContain('Test timed out in 1500ms')
    expect(timedOut).toMatch(/session 1 of the test \(pid \d+, running\):\nScreen 80x24, cursor at row 1, col 0:\n {3}0 │stuck at step 3/)

    const other = failure(output, 'another assertion fails while a program ignores TERM')
    expect(other).toContain('expected 2 to be 3')
    expect(other).toContain('0 │stubborn')

    // A wait without a timeout gives up before the test's timeout, with its own error.
    const waited = failure(output, 'a wait with the default timeout')
    expect(waited).toMatch(/Error: timed out after \d+ ms waiting for "godot arrives" in the screen/)
    expect(waited).toContain('0 │waiting for godot')
    expect(waited).not.toContain('Test timed out')

    // Every program (and the `sleep` the stubborn one started) is gone.
    expect(processesWith(`KIT_PROGRAM_MARK=${token}`)).toEqual([])

    // Recordings are kept for the failing tests only, named in their reports,
    // and each replays to the screen the failure showed.
    const casts = readdirSync(recordDir).filter((f) => f.endsWith('.cast')).sort()
    expect(casts).toEqual([
      'deliberately-failing-a-test-that-times-out-1.cast',
      'deliberately-failing-a-wait-with-the-default-timeout-1.cast',
      'deliberately-failing-another-assertion-fails-while-a-program-ignores-TERM-1.cast',
      'deliberately-failing-text-that-never-shows-1.cast',
    ])
    const neverCast = join(recordDir, 'deliberately-failing-text-that-never-shows-1.cast')
    expect(neverShown).toContain(`Recordings (asciinema play <file>):\n  ${neverCast}`)
    expect(replay(neverCast).screen().lines[0]).toBe('menu: open save quit')
    expect(replay(join(recordDir, casts[0])).screen().text).toBe('stuck at step 3')

    // Each failing test's session has an SVG screenshot and its recording an
    // HTML trace, beside the recordings, named in the failure.
    const others = readdirSync(recordDir).filter((f) => !f.endsWith('.cast')).sort()
    expect(others).toEqual(casts.flatMap((c) => [c.replace(/\.cast$/, '.html'), c.replace(/\.cast$/, '.svg')]).sort())
    const neverSvg = join(recordDir, 'deliberately-failing-text-that-never-shows-1.svg')
    const neverHtml = join(recordDir, 'deliberately-failing-text-that-never-shows-1.html')
    expect(neverShown).toContain(`Screenshots (SVG):\n  ${neverSvg}`)
    expect(neverShown).toContain(`Traces (open in a browser):\n  ${neverHtml}`)
    expect(timedOut).toContain('Screenshots (SVG):')
    // Both are attached to the test as a Vitest artifact.
    expect(output).toMatch(/^artifact text that never shows: ptypilot:failure image\/svg\+xml \w+\.svg$/m)
    expect(output).toMatch(/^artifact text that never shows: ptypilot:failure text\/html \w+\.html$/m)
    expect(output.match(/^artifact .*image\/svg\+xml/gm)).toHaveLength(4)
    // The screenshot's rows are the screen the failure showed.
    const svgRows = [...readFileSync(neverSvg, 'utf8').matchAll(/<text class="row" data-row="(\d+)"[^>]*>(.*?)<\/text>/g)].map((m) =>
      m[2].replace(/<[^>]+>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&').trimEnd(),
    )
    expect(svgRows).toHaveLength(24)
    expect(svgRows[0]).toBe('menu: open save quit')
    expect(svgRows.slice(1).every((row) => row === '')).toBe(true)

    if (!chromiumAvailable) return
    // The trace in a browser: the last frame, then the first output chosen on the slider.
    const browser = await openBrowser()
    try {
      const page = browser.context.pages()[0] ?? (await browser.context.newPage())
      await page.goto(`file://${neverHtml}`)
      await page.waitForFunction(() => (globalThis as any).trace !== undefined, null, { polling: 50 })
      await page.evaluate(() => (globalThis as any).trace.ready)
      const drawn = () =>
        page.evaluate(() => Array.from(document.querySelectorAll('.xterm-rows > div')).map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()))
      await expect.poll(drawn).toEqual(replay(neverCast).screen().lines)
      const { events } = readRecording(neverCast)
      await page.focus('#slider')
      await page.keyboard.press('Home')
      await page.keyboard.press('ArrowRight')
      await page.waitForFunction(() => (globalThis as any).trace.position === 1, null, { polling: 50 })
      await page.evaluate(() => (globalThis as any).trace.seek(1))
      await expect.poll(drawn).toEqual(replay(neverCast, { until: events[0][0] }).screen().lines)
    } finally {
      await browser.close()
    }
  })
})
