// The differential fuzzer against a real xterm: `npm run fuzz:xterm`.
//
// Streams come from the fuzz grammar of fuzz/differential.mjs (`piece` and
// `Rng`, without the pieces that ask the terminal something: a reply would
// go to the recorder's `cat`, not to a program), at several sizes in turn
// (XTERM_SIZES: 80x25, 20x5, 10x3, 132x10; stream i at size i mod 4), each
// generated for its size. Each is recorded by a fresh xterm of that size
// (fuzz/xterm-recorder.mjs) and shown by ptypilot's ScreenModel; the rows
// and the cursor are compared as they are and with the rows after NFC
// (xterm precomposes a character and its combining marks where Unicode has
// one character for both; ptypilot keeps what the program wrote, see
// src/core/screen/DIFFERENCES.md). Each difference is shrunk to a minimal
// sequence of pieces against the real xterm and classified by the kinds of
// its pieces; a class covered by XTERM_KNOWN is documented, any other is a
// failure (exit code 1).
//
// The run also backs the xterm.js tier's verdicts: where ptypilot differs
// from xterm.js, the case is shrunk against xterm.js, named by KNOWN, and
// the minimal case recorded by xterm: ptypilot must show it as xterm does.
// BACKING adds one chosen stream for each KNOWN entry, so that every entry
// is checked even when the random streams do not reach it.
//
//   node fuzz/xterm.mjs [streams] [seed] [--jobs=N] [--corpus=FILE]
//
// xterm's screens are kept in a cache (fuzz/.xterm-cache.jsonl, not
// committed; keyed by xterm's version, the size and the stream), so a run
// after a change to ptypilot records only what it has not seen.
// `--corpus=FILE` writes streams and xterm's screens (the first 200
// streams, the chosen ones, each class's minimal stream and the backing of
// every KNOWN entry) for __test__/xterm-corpus.test.ts.

import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { KNOWN, Rng, classOf, knownFor, piece, same, shrink, shrinkPieces, viaPtypilot, viaXterm } from './differential.mjs'
import { XtermRecorder, ensurePrograms, xtermVersion } from './xterm-recorder.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))

/** Pieces that ask the terminal something (dropped: no program reads the reply). */
export const QUERIES = new Set(['DSR', 'OSC-query', 'DCS'])

/** The sizes the streams are recorded at, in turn: [cols, rows]. */
export const XTERM_SIZES = [
  [80, 25],
  [20, 5],
  [10, 3],
  [132, 10],
]

/** One stream: 1 to 16 pieces of the grammar for the size, no queries. */
export function makeStream(rng, cols, rows) {
  const count = 1 + rng.below(16)
  const pieces = []
  while (pieces.length < count) {
    const p = piece(rng, cols, rows)
    if (!QUERIES.has(p[0])) pieces.push(p)
  }
  return pieces
}

export const textOf = (pieces) => pieces.map((p) => p[1]).join('')

const encoder = new TextEncoder()

/** What ptypilot shows at a size: `{ lines, cursor }`, trailing spaces trimmed. */
export function ptypilotView(text, [cols, rows]) {
  const view = viaPtypilot(encoder.encode(text), cols, rows)
  return { lines: view.lines.map((l) => l.replace(/ +$/, '')), cursor: view.cursor }
}

/** What xterm.js shows at a size (`null` where it fails). */
export function xtermjsView(text, [cols, rows]) {
  return viaXterm(encoder.encode(text), cols, rows)
}

/**
 * `identical`, `nfc` (identical with the rows after NFC) or `different`:
 * two views, `{ lines, cursor }`.
 */
export function compare(ours, theirs) {
  const cursor = ours.cursor[0] === theirs.cursor[0] && ours.cursor[1] === theirs.cursor[1]
  if (cursor && ours.lines.every((l, i) => l === theirs.lines[i])) return 'identical'
  if (cursor && ours.lines.every((l, i) => l.normalize('NFC') === theirs.lines[i].normalize('NFC'))) return 'nfc'
  return 'different'
}

/**
 * Where ptypilot shows otherwise than xterm 379 on purpose, by the kinds of
 * a class's pieces (a class is covered when it has every kind of an entry).
 * The ids are DIFFERENCES.md's.
 */
