/// <reference lib="dom" />
// session.screenshot({ format: 'svg' }) rendered in Debian's headless Chromium:
// each row of the SVG reads as the row of screen().lines; the pixel under a
// red-on-blue cell is red (the glyph) on blue (the cell); colours in the 16,
// 256 and true-colour forms, attributes, wide characters and emoji, the
// cursor and the title bar. A screenshot of vim with syntax colours is
// attached to the test (Vitest annotation) and saved to test-artifacts/.
import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest'
import { inflateSync } from 'node:zlib'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { PtySession, ScreenModel } from '../index.js'
import { chromiumAvailable, noChromium, openBrowser } from './browser'
import { have } from './helpers'

const ARTIFACTS = join(__dirname, '..', 'test-artifacts')

/** The RGB of the one pixel a 1×1 PNG holds (any filter leaves a lone pixel as it is). */
function pixelOf(png: Buffer): [number, number, number] {
  const chunks: Buffer[] = []
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at)
    const type = png.toString('latin1', at + 4, at + 8)
    if (type === 'IDAT') chunks.push(png.subarray(at + 8, at + 8 + length))
    at += 12 + length
  }
  const raw = inflateSync(Buffer.concat(chunks))
  return [raw[1], raw[2], raw[3]]
}

const hex = ([r, g, b]: number[]) => `#${[r, g, b].map((n) => n.toString(16).padStart(2, '0')).join('')}`

/** The program whose screen is drawn: every kind of cell. */
const SHOWCASE = [
  '\x1b]0;demo title\x07',
  'plain text\r\n',
  '\x1b[31;44m\u2588 \x1b[0m red on blue\r\n',
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((n) => `\x1b[3${n}m${n}\x1b[9${n}m${n}`),
  '\x1b[0m 16 colours\r\n',
  '\x1b[38;5;208morange\x1b[48;5;22m on green\x1b[0m 256 colours\r\n',
  '\x1b[38;2;255;128;0mtrue\x1b[48;2;0;64;128m colour\x1b[0m\r\n',
  '\x1b[1mbold\x1b[0m \x1b[3mitalic\x1b[0m \x1b[4munder\x1b[0m \x1b[7minverse\x1b[0m \x1b[2mdim\x1b[0m\r\n',
  'wide: \u65e5\u672c\u8a9e emoji: \ud83c\udf89\ud83d\udc4d end\r\n',
  'combining: e\u0301 caf\u00e9\r\n',
  'markup: <tag> & "quotes" \u2500\u2500\r\n',
  'prompt> ',
].join('')

