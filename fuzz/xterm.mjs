// The differential fuzzer against a real xterm: `npm run fuzz:xterm`.
//
// Streams come from the fuzz grammar of fuzz/differential.mjs (`piece` and
// `Rng`, at 80x25, without the pieces that ask the terminal something: a
// reply would go to the recorder's `cat`, not to a program). Each is
// recorded by a fresh xterm (fuzz/xterm-recorder.mjs) and shown by
// ptypilot's ScreenModel; the rows are compared as they are and after NFC
// (xterm precomposes a character and its combining marks where Unicode has
// one character for both; ptypilot keeps what the program wrote, see
// src/core/screen/DIFFERENCES.md). Each difference is shrunk to a minimal
// sequence of pieces against the real xterm and classified by the kinds of
// its pieces; a class covered by XTERM_KNOWN is documented, any other is a
// failure (exit code 1).
//
//   node fuzz/xterm.mjs [streams] [seed] [--jobs=N] [--corpus=FILE]
//
// xterm's screens are kept in a cache (fuzz/.xterm-cache.jsonl, not
// committed; keyed by xterm's version and the stream), so a run after a
// change to ptypilot records only what it has not seen. `--corpus=FILE`
// writes the streams and xterm's screens (the first 150 streams and each
// class's minimal stream) for __test__/xterm-corpus.test.ts.

import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Rng, classOf, knownFor, piece, same, shrink, viaPtypilot } from './differential.mjs'
import { COLS, ROWS, XtermRecorder, ensurePrograms, xtermVersion } from './xterm-recorder.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))

/** Pieces that ask the terminal something (dropped: no program reads the reply). */
export const QUERIES = new Set(['DSR', 'OSC-query', 'DCS'])

/** One stream: 1 to 16 pieces of the grammar at 80x25, no queries. */
export function makeStream(rng) {
  const count = 1 + rng.below(16)
  const pieces = []
  while (pieces.length < count) {
    const p = piece(rng, COLS, ROWS)
    if (!QUERIES.has(p[0])) pieces.push(p)
  }
  return pieces
}

export const textOf = (pieces) => pieces.map((p) => p[1]).join('')

/** What ptypilot shows at 80x25: its rows. */
export function ptypilotRows(text) {
  return viaPtypilot(new TextEncoder().encode(text), COLS, ROWS).lines.map((l) => l.replace(/ +$/, ''))
}

/** `identical`, `nfc` (identical after NFC) or `different`. */
export function compare(ours, theirs) {
  if (ours.every((l, i) => l === theirs[i])) return 'identical'
  if (ours.every((l, i) => l.normalize('NFC') === theirs[i].normalize('NFC'))) return 'nfc'
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
]

/** The chosen streams ptypilot shows otherwise, on purpose or not yet: their ids. */
export const CHOSEN_KNOWN = {
  '\u001b[2;1H\u001b[?45h\b\bX': 'revwrap-380',
  '\u001b[?7l\u001b[1;80H\u65e5\ufe0f': 'vs16-dropped-wide',
}

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

/** A cache of xterm's screens, one JSON line per stream. */
export class ScreenCache {
  constructor(file, version) {
    this.file = file
    this.version = version
    this.map = new Map()
    if (file && fs.existsSync(file)) {
      for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
        if (!line) continue
        const entry = JSON.parse(line)
        if (entry.version === version) this.map.set(entry.stream, entry.rows)
      }
    }
  }
  get(stream) {
    return this.map.get(stream)
  }
  set(stream, rows) {
    this.map.set(stream, rows)
    if (this.file) fs.appendFileSync(this.file, `${JSON.stringify({ version: this.version, stream, rows })}\n`)
  }
}

/** An oracle: xterm's rows for a stream, from the cache or a recording. */
export function oracle(recorder, cache) {
  const pending = new Map()
  return async (text) => {
    const cached = cache.get(text)
    if (cached) return cached
    if (!pending.has(text)) {
      pending.set(
        text,
        recorder.record(text).then((rows) => {
          cache.set(text, rows)
          pending.delete(text)
          return rows
        }),
      )
    }
    return pending.get(text)
  }
}