export const XTERM_KNOWN = [
  // Patch #380: mode 45 goes back only over a row that wrapped, never from
  // the home position to the end of the screen (xterm 379: over any row).
  { id: 'revwrap-380', kinds: ['REVWRAP', 'BS'], verdict: 'newer-xterm' },
  { id: 'revwrap-380', kinds: ['REVWRAP', 'CUB'], verdict: 'newer-xterm' },
  // xterm 379 stores a combining character that has nothing to join (no
  // character just printed, a blank under the cursor) as a base character
  // of no width in that cell ("none of the above" in charproc.c's
  // doparsing): in a cell that scrolling or inserting blanked it shows on
  // its own, in one never written it usually does not, and what later text
  // overwrites depends on how xterm's reads split the stream. vt100's grid
  // has no cell of no width and does not tell those blanks apart; ptypilot
  // drops the mark.
  { id: 'lone-mark-blank', kinds: ['lone-mark'], verdict: 'cannot' },
]

/**
 * Streams recorded into the corpus besides the random ones: one for each
 * rule where ptypilot followed another reading of xterm before (issue 53).
 */
export const CHOSEN = [
  'A\u0085B',
  'A\u009b2CB',
  'A\u0090xx\u009cB',
  'A\u0085\u001b[2b',
  '\u001b(Ahello #\u001b(B#',
  '\u001b)A\u000eab\u000f#',
  '\u0301AB',
  'ab\u001b[1G\u0301',
  '\u001b[5G\u0301Y',
  'q\u001b[21I\u0301',
  'ab\t\t\u0301Z',
  'a\u200db\u200bc\ufeffd',
  'a\u200d\u001b[2b',
  '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}|',
  '1\r\n2\u001b[0T\u001b[;T',
  '1\r\n2\u001b[T',
  'abcdef\u001b[2;5sX\u001b[u',
  'ab\u001b[s\u001b[2;5HX\u001b[2uY',
  '\u001b[?7l\u001b[1;80H\u65e5\ufe0f',
  'e\u0301|a\u0300\u0301|',
  '\u001b[2;1H\u001b[?45h\b\bX',
  'ab\u001b[?1047h\u0301',
  'ab\u001b[?47hxy\u001b[?47l\u0301',
  'ab\u001b[?47hxy\u001b[?47l\u001b[?47h',
  'ab\u001b[?1047hxy\u001b[?1047l\u001b[?1047h',
  'ab\u001b[?47hxy\u001b[?47l\u001b[?1047h',
  'ab\u001b[?1047hxy\u001b[?47l\u001b[?1049h',
  'ab\u001b[?1049hxy\u001b[?1049l\u001b[?47h',
  '\u001b[?7l\u001b[1;80H\u65e5\u0301',
  'a\u001b[?7l\u001b[1;80H\u65e5\ufe0f',
]

/** The chosen streams ptypilot shows otherwise, on purpose or not yet: their ids. */
export const CHOSEN_KNOWN = {
  '\u001b[2;1H\u001b[?45h\b\bX': 'revwrap-380',
  'a\u001b[?7l\u001b[1;80H\u65e5\ufe0f': 'mark-after-dropped-wide',
  // Reverse wraparound as patch #380 and later have it (recorded from
  // xterm 412, see DIFFERENCES.md); xterm 379 goes up over any row.
  '\u001b[?45hx\r\nccccccccccccccccccccc\u001b[2;1H\u001b[M\r\bZ': 'revwrap-380',
  '\u001b[3;4r\u001b[?45h\u001b[1;1H\bX': 'revwrap-380',
  [`\u001b[?45h${'w'.repeat(90)}\u001b[2;3r\u001b[5;11H\u001b[80DX`]: 'revwrap-margins',
}

const E = '\u001b'
const CSI = `${E}[`

/**
 * One chosen stream for each KNOWN entry of the xterm.js tier (most from
 * __test__/fidelity.test.ts's cases where xterm.js departs from xterm): the
 * real xterm records each, ptypilot must show it as xterm does and xterm.js
 * otherwise. `[id, size, stream]`.
 */
