'use strict'
// Pictures of the screen: `session.screenshot({ format: 'svg' })` draws a
// screen as a standalone SVG document. Every cell sits at its column (a wide
// character or emoji covers two), in its colours (16, 256 and true colour)
// and attributes (bold, dim, italic, underline, inverse); the cursor is a
// block over its cell; a title bar shows the window title and the size.
// Text is real SVG text in a monospace font stack, so the picture can be
// searched and copied, and each row is one <text class="row" data-row="N">
// whose text is that row of `screen().lines` (with trailing blanks that have
// a background). No dependency: the document is built as a string.

const { invalidArg, describe } = require('./errors.js')
const { own } = require('./args.js')

/** Font size (px) and the cell it gives in a monospace font (0.6 em wide). */
const FONT_SIZE = 14
const CELL_W = 8.4
const CELL_H = 17
/** Space around the cells, and the title bar's height. */
const PAD = 8
const TITLE_H = 24
/** Where a row's baseline sits below its top. */
const BASELINE = 13

const FONT_FAMILY =
  "ui-monospace, 'SFMono-Regular', 'DejaVu Sans Mono', 'Cascadia Mono', Menlo, Consolas, 'Liberation Mono', 'Noto Color Emoji', monospace"

/** The terminal's own colours: text, background, cursor, title bar. */
const THEME = Object.freeze({
  foreground: '#e5e5e5',
  background: '#1e1e1e',
  cursor: '#e5e5e5',
  titleBar: '#3a3a3a',
  titleText: '#d0d0d0',
})

/** xterm's 16 colours (its defaults), then the 6×6×6 cube and the grey ramp. */
const PALETTE = (() => {
  const base = [
    '#000000', '#cd0000', '#00cd00', '#cdcd00', '#0000ee', '#cd00cd', '#00cdcd', '#e5e5e5',
    '#7f7f7f', '#ff0000', '#00ff00', '#ffff00', '#5c5cff', '#ff00ff', '#00ffff', '#ffffff',
  ]
  const hex = (n) => n.toString(16).padStart(2, '0')
  const levels = [0, 95, 135, 175, 215, 255]
  for (let i = 0; i < 216; i++) {
    base.push(`#${hex(levels[Math.floor(i / 36)])}${hex(levels[Math.floor(i / 6) % 6])}${hex(levels[i % 6])}`)
  }
  for (let i = 0; i < 24; i++) base.push(`#${hex(8 + i * 10).repeat(3)}`)
  return Object.freeze(base)
})()

/** A cell colour (`null`, 0-255 or '#rrggbb') as a CSS colour, or `fallback`. */
function colour(value, fallback) {
  if (value === null || value === undefined) return fallback
  if (typeof value === 'number') return PALETTE[value] ?? fallback
  return value
}

/** Text for XML: escaped, and without the characters XML cannot hold. */
function xmlText(text) {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
}

const num = (n) => String(Math.round(n * 100) / 100)

/** The colours a cell is drawn in, inverse video applied. */
function cellColours(cell) {
  const fg = colour(cell.fg, THEME.foreground)
  const bg = colour(cell.bg, null)
  if (!cell.inverse) return { fg, bg }
  return { fg: bg ?? THEME.background, bg: fg }
}

/** The attributes of a text span for a cell's style (a key to group cells by too). */
function spanAttributes(cell, fg) {
  let attrs = ` fill="${fg}"`
  if (cell.bold) attrs += ' font-weight="bold"'
  if (cell.italic) attrs += ' font-style="italic"'
  if (cell.underline) attrs += ' text-decoration="underline"'
  if (cell.dim) attrs += ' fill-opacity="0.6"'
  return attrs
}

/** Characters that take one position each in an SVG `x` list: one UTF-16 unit, one column. */
function singleUnit(cell) {
  return cell.width === 1 && cell.text.length === 1
}

/**
 * Draws a screen as SVG. `screen` is a snapshot with `cells` (for each row its
 * cells left to right, each `{ col, width, text, fg, bg, bold, dim, italic,
 * underline, inverse }`), as the native `screenCells()` gives them.
 */