/** The smallest sub-sequence of pieces (and shortest texts) that still differs from xterm after NFC. */
export async function shrinkAgainst(xterm, pieces) {
  const differs = async (p) => compare(ptypilotRows(textOf(p)), await xterm(textOf(p))) === 'different'
  for (let progress = true; progress; ) {
    progress = false
    for (let len = pieces.length >> 1 || 1; len >= 1; len >>= 1) {
      for (let i = 0; i + len <= pieces.length; ) {
        const fewer = pieces.slice(0, i).concat(pieces.slice(i + len))
        if (fewer.length > 0 && (await differs(fewer))) {
          pieces = fewer
          progress = true
        } else {
          i += len
        }
      }
      if (len === 1) break
    }
    for (let i = 0; i < pieces.length; i++) {
      const [kind, text] = pieces[i]
      if (kind !== 'text' || text.length < 2) continue
      for (const shorter of [text.slice(0, text.length >> 1), text.slice(1), text.slice(0, -1)]) {
        const p = pieces.slice()
        p[i] = [kind, shorter]
        if (await differs(p)) {
          pieces = p
          progress = true
          break
        }
      }
    }
  }
  return pieces
}

/** Runs `streams` streams from `seed`; returns the counts and classes. */
export async function runXterm({ streams, seed, jobs = 3, cacheFile, onClass, onProgress, shrinkLimit = 3, extra = [] }) {
  const version = xtermVersion()
  const cache = new ScreenCache(cacheFile, version)
  const rng = new Rng(seed)
  const all = []
  for (let s = 0; s < streams; s++) all.push(makeStream(rng))
  let recorder = null
  const needed = all.some((p) => !cache.get(textOf(p)))
  const getRecorder = async () => {
    if (!recorder) recorder = await new XtermRecorder({ jobs }).start()
    return recorder
  }
  if (needed) await getRecorder()
  const lazy = {
    record: async (text) => (await getRecorder()).record(text),
  }
  const xterm = oracle(lazy, cache)
  // A difference counts only when xterm shows it again: its screen can
  // depend on how its reads split the stream (a lone mark written as a base
  // character of no width).
  const repeats = async (text, rows) => {
    const again = await Promise.all([lazy.record(text), lazy.record(text)])
    return again.every((a) => a.every((l, i) => l === rows[i]))
  }
  const counts = { identical: 0, nfc: 0, different: 0, unstable: 0 }
  const results = []
  try {
    let done = 0
    await Promise.all(
      all.map(async (pieces, index) => {
        const text = textOf(pieces)
        const rows = await xterm(text)
        let verdict = compare(ptypilotRows(text), rows)
        if (verdict === 'different' && !(await repeats(text, rows))) verdict = 'unstable'
        counts[verdict]++
        results[index] = { pieces, text, rows, verdict }
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
      let small = await shrinkAgainst(xterm, r.pieces)
      // A minimal stream whose screen xterm does not repeat is no example:
      // the stream as it came is kept instead.
      if (!(await repeats(textOf(small), await xterm(textOf(small))))) small = r.pieces
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
          example: text,
          xterm: await xterm(text),
          ptypilot: ptypilotRows(text),
          known: xtermKnownFor(cls),
        }
        classes.set(cls, found)
        onClass?.(found)
      }
    }
    const chosen = await Promise.all(extra.map(async (stream) => ({ stream, rows: await xterm(stream) })))
    return { version, streams, counts, classes: [...classes.values()], results, chosen }
  } finally {
    recorder?.close()
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
      console.log(`${c.known ? 'known' : 'NEW'} class ${c.cls}: ${literal(c.example)}\n` +
        `    xterm    ${literal(shown(c.xterm))}\n    ptypilot ${literal(shown(c.ptypilot))}`),
    onProgress: (p) =>
      console.error(`  ${p.done} streams: ${p.identical} identical, ${p.nfc} after NFC, ${p.different} different, ${p.unstable} unstable, ` +
        `${((Date.now() - start) / 1000).toFixed(0)} s`),
  })
  const { counts } = result
  const pct = (n) => ((100 * n) / streams).toFixed(1)
  const unknown = result.classes.filter((c) => !c.known)
  const documented = result.classes.filter((c) => c.known).reduce((n, c) => n + c.count, 0)
  console.log(
    `xterm differential (${result.version}, seed ${seed}): ${streams} streams at ${COLS}x${ROWS} in ` +
      `${((Date.now() - start) / 1000).toFixed(0)} s: ${counts.identical} identical (${pct(counts.identical)} %), ` +
      `${counts.identical + counts.nfc} identical after NFC (${pct(counts.identical + counts.nfc)} %), ` +
      `${counts.different} different (${documented} of them in documented classes), ` +
      `${counts.unstable} whose difference xterm did not repeat, ` +
      `${result.classes.length} classes (${unknown.length} not documented)`,
  )
  for (const c of result.classes.sort((a, b) => b.count - a.count)) {
    console.log(`  ${String(c.count).padStart(5)}  ${c.known ? `${c.known.verdict}:${c.known.id}` : 'NEW'}  ${c.cls}`)
  }
  // The xterm.js tier's verdicts, checked here: each stream where ptypilot
  // differs from xterm.js, by the known class it falls in, and whether
  // ptypilot shows what xterm shows there.
  const backing = new Map()
  for (const r of result.results) {
    const kase = { cols: COLS, rows: ROWS, pieces: r.pieces }
    if (same(kase)) continue
    const id = knownFor(classOf(shrink(kase)))?.id ?? 'not known'
    const b = backing.get(id) ?? { streams: 0, asXterm: 0 }
    b.streams++
    if (r.verdict === 'identical' || r.verdict === 'nfc') b.asXterm++
    backing.set(id, b)
  }
  console.log('where ptypilot differs from xterm.js: streams by known class, and how many of them show as xterm does')
  for (const [id, b] of [...backing].sort((a, b) => b[1].streams - a[1].streams)) {
    console.log(`  ${String(b.streams).padStart(5)} ${String(b.asXterm).padStart(5)}  ${id}`)
  }
  if (corpus) {
    // The first 150 streams, the chosen ones and each class's minimal stream,
    // with xterm's rows.
    // A stream whose difference xterm did not repeat is left out; one that
    // differs carries its class's id.
    const entries = result.results
      .slice(0, 150)
      .filter((r) => r.verdict !== 'unstable')
      .map((r) => ({
        stream: r.text,
        xterm: shown(r.rows),
        known: r.verdict === 'different' ? (xtermKnownFor(r.cls ?? '')?.id ?? 'not documented') : null,
      }))
    for (const { stream, rows } of result.chosen) {
      const verdict = compare(ptypilotRows(stream), rows)
      const known = verdict === 'different' ? (CHOSEN_KNOWN[stream] ?? 'not documented') : null
      entries.push({ stream, xterm: shown(rows), known })
    }
    for (const c of result.classes) {
      entries.push({ stream: c.example, xterm: shown(c.xterm), known: c.known?.id ?? null })
    }
    const doc = {
      about:
        `Screens recorded from a real xterm (${result.version}, Debian, -u8, LANG=C.UTF-8, 80x25) by ` +
        `node fuzz/xterm.mjs ${streams} ${seed} --corpus; rows down to the last one shown.`,
      xterm: result.version,
      cols: COLS,
      rows: ROWS,
      entries,
    }
    fs.writeFileSync(corpus, `${JSON.stringify(doc, null, 1)}\n`)
    console.log(`wrote ${entries.length} recorded screens to ${corpus}`)
  }
  process.exitCode = unknown.length ? 1 : 0
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