export const BACKING = [
  ['erase-at-wrap', [20, 5], `${'e'.repeat(20)}${CSI}KX\r\n${'f'.repeat(20)}${CSI}0JY`],
  ['back-tab-at-wrap', [20, 5], `${'c'.repeat(20)}${CSI}Z`],
  ['columns-at-wrap', [20, 5], `${'x'.repeat(20)}\r\n${'y'.repeat(20)}${CSI}'}Z`],
  ['lines-outside-at-wrap', [20, 5], `${CSI}1;3r${CSI}5;1H${'i'.repeat(20)}${CSI}LX`],
  ['restore-wrap', [20, 5], `${'s'.repeat(20)}${E}7${CSI}4;4H${E}8X${CSI}3;1H${'t'.repeat(20)}${CSI}s${CSI}1;1H${CSI}uY`],
  ['restore-wrap', [20, 5], `${CSI}?1049h${'r'.repeat(20)}${E}7\nmid${CSI}S${E}8^`],
  ['switch-clears-at-wrap', [20, 5], `${'a'.repeat(20)}${CSI}?1049hX`],
  ['alt-twice', [20, 5], `${CSI}?1049halt${CSI}?1049hX`],
  ['alt-kept', [80, 25], `ab${CSI}?47hxy${CSI}?47l${CSI}?47h`],
  ['switch-margins', [20, 5], `${CSI}2;3r${CSI}?1049h${CSI}3;1HA\r\nB\r\nC${CSI}?6h${CSI}1;5HO`],
  ['switch-tabs', [20, 5], `${CSI}3g${CSI}5G${E}H${CSI}?1049h\r\tX`],
  ['wide-no-fit', [20, 5], `${'z'.repeat(20)}${CSI}1;20H\u65e5`],
  ['nowrap-wide', [20, 5], `${CSI}?7l${'a'.repeat(18)}\u65e5q`],
  ['lone-mark', [20, 5], `abc\r\u0301${CSI}2;5H\u0301x`],
  ['lr-margins', [10, 4], `${CSI}?69h${CSI}3;6sabcdefghij\r\nX`],
  ['lrmm-save', [20, 5], `abc${CSI}?69h${CSI}sX`],
  ['reverse-cub', [20, 5], `${CSI}?45h${'b'.repeat(22)}${CSI}4DX`],
  ['revwrap-nowrap', [20, 5], `${CSI}?45h${'w'.repeat(22)}\r${CSI}?7l\bY${CSI}3;1H${'n'.repeat(20)}\bX`],
  ['revwrap-row', [20, 5], `${CSI}?45h${'a'.repeat(21)}${CSI}L\r\bX`],
  ['revwrap-row', [20, 5], `${CSI}?45hx\r\n${'c'.repeat(21)}${CSI}2;1H${CSI}M\r\bZ`],
  ['revwrap-row', [20, 5], `${CSI}?45h${'l'.repeat(21)}\r${CSI}A\n\bX`],
  ['revwrap-outside', [20, 5], `${CSI}3;4r${CSI}?45h${CSI}1;1H\bX`],
  ['revwrap-outside', [20, 5], `${CSI}?45h${'w'.repeat(90)}${CSI}2;3r${CSI}5;11H${CSI}80DX`],
  ['decaln-origin', [20, 5], `${CSI}2;4r${CSI}?6h${E}#8${CSI}1;1HX`],
  ['decaln-margins', [20, 5], `${CSI}?6h${CSI}31m${E}#8${CSI}2;3r${CSI}1;1HX`],
  ['rep-marks', [20, 5], `e\u0301${CSI}2b\r\n\u65e5\u0301${CSI}2b`],
  ['tab-mark', [20, 5], `ab\t\u0301Z`],
  ['sd-zero', [20, 5], `1\r\n2${CSI}0T`],
  ['c1-utf8', [20, 5], 'A\u0085B\u009b2C\u0090x\u009c'],
  ['latin1-g0', [20, 5], `${E}(Ajx #${E}(B#`],
  ['format-chars', [20, 5], 'a\u200db\u200bc\ufeffd'],
  ['saved-cursor-scroll', [20, 5], `${CSI}3;1Hab${E}7\n\n\n\n\n${E}8X`],
  ['lnm-ris', [20, 5], `${CSI}20h${E}ca\nb`],
  ['charset-restore', [20, 5], `${E})0${E}7${E})B${E}8\u000eq`],
  ['origin-restore', [20, 5], `${CSI}2;4r${CSI}?6h${E}7${CSI}?6l${E}8${CSI}1;1HX`],
  ['origin-moves', [20, 5], `${CSI}2;4r${CSI}?6h${CSI}2;1H${CSI}3CX`],
]

/** The documented entry that covers a class, if any. */
export function xtermKnownFor(cls) {
  const kinds = new Set(cls.split('+'))
  return XTERM_KNOWN.find((k) => k.kinds.every((kind) => kinds.has(kind)))
}