function renderSvg(screen, cells) {
  const { cols, rows, cursor } = screen
  const width = PAD * 2 + cols * CELL_W
  const height = TITLE_H + PAD * 2 + rows * CELL_H
  const top = TITLE_H + PAD
  const out = []
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(width)}" height="${num(height)}" viewBox="0 0 ${num(width)} ${num(height)}"` +
      ` data-cols="${cols}" data-rows="${rows}" data-cell-width="${CELL_W}" data-cell-height="${CELL_H}"` +
      ` data-left="${PAD}" data-top="${top}">`,
  )
  const title = screen.title === '' ? 'terminal' : screen.title
  out.push(`<title>${xmlText(`${title} (${cols}×${rows})`)}</title>`)
  out.push(`<rect width="100%" height="100%" rx="6" fill="${THEME.background}"/>`)
  out.push(`<rect width="100%" height="${TITLE_H}" rx="6" fill="${THEME.titleBar}"/>`)
  out.push(`<rect y="${TITLE_H - 6}" width="100%" height="6" fill="${THEME.titleBar}"/>`)
  for (const [i, dot] of ['#ff5f57', '#febc2e', '#28c840'].entries()) {
    out.push(`<circle cx="${14 + i * 18}" cy="${TITLE_H / 2}" r="5" fill="${dot}"/>`)
  }
  out.push(
    `<text class="title" x="${num(width / 2)}" y="${TITLE_H / 2 + 4}" text-anchor="middle" fill="${THEME.titleText}"` +
      ` font-family="${FONT_FAMILY}" font-size="12">${xmlText(title)} — ${cols}×${rows}</text>`,
  )
  // Backgrounds first, under all text: one rectangle per run of a colour.
  out.push('<g class="backgrounds" shape-rendering="crispEdges">')
  cells.forEach((row, r) => {
    let run = null
    const flush = () => {
      if (run === null) return
      out.push(
        `<rect x="${num(PAD + run.col * CELL_W)}" y="${num(top + r * CELL_H)}" width="${num(run.width * CELL_W)}" height="${CELL_H}" fill="${run.bg}"/>`,
      )
      run = null
    }
    for (const cell of row) {
      const { bg } = cellColours(cell)
      if (bg === null) {
        flush()
      } else if (run !== null && run.bg === bg && run.col + run.width === cell.col) {
        run.width += cell.width
      } else {
        flush()
        run = { col: cell.col, width: cell.width, bg }
      }
    }
    flush()
  })
  out.push('</g>')
  out.push(`<g class="text" font-family="${FONT_FAMILY}" font-size="${FONT_SIZE}" xml:space="preserve" style="white-space: pre">`)
  cells.forEach((row, r) => {
    const y = num(top + r * CELL_H + BASELINE)
    let body = ''
    let i = 0
    while (i < row.length) {
      const cell = row[i]
      const attrs = spanAttributes(cell, cellColours(cell).fg)
      if (!singleUnit(cell)) {
        // A wide character, an emoji, a letter with combining marks: its own span at its column.
        body += `<tspan x="${num(PAD + cell.col * CELL_W)}"${attrs}>${xmlText(cell.text)}</tspan>`
        i++
        continue
      }
      // Cells of one style, each one position of the `x` list.
      let text = ''
      const xs = []
      while (i < row.length && singleUnit(row[i]) && spanAttributes(row[i], cellColours(row[i]).fg) === attrs) {
        xs.push(num(PAD + row[i].col * CELL_W))
        text += row[i].text
        i++
      }
      body += `<tspan x="${xs.join(' ')}"${attrs}>${xmlText(text)}</tspan>`
    }
    out.push(`<text class="row" data-row="${r}" y="${y}">${body}</text>`)
  })
  out.push('</g>')
  if (cursor.visible && cursor.row < rows && cursor.col < cols) {
    const cell = cells[cursor.row]?.find((c) => c.col <= cursor.col && cursor.col < c.col + c.width)
    const w = cell ? cell.width : 1
    const x = cell ? cell.col : cursor.col
    out.push(
      `<rect class="cursor" x="${num(PAD + x * CELL_W)}" y="${num(top + cursor.row * CELL_H)}" width="${num(w * CELL_W)}" height="${CELL_H}"` +
        ` fill="${THEME.cursor}" fill-opacity="0.45"/>`,
    )
  }
  out.push('</svg>')
  return out.join('\n') + '\n'
}

/** The formats `screenshot()` knows. */
const FORMATS = ['svg']

/** Checks `screenshot()`'s options; returns the format. */
function screenshotFormat(options) {
  if (options === undefined) return 'svg'
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidArg(`screenshot() options must be an object such as { format: 'svg' }, got ${describe(options)}`)
  }
  const { format = 'svg', ...rest } = own(options, 'options')
  const extra = Object.keys(rest)
  if (extra.length > 0) throw invalidArg(`unknown option options.${extra[0]}; known options: format`)
  if (!FORMATS.includes(format)) {
    throw invalidArg(`options.format must be one of ${FORMATS.map((f) => `'${f}'`).join(', ')}, got ${describe(format)}`)
  }
  return format
}

/**
 * `screenshot(options)` of something with a native `screenCells()` (a
 * session's or a screen model's): the SVG document as a string.
 */
function screenshot(native, options) {
  screenshotFormat(options)
  const { screen, attributes } = native.screenCells()
  return renderSvg(screen, attributes)
}

module.exports = { screenshot, renderSvg, PALETTE, THEME, CELL_W, CELL_H }
