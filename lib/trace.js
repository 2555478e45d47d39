'use strict'
// Traces: one self-contained HTML file that replays a recording (asciicast
// v2, as the `record` option and `ptypilot/vitest`'s `record` write it) in
// xterm.js, for `ptypilot view <recording.cast>` and failing Vitest tests.
//
// The page shows the screen as xterm.js draws it at any moment, a slider over
// the events, and a timeline of output, input and resizes; input is shown as
// the keys it stands for (named keys, typed text, pastes, mouse reports),
// read with ptypilot's own key parsers. xterm.js and its stylesheet are
// inlined from the @xterm/xterm package, so the file opens anywhere, offline.
// The page exposes `window.trace` (`seek(n)`, `position`, `lines()`,
// `events`) for scripts and tests.

const { readFileSync, writeFileSync } = require('node:fs')
const { basename } = require('node:path')
const { readRecording } = require('./recording.js')
const { parseKey, parseMouseSequence } = require('./keys.js')
const { invalidArg, codedError, describe } = require('./errors.js')

/** Escapes text for HTML. */
function html(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c])
}

/** Text safe inside a <script> or <style> element. */
function inlined(text) {
  return text.replace(/<\/(script|style)/gi, '<\\/$1').replace(/<!--/g, '<\\!--')
}

/** Length of the escape sequence at the start of `s` (which starts with ESC), or 0. */
function sequenceLength(s) {
  if (s.length < 2) return 0
  const second = s[1]
  if (second === '[') {
    // A mouse report in the default or UTF-8 form: ESC [ M and three characters.
    if (s[2] === 'M' && s.length >= 6) return 6
    for (let i = 2; i < s.length; i++) {
      const c = s.charCodeAt(i)
      if (c >= 0x40 && c <= 0x7e) return i + 1
      if (c < 0x20 || c > 0x7e) return 0
    }
    return 0
  }
  if (second === 'O') return s.length >= 3 ? 3 : 0
  return 0
}

/**
 * What a chunk of input stands for, as tokens: `{ kind: 'text', text }`
 * (printable characters), `{ kind: 'key', name }` (`enter`, `ctrl+c`,
 * `alt+x`, `up`), `{ kind: 'paste', text }` (a bracketed paste),
 * `{ kind: 'mouse', ... }` (a mouse report, as `parseMouseSequence` reads
 * it) or `{ kind: 'unknown', text }`.
 */
function inputTokens(data) {
  const tokens = []
  const push = (token) => {
    const last = tokens[tokens.length - 1]
    if (token.kind === 'text' && last && last.kind === 'text') last.text += token.text
    else tokens.push(token)
  }
  let i = 0
  while (i < data.length) {
    const rest = data.slice(i)
    if (rest.startsWith('\x1b[200~')) {
      const end = rest.indexOf('\x1b[201~')
      const body = end === -1 ? rest.slice(6) : rest.slice(6, end)
      push({ kind: 'paste', text: body })
      i += end === -1 ? rest.length : end + 6
      continue
    }
    if (rest[0] === '\x1b') {
      const n = sequenceLength(rest)
      const seq = n > 0 ? rest.slice(0, n) : ''
      const mouse = seq ? parseMouseSequence(seq) : null
      if (mouse) {
        push({ kind: 'mouse', ...mouse })
        i += n
        continue
      }
      const key = seq ? parseKey(seq) : null
      if (key) {
        push({ kind: 'key', name: key })
        i += n
        continue
      }
      // ESC and one character is alt with that key; a lone ESC is esc.
      const cp = rest.codePointAt(1)
      const alt = cp === undefined ? null : parseKey(rest.slice(0, 1 + String.fromCodePoint(cp).length))
      if (alt) {
        push({ kind: 'key', name: alt })
        i += 1 + String.fromCodePoint(cp).length
        continue
      }
      if (n > 0) {
        push({ kind: 'unknown', text: seq })
        i += n
        continue
      }
      push({ kind: 'key', name: 'esc' })
      i += 1
      continue
    }
    const ch = String.fromCodePoint(rest.codePointAt(0))
    const code = ch.codePointAt(0)
    if (code < 0x20 || code === 0x7f) push({ kind: 'key', name: parseKey(ch) ?? `0x${code.toString(16)}` })
    else push({ kind: 'text', text: ch })
    i += ch.length
  }
  return tokens
}

/** One line for people: `"ls" enter`, `ctrl+c`, `mouse press left at 10,4`. */
function describeInput(data) {
  return inputTokens(data)
    .map((t) => {
      switch (t.kind) {
        case 'text':
          return JSON.stringify(t.text)
        case 'key':
          return `<${t.name}>`
        case 'paste':
          return `paste ${JSON.stringify(t.text.length > 60 ? `${t.text.slice(0, 60)}…` : t.text)}`
        case 'mouse': {
          const mods = ['shift', 'alt', 'ctrl'].filter((m) => t[m])
          return `mouse ${t.action}${t.button ? ` ${t.button}` : ''}${mods.length ? ` ${mods.join('+')}` : ''} at ${t.col},${t.row}`
        }
        default:
          return JSON.stringify(t.text)
      }
    })
    .join(' ')
}