/**
 * The class of a minimal stream: its kinds, sorted, plain text left out;
 * `lone-mark` when a combining piece starts with a mark (no character of its
 * own before it).
 */
export function xtermClassOf(pieces) {
  const kinds = new Set(pieces.map((p) => p[0]))
  if (kinds.size > 1) kinds.delete('text')
  if (pieces.some(([kind, text]) => kind === 'combining' && /^\p{M}/u.test(text))) kinds.add('lone-mark')
  return [...kinds].sort().join('+')
}

/** A cache of xterm's screens, one JSON line per size and stream. */
export class ScreenCache {
  constructor(file, version) {
    this.file = file
    this.version = version
    this.map = new Map()
    if (file && fs.existsSync(file)) {
      for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
        if (!line) continue
        const entry = JSON.parse(line)
        if (entry.version === version && entry.view) this.map.set(`${entry.size}:${entry.stream}`, entry.view)
      }
    }
  }
  get(stream, size) {
    return this.map.get(`${size}:${stream}`)
  }
  set(stream, size, view) {
    this.map.set(`${size}:${stream}`, view)
    if (this.file) fs.appendFileSync(this.file, `${JSON.stringify({ version: this.version, size, stream, view })}\n`)
  }
}

/** An oracle: xterm's view of a stream at a size, from the cache or a recording. */
export function oracle(recorder, cache) {
  const pending = new Map()
  return async (text, size) => {
    const cached = cache.get(text, size)
    if (cached) return cached
    const key = `${size}:${text}`
    if (!pending.has(key)) {
      pending.set(
        key,
        recorder.record(text, { cols: size[0], rows: size[1] }).then((view) => {
          cache.set(text, size, view)
          pending.delete(key)
          return view
        }),
      )
    }
    return pending.get(key)
  }
}

/** The smallest sub-sequence of pieces (and shortest texts) that still differs from xterm. */
export function shrinkAgainst(xterm, pieces, size) {
  return shrinkPieces(
    pieces,
    async (p) => compare(ptypilotView(textOf(p), size), await xterm(textOf(p), size)) === 'different',
  )
}

/** True when xterm.js shows what xterm recorded (the rows after NFC, and the cursor). */
const xtermjsShows = (text, size, view) => {
  const theirs = xtermjsView(text, size)
  return theirs !== null && compare(theirs, view) !== 'different'
}