describe.skipIf(!chromiumAvailable)(`SVG screenshots in headless Chromium${noChromium}`, () => {
  let browser: { context: BrowserContext; close: () => Promise<void> }
  let page: Page
  const dir = mkdtempSync(join(tmpdir(), 'ptypilot-svg-'))

  beforeAll(async () => {
    browser = await openBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
  }, 60_000)

  /** Opens an SVG document in the page. */
  async function show(svg: string, name: string): Promise<void> {
    const path = join(dir, name)
    writeFileSync(path, svg)
    await page.goto(`file://${path}`)
  }

  /** The colour Chromium drew at (x, y) of the page. */
  async function pixel(x: number, y: number): Promise<string> {
    return hex(pixelOf(await page.screenshot({ clip: { x, y, width: 1, height: 1 } })))
  }

  /** The page position of the middle of a cell. */
  async function cellMiddle(col: number, row: number): Promise<[number, number]> {
    const g = await page.evaluate(() => {
      const svg = document.documentElement
      return ['data-left', 'data-top', 'data-cell-width', 'data-cell-height'].map((a) => Number(svg.getAttribute(a)))
    })
    const [left, top, w, h] = g
    return [Math.floor(left + col * w + w / 2), Math.floor(top + row * h + h / 2)]
  }

  it('draws every row as screen().lines has it, and a red-on-blue cell red on blue', async () => {
    const s = PtySession.spawn({ command: 'python3', args: ['-c', `import sys; sys.stdout.write(${JSON.stringify(SHOWCASE)}); sys.stdout.flush(); input()`] })
    try {
      await s.waitFor('prompt> ')
      const screen = s.screen()
      const svg = s.screenshot({ format: 'svg' })
      await show(svg, 'showcase.svg')
      const rows = await page.evaluate(() => Array.from(document.querySelectorAll('text.row')).map((t) => t.textContent ?? ''))
      expect(rows.map((r) => r.trimEnd())).toEqual(screen.lines)
      expect(rows).toHaveLength(24)
      mkdirSync(ARTIFACTS, { recursive: true })
      await page.screenshot({ path: join(ARTIFACTS, 'svg-showcase.png') })

      // The glyph █ is red, the blank after it blue: the cell's colours.
      expect(await pixel(...(await cellMiddle(0, 1)))).toBe('#cd0000')
      expect(await pixel(...(await cellMiddle(1, 1)))).toBe('#0000ee')
      // Inverse video: the cell is drawn in the text colour.
      const inverseCol = screen.lines[5].indexOf('inverse')
      const [ix, iy] = await cellMiddle(inverseCol, 5)
      expect(await pixel(ix, iy - 7)).toBe('#e5e5e5')
      // 256 colours (208 is #ff8700, 22 #005f00) and true colour, as fills.
      expect(svg).toContain('fill="#ff8700"')
      expect(svg).toContain('fill="#005f00"')
      expect(svg).toContain('fill="#ff8000"')
      expect(svg).toContain('fill="#004080"')
      expect(svg).toMatch(/font-weight="bold">bold</)
      expect(svg).toMatch(/font-style="italic">italic</)
      expect(svg).toMatch(/text-decoration="underline">under</)
      expect(svg).toMatch(/fill-opacity="0.6">dim</)
      // Wide characters and emoji each start at their own column (two cells wide).
      const wideAt = await page.evaluate(() =>
        Array.from(document.querySelectorAll('text.row[data-row="6"] tspan')).map((t) => [t.textContent, t.getAttribute('x')]),
      )
      const x = (col: number) => String(Math.round((8 + col * 8.4) * 100) / 100)
      expect(wideAt).toEqual(expect.arrayContaining([['\u65e5', x(6)], ['\u672c', x(8)], ['\u8a9e', x(10)], ['\ud83c\udf89', x(20)], ['\ud83d\udc4d', x(22)]]))
      // The title bar names the title and the size; the cursor is where the screen has it.
      expect(await page.locator('text.title').textContent()).toBe('demo title — 80×24')
      const cursor = await page.evaluate(() => {
        const c = document.querySelector('rect.cursor')!
        return [Number(c.getAttribute('x')), Number(c.getAttribute('y'))]
      })
      expect(screen.cursor).toEqual({ row: 9, col: 8, visible: true })
      expect(cursor).toEqual([x(8), 24 + 8 + 9 * 17].map(Number))
    } finally {
      s.kill()
    }
  }, 60_000)

  it('a replayed screen (ScreenModel) draws the same, and bad options name the value', async () => {
    const model = new ScreenModel({ cols: 30, rows: 4 })
    model.write('\x1b[42mgreen\x1b[0m & <b>\r\n\x1b[?25l')
    const svg = model.screenshot()
    await show(svg, 'model.svg')
    expect(await page.evaluate(() => Array.from(document.querySelectorAll('text.row')).map((t) => (t.textContent ?? '').trimEnd()))).toEqual(model.screen().lines)
    expect(svg).not.toContain('class="cursor"')
    expect(() => model.screenshot({ format: 'png' as never })).toThrow(/options.format must be one of 'svg', got string "png"/)
    expect(() => model.screenshot({ size: 1 } as never)).toThrow(/unknown option options.size/)
  })

  it.skipIf(!have('vim'))('vim with syntax colours, attached to the test', async ({ annotate }) => {
    const home = mkdtempSync(join(tmpdir(), 'ptypilot-vim-'))
    const file = join(home, 'example.py')
    writeFileSync(file, ['# a comment', 'def greet(name: str) -> str:', '    """Say hello."""', '    return f"hello, {name}!"', '', 'print(greet("world"), 42)', ''].join('\n'))
    const s = PtySession.spawn({ command: 'vim', args: ['-u', 'NONE', '-i', 'NONE', '-N', '-n', '--cmd', 'syntax on', file], env: { HOME: home } })
    try {
      await s.waitFor('print(greet')
      await vi.waitFor(() => expect(s.screen({ attributes: true }).attributes[0].some((run) => run.fg !== null)).toBe(true))
      await s.waitForSettle({ quietMs: 200 })
      const svg = s.screenshot()
      const colours = new Set(s.screen({ attributes: true }).attributes.flat().map((run) => run.fg).filter((fg) => fg !== null))
      expect(colours.size).toBeGreaterThanOrEqual(3)
      await show(svg, 'vim.svg')
      expect(await page.evaluate(() => Array.from(document.querySelectorAll('text.row')).map((t) => (t.textContent ?? '').trimEnd()))).toEqual(s.screen().lines)
      mkdirSync(ARTIFACTS, { recursive: true })
      writeFileSync(join(ARTIFACTS, 'vim-syntax.svg'), svg)
      await page.screenshot({ path: join(ARTIFACTS, 'vim-syntax.png') })
      await annotate('vim with syntax colours', { contentType: 'image/svg+xml', body: svg, bodyEncoding: 'utf-8' })
    } finally {
      s.kill()
    }
  }, 60_000)
})