/** Output as a short line for people: escape sequences dropped, controls shown. */
function describeOutput(data) {
  const plain = data
    // OSC strings (titles, colours), CSI and other escape sequences.
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g, '')
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\x1b[PX^_][^\x1b]*(?:\x1b\\)?/g, '')
    .replace(/\x1b./g, '')
    .replace(/\r\n|\n/g, '⏎')
    .replace(/[\x00-\x1f\x7f]/g, '')
  return plain.length > 100 ? `${plain.slice(0, 100)}…` : plain
}

/** xterm.js and its stylesheet, from the @xterm/xterm package. */
function xtermAssets() {
  let js
  let css
  try {
    js = readFileSync(require.resolve('@xterm/xterm/lib/xterm.js'), 'utf8')
    css = readFileSync(require.resolve('@xterm/xterm/css/xterm.css'), 'utf8')
  } catch (err) {
    throw codedError('ERR_INTERNAL', `cannot read xterm.js from the @xterm/xterm package (a dependency of ptypilot): ${err.message}`)
  }
  return { js, css }
}

/** The page's own script: the player. Reads `TRACE` (the header and the events). */
const PLAYER = String.raw`
(() => {
  const { header, events } = TRACE
  const term = new Terminal({
    cols: header.width, rows: header.height, scrollback: 1000, convertEol: false,
    disableStdin: true, cursorBlink: false, allowProposedApi: true,
    fontFamily: "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace", fontSize: 14,
  })
  term.open(document.getElementById('screen'))
  const slider = document.getElementById('slider')
  const clock = document.getElementById('clock')
  const items = [...document.querySelectorAll('#timeline li')]
  let position = 0
  let busy = Promise.resolve()
  const write = (data) => new Promise((resolve) => term.write(data, resolve))

  // Seeks are applied in order; only the newest one moves the slider, so an
  // older seek that finishes while the slider is moving (keys held down)
  // does not pull it back.
  let latest = 0
  // The screen after the first n events: forward from here, or again from the start.
  async function apply(n, id) {
    n = Math.max(0, Math.min(events.length, Math.floor(n)))
    if (n < position) {
      term.reset()
      term.resize(header.width, header.height)
      position = 0
    }
    for (; position < n; position++) {
      const [, kind, data] = events[position]
      if (kind === 'o') term.write(data)
      else if (kind === 'r') {
        const m = /^(\d+)x(\d+)$/.exec(data)
        // The output before the resize is drawn at the old size.
        await write('')
        if (m) term.resize(Number(m[1]), Number(m[2]))
      }
    }
    // xterm.js parses in order: once this is parsed, so is everything before it.
    await write('')
    if (id !== latest) return n
    slider.value = String(n)
    const at = n === 0 ? 0 : events[n - 1][0]
    clock.textContent = 'event ' + n + ' of ' + events.length + ' · ' + at.toFixed(3) + ' s'
    items.forEach((li, i) => li.classList.toggle('current', i === n - 1))
    const current = items[n - 1]
    if (current) current.scrollIntoView({ block: 'nearest' })
    return n
  }
  function seek(n) {
    const id = ++latest
    busy = busy.then(() => apply(n, id))
    return busy
  }
  function lines() {
    const buffer = term.buffer.active
    const out = []
    for (let y = 0; y < term.rows; y++) {
      const line = buffer.getLine(buffer.viewportY + y)
      out.push(line ? line.translateToString(true) : '')
    }
    return out
  }
  slider.addEventListener('input', () => seek(Number(slider.value)))
  document.getElementById('prev').addEventListener('click', () => seek(position - 1))
  document.getElementById('next').addEventListener('click', () => seek(position + 1))
  items.forEach((li, i) => li.addEventListener('click', () => seek(i + 1)))
  document.addEventListener('keydown', (e) => {
    // The slider moves itself with the arrow keys.
    if (e.target === slider) return
    if (e.key === 'ArrowLeft') seek(position - 1)
    else if (e.key === 'ArrowRight') seek(position + 1)
  })
  window.trace = {
    term, events, header, seek, lines,
    get position() { return position },
    ready: seek(events.length),
  }
})()
`