/** Runs `streams` streams from `seed` over `sizes`; returns the counts, classes and backings. */
export async function runXterm({
  streams,
  seed,
  sizes = XTERM_SIZES,
  jobs = 3,
  cacheFile,
  onClass,
  onProgress,
  shrinkLimit = 3,
  extra = [],
  backing = BACKING,
}) {
  const version = xtermVersion()
  const cache = new ScreenCache(cacheFile, version)
  const rng = new Rng(seed)
  const all = []
  for (let s = 0; s < streams; s++) {
    const size = sizes[s % sizes.length]
    all.push({ size, pieces: makeStream(rng, size[0], size[1]) })
  }
  let recorder = null
  const getRecorder = async () => {
    recorder ??= new XtermRecorder({ jobs }).start()
    return recorder
  }
  const lazy = {
    record: async (text, size) => (await getRecorder()).record(text, size),
  }
  const xterm = oracle(lazy, cache)
  // A difference counts only when xterm shows it again: its screen can
  // depend on how its reads split the stream (a lone mark written as a base
  // character of no width).
  const repeats = async (text, size, view) => {
    const again = await Promise.all([0, 1].map(() => lazy.record(text, { cols: size[0], rows: size[1] })))
    return again.every((a) => compare(a, view) === 'identical')
  }
  const counts = { identical: 0, nfc: 0, different: 0, unstable: 0 }
  const bySize = new Map(sizes.map((size) => [String(size), { identical: 0, nfc: 0, different: 0, unstable: 0 }]))
  const results = []
  try {
    let done = 0
    await Promise.all(
      all.map(async ({ size, pieces }, index) => {
        const text = textOf(pieces)
        const view = await xterm(text, size).catch(() => null)
        if (!view) {
          counts.unrecorded = (counts.unrecorded ?? 0) + 1
          results[index] = { size, pieces, text, view, verdict: 'unrecorded' }
          return
        }
        let verdict = compare(ptypilotView(text, size), view)
        if (verdict === 'different' && !(await repeats(text, size, view))) verdict = 'unstable'
        counts[verdict]++
        bySize.get(String(size))[verdict]++
        results[index] = { size, pieces, text, view, verdict }
        done++
        if (onProgress && done % 100 === 0) onProgress({ done, ...counts })
      }),
    )
    // Shrink the differences, a few per class of the unshrunk kinds (a
    // shrink costs tens of recordings).
    const classes = new Map()
    const tried = new Map()
    for (const r of results) {
      if (r.verdict !== 'different') continue
      const rough = xtermClassOf(r.pieces)
      if ((tried.get(rough) ?? 0) >= shrinkLimit && classes.size > 0) {
        // Counted against the class its unshrunk kinds cover, if one does.
        const fit = [...classes.values()].find((c) => c.cls.split('+').every((k) => rough.split('+').includes(k)))
        if (fit) {
          fit.count++
          r.cls = fit.cls
          continue
        }
      }
      tried.set(rough, (tried.get(rough) ?? 0) + 1)
      let small = await shrinkAgainst(xterm, r.pieces, r.size)
      // A minimal stream whose screen xterm does not repeat is no example:
      // the stream as it came is kept instead.
      if (!(await repeats(textOf(small), r.size, await xterm(textOf(small), r.size)))) small = r.pieces
      const cls = xtermClassOf(small)
      r.cls = cls
      const entry = classes.get(cls)
      if (entry) {
        entry.count++
      } else {
        const text = textOf(small)
        const found = {
          cls,
          count: 1,
          size: r.size,
          example: text,
          xterm: await xterm(text, r.size),
          ptypilot: ptypilotView(text, r.size),
          known: xtermKnownFor(cls),
        }
        classes.set(cls, found)
        onClass?.(found)
      }
    }
    // The xterm.js tier's verdicts: each stream where ptypilot differs from
    // xterm.js, shrunk against xterm.js and named by KNOWN; its minimal case
    // recorded by xterm. Backed where ptypilot shows it as xterm does and
    // xterm.js does not.
    const backings = new Map()
    const backingOf = (id) => {
      if (!backings.has(id)) backings.set(id, { streams: 0, asXterm: 0, minimal: 0, minimalAsXterm: 0, examples: [] })
      return backings.get(id)
    }
    for (const r of results) {
      const kase = { cols: r.size[0], rows: r.size[1], pieces: r.pieces }
      if (!r.view || same(kase)) continue
      const small = await shrink(kase)
      const id = knownFor(classOf(small))?.id ?? 'not known'
      const b = backingOf(id)
      b.streams++
      if (r.verdict === 'identical' || r.verdict === 'nfc') b.asXterm++
      const text = textOf(small.pieces)
      const view = await xterm(text, r.size).catch(() => null)
      if (!view) continue
      const verdict = compare(ptypilotView(text, r.size), view)
      b.minimal++
      if (verdict !== 'different') b.minimalAsXterm++
      if (b.examples.length < 2 && !b.examples.some((e) => e.stream === text)) {
        b.examples.push({ stream: text, size: r.size, view, verdict, xtermjsDiffers: !xtermjsShows(text, r.size, view) })
      }
    }
    const chosen = await Promise.all(
      [
        ...extra.map((stream) => ({ stream, size: [80, 25] })),
        ...backing.map(([id, size, stream]) => ({ id, stream, size })),
      ].map(async (c) => {
        // A stream that makes xterm fail (xterm 398 and 412 crash on some
        // reverse wraps) has no view.
        const view = await xterm(c.stream, c.size).catch(() => null)
        return { ...c, view, verdict: view ? compare(ptypilotView(c.stream, c.size), view) : 'unrecorded' }
      }),
    )
    for (const c of chosen) {
      if (!c.id || !c.view) continue
      const b = backingOf(c.id)
      b.chosen = (b.chosen ?? 0) + 1
      if (c.verdict !== 'different') b.chosenAsXterm = (b.chosenAsXterm ?? 0) + 1
      else if (CHOSEN_KNOWN[c.stream]) b.chosenDocumented = (b.chosenDocumented ?? 0) + 1
      c.xtermjsDiffers = !xtermjsShows(c.stream, c.size, c.view)
    }
    return { version, streams, sizes, counts, bySize, classes: [...classes.values()], results, chosen, backings }
  } finally {
    if (recorder) (await recorder).close()
  }
}