const PAGE_CSS = `
body { margin: 0; font: 13px system-ui, sans-serif; background: #f4f4f4; color: #222; display: flex; flex-direction: column; height: 100vh; }
header { padding: 8px 12px; background: #2d2d2d; color: #eee; }
header b { font-weight: 600; }
main { display: flex; flex: 1; min-height: 0; }
#left { padding: 12px; display: flex; flex-direction: column; gap: 8px; }
#screen { background: #000; padding: 4px; display: inline-block; }
#controls { display: flex; align-items: center; gap: 8px; }
#slider { flex: 1; min-width: 300px; }
#clock { font-variant-numeric: tabular-nums; min-width: 14em; }
#timeline { flex: 1; overflow: auto; margin: 0; padding: 8px 12px 8px 36px; border-left: 1px solid #ccc; font: 12px ui-monospace, monospace; }
#timeline li { padding: 1px 4px; cursor: pointer; white-space: pre-wrap; word-break: break-all; }
#timeline li.current { background: #ffe9a8; }
#timeline li:hover { background: #e8e8e8; }
#timeline time { color: #888; margin-right: 6px; }
.kind { display: inline-block; min-width: 4.5em; font-weight: 600; }
li.o .kind { color: #555; } li.i .kind { color: #1a6fd1; } li.r .kind { color: #b05a00; }
`

/**
 * The HTML trace of a recording (a path, or what `readRecording` returned):
 * one self-contained page. `options.title` names it (default: the file name).
 */
function traceHtml(recording, options = {}) {
  const { header, events } = typeof recording === 'string' ? readRecording(recording) : recording
  const title = options.title ?? (typeof recording === 'string' ? basename(recording) : 'recording')
  const { js, css } = xtermAssets()
  const kinds = { o: 'output', i: 'input', r: 'resize' }
  const items = events.map(([at, kind, data]) => {
    const text = kind === 'i' ? describeInput(data) : kind === 'o' ? describeOutput(data) : data
    return `<li class="${html(kind)}"><time>${at.toFixed(3)}</time><span class="kind">${html(kinds[kind] ?? kind)}</span>${html(text)}</li>`
  })
  const duration = events.length > 0 ? events[events.length - 1][0] : 0
  const counts = ['o', 'i', 'r'].map((k) => `${events.filter((e) => e[1] === k).length} ${kinds[k]}`).join(', ')
  const command = typeof header.command === 'string' ? ` · ${html(header.command)}` : ''
  const data = JSON.stringify({ header: { width: header.width, height: header.height }, events })
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${html(title)} — ptypilot trace</title>
<style>${inlined(css)}</style>
<style>${PAGE_CSS}</style>
</head>
<body>
<header><b>${html(title)}</b>${command} · ${header.width}×${header.height} · ${duration.toFixed(3)} s · ${counts}</header>
<main>
<div id="left">
<div id="screen"></div>
<div id="controls"><button id="prev" title="previous event (←)">◀</button><input id="slider" type="range" min="0" max="${events.length}" value="${events.length}" aria-label="moment"><button id="next" title="next event (→)">▶</button><span id="clock"></span></div>
</div>
<ol id="timeline">${items.join('')}</ol>
</main>
<script>${inlined(js)}</script>
<script>const TRACE = ${inlined(data)};</script>
<script>${inlined(PLAYER)}</script>
</body>
</html>
`
}

/**
 * Writes the HTML trace of the recording at `castPath` to `htmlPath`
 * (default: the recording's path with `.html` for `.cast`). Returns the
 * path written.
 */
function writeTrace(castPath, htmlPath) {
  if (typeof castPath !== 'string' || castPath === '') {
    throw invalidArg(`writeTrace() takes the path of an asciicast v2 recording, got ${describe(castPath)}`)
  }
  const out = htmlPath ?? (castPath.endsWith('.cast') ? `${castPath.slice(0, -5)}.html` : `${castPath}.html`)
  if (typeof out !== 'string' || out === '') throw invalidArg(`the trace's path must be a file path, got ${describe(out)}`)
  const page = traceHtml(castPath)
  try {
    writeFileSync(out, page)
  } catch (err) {
    throw invalidArg(`cannot write the trace ${JSON.stringify(out)}: ${err.message}`)
  }
  return out
}

/** `ptypilot view <recording.cast> [-o trace.html]`: returns the exit code. */
function main(args) {
  const usage = 'Usage: ptypilot view <recording.cast> [-o <trace.html>]\n\nWrites one self-contained HTML file that replays the recording in xterm.js:\nthe screen at any moment, a slider, and a timeline of output, input (as keys) and resizes.\n'
  let input
  let output
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a === '-h' || a === '--help') {
      process.stdout.write(usage)
      return 0
    }
    if (a === '-o' || a === '--output') {
      output = args[++i]
      if (output === undefined) {
        process.stderr.write(`ptypilot view: ${a} needs a file name\n\n${usage}`)
        return 2
      }
    } else if (input === undefined && !a.startsWith('-')) {
      input = a
    } else {
      process.stderr.write(`ptypilot view: unexpected argument ${JSON.stringify(a)}\n\n${usage}`)
      return 2
    }
  }
  if (input === undefined) {
    process.stderr.write(usage)
    return 2
  }
  try {
    const written = writeTrace(input, output)
    process.stdout.write(`${written}\n`)
    return 0
  } catch (err) {
    process.stderr.write(`ptypilot view: ${err.message}\n`)
    return 1
  }
}

module.exports = { traceHtml, writeTrace, inputTokens, describeInput, main }