/** A stream or rows as a JS literal, C1 controls escaped too. */
export const literal = (value) =>
  JSON.stringify(value).replace(/[\u0080-\u009f\u00a0\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/g, (c) =>
    `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )

/** The rows down to the last one that is not empty. */
const shown = (rows) => {
  let n = rows.length
  while (n > 0 && rows[n - 1] === '') n--
  return rows.slice(0, n)
}

/** A view as one line: its rows shown and the cursor. */
const describe = (view) => `${literal(shown(view.lines))} cursor ${view.cursor.join(',')}`

async function main() {
  const args = process.argv.slice(2)
  const option = (name, fallback) => {
    const a = args.find((x) => x.startsWith(`--${name}=`))
    return a ? a.slice(name.length + 3) : fallback
  }
  const [streamsArg, seedArg] = args.filter((a) => !a.startsWith('--'))
  const streams = Number(streamsArg ?? 1000)
  const seed = Number(seedArg ?? 20261207)
  const jobs = Number(option('jobs', 3))
  const corpus = option('corpus', null)
  ensurePrograms()
  const start = Date.now()
  const result = await runXterm({
    streams,
    seed,
    jobs,
    cacheFile: option('cache', path.join(here, '.xterm-cache.jsonl')),
    extra: corpus ? CHOSEN : [],
    onClass: (c) =>
      console.log(`${c.known ? 'known' : 'NEW'} class ${c.cls} at ${c.size.join('x')}: ${literal(c.example)}\n` +
        `    xterm    ${describe(c.xterm)}\n    ptypilot ${describe(c.ptypilot)}`),
    onProgress: (p) =>
      console.error(`  ${p.done} streams: ${p.identical} identical, ${p.nfc} after NFC, ${p.different} different, ${p.unstable} unstable, ` +
        `${((Date.now() - start) / 1000).toFixed(0)} s`),
  })
  const { counts } = result
  const pct = (n, of = streams) => ((100 * n) / of).toFixed(1)
  const unknown = result.classes.filter((c) => !c.known)
  const documented = result.classes.filter((c) => c.known).reduce((n, c) => n + c.count, 0)
  console.log(
    `xterm differential (${result.version}, seed ${seed}): ${streams} streams at ` +
      `${result.sizes.map((s) => s.join('x')).join(', ')} in ` +
      `${((Date.now() - start) / 1000).toFixed(0)} s: ${counts.identical} identical (${pct(counts.identical)} %), ` +
      `${counts.identical + counts.nfc} identical after NFC (${pct(counts.identical + counts.nfc)} %), ` +
      `${counts.different} different (${documented} of them in documented classes), ` +
      `${counts.unstable} whose difference xterm did not repeat, ${counts.unrecorded ?? 0} xterm failed on, ` +
      `${result.classes.length} classes (${unknown.length} not documented)`,
  )
  for (const [size, c] of result.bySize) {
    const n = c.identical + c.nfc + c.different + c.unstable
    console.log(
      `  at ${size.replace(',', 'x')}: ${n} streams, ${c.identical} identical, ${c.identical + c.nfc} after NFC ` +
        `(${pct(c.identical + c.nfc, n)} %), ${c.different} different, ${c.unstable} unstable`,
    )
  }
  for (const c of result.classes.sort((a, b) => b.count - a.count)) {
    console.log(`  ${String(c.count).padStart(5)}  ${c.known ? `${c.known.verdict}:${c.known.id}` : 'NEW'}  ${c.cls}`)
  }
  console.log(
    'the xterm.js tier\'s verdicts: by known class, streams where ptypilot differs from xterm.js (of them shown as ' +
      'xterm does), their minimal cases (shown as xterm does), the chosen streams (shown as xterm does)',
  )
  let unbacked = 0
  for (const [id, b] of [...result.backings].sort((a, b) => b[1].streams - a[1].streams)) {
    const ok = b.minimal === b.minimalAsXterm && (b.chosen ?? 0) === (b.chosenAsXterm ?? 0) + (b.chosenDocumented ?? 0)
    if (!ok) unbacked++
    console.log(
      `  ${ok ? '  ' : '!!'} ${id.padEnd(22)} ${b.streams} (${b.asXterm}), minimal ${b.minimal} (${b.minimalAsXterm}), ` +
        `chosen ${b.chosen ?? 0} (${b.chosenAsXterm ?? 0}${b.chosenDocumented ? `, ${b.chosenDocumented} documented` : ''})`,
    )
    for (const e of b.examples.filter((e) => e.verdict === 'different')) {
      console.log(`       ${e.size.join('x')} ${literal(e.stream)}\n         xterm    ${describe(e.view)}\n` +
        `         ptypilot ${describe(ptypilotView(e.stream, e.size))}`)
    }
  }
  for (const c of result.chosen.filter((c) => c.verdict === 'unrecorded')) {
    console.log(`  chosen ${c.id ?? ''} ${c.size.join('x')} ${literal(c.stream)}: xterm failed (exited before it printed the screen)`)
  }
  for (const c of result.chosen.filter((c) => c.verdict === 'different' || (c.id && c.view && !c.xtermjsDiffers))) {
    console.log(`  chosen ${c.id ?? ''} ${c.size.join('x')} ${literal(c.stream)}: ${c.verdict}` +
      `${c.id && !c.xtermjsDiffers ? ', xterm.js shows it as xterm does' : ''}\n` +
      `       xterm    ${describe(c.view)}\n       ptypilot ${describe(ptypilotView(c.stream, c.size))}`)
  }
  if (corpus && args.includes('--add')) {
    // Another xterm's recordings of the chosen streams (PTYPILOT_XTERM_ROOT):
    // those ptypilot shows as it does, added to the corpus with its version
    // (replacing that version's earlier ones).
    const doc = JSON.parse(fs.readFileSync(corpus, 'utf8'))
    doc.entries = doc.entries.filter((e) => e.version !== result.version)
    for (const c of result.chosen) {
      if (c.verdict !== 'identical' && c.verdict !== 'nfc') continue
      if (c.id && !c.xtermjsDiffers) continue
      doc.entries.push({
        stream: c.stream,
        size: c.size,
        xterm: shown(c.view.lines),
        cursor: c.view.cursor,
        known: null,
        version: result.version,
        ...(c.id ? { backs: c.id } : {}),
      })
    }
    fs.writeFileSync(corpus, `${JSON.stringify(doc, null, 1)}\n`)
    console.log(`added ${result.version}'s screens to ${corpus}: ${doc.entries.length} entries`)
  } else if (corpus) {
    // The first 200 streams (50 at each size), the chosen ones, each class's
    // minimal stream and the backings, with xterm's rows and cursor. A
    // stream whose difference xterm did not repeat is left out; one that
    // differs carries its class's id.
    const entry = (stream, size, view, extra) => ({ stream, size, xterm: shown(view.lines), cursor: view.cursor, ...extra })
    const entries = result.results
      .slice(0, 200)
      .filter((r) => r.verdict !== 'unstable')
      .map((r) =>
        entry(r.text, r.size, r.view, {
          known: r.verdict === 'different' ? (xtermKnownFor(r.cls ?? '')?.id ?? 'not documented') : null,
        }),
      )
    for (const c of result.chosen) {
      const known = c.verdict === 'different' ? (CHOSEN_KNOWN[c.stream] ?? 'not documented') : null
      entries.push(entry(c.stream, c.size, c.view, { known, ...(c.id ? { backs: c.id } : {}) }))
    }
    for (const c of result.classes) {
      entries.push(entry(c.example, c.size, c.xterm, { known: c.known?.id ?? null }))
    }
    for (const [id, b] of result.backings) {
      if (id === 'not known') continue
      for (const e of b.examples) {
        if (e.verdict === 'different' || !e.xtermjsDiffers) continue
        entries.push(entry(e.stream, e.size, e.view, { known: null, backs: id }))
      }
    }
    const doc = {
      about:
        `Screens recorded from a real xterm (${result.version}, Debian, -u8, LANG=C.UTF-8, at each entry's ` +
        `size [cols, rows]) by node fuzz/xterm.mjs ${streams} ${seed} --corpus; rows down to the last one ` +
        'shown, the cursor [row, col] from 0; `backs`: the KNOWN entry of fuzz/differential.mjs whose verdict ' +
        'the screen backs (xterm.js shows otherwise).',
      xterm: result.version,
      entries,
    }
    fs.writeFileSync(corpus, `${JSON.stringify(doc, null, 1)}\n`)
    console.log(`wrote ${entries.length} recorded screens to ${corpus}`)
  }
  process.exitCode = unknown.length || unbacked ? 1 : 0
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
