// Reads the Wine suite's results (scripts/windows/wine-suite.cjs) and prints one line per
// piece. Fails (exit 1) when a piece fails that Wine carries, or when the suite did not run;
// a piece Wine 8 cannot carry (listed below with the reason) is reported, not failed.
'use strict'

const fs = require('node:fs')

/** Pieces Wine 8 cannot carry, and why (see docs/how-it-works.md, "Windows"). @type {Record<string, string>} */
const WINE_CANNOT = {
  'pseudo console: output arrives':
    "Wine 8's pseudo console delivers none of the program's output (tried: invalid std handles as portable-pty sets them, none, the parent's detached, null ones)",
  'pseudo console: typing reaches the program (its exit code is the width it reads)':
    "Wine 8's pseudo console gives the program end-of-file on its console input at once",
  'pseudo console: a resize reaches the program':
    "Wine 8's pseudo console gives the program end-of-file on its console input at once",
}

/** Every piece of scripts/windows/wine-suite.cjs: one missing means the suite ended early. */
const PIECES = [
  'load the addon in Node for Windows',
  'pipes: a console program runs, its output and exit code arrive',
  'pipes: a missing program is ERR_SPAWN with ENOENT',
  'pseudo console: exit code',
  'pseudo console: output arrives',
  'pseudo console: typing reaches the program (its exit code is the width it reads)',
  'pseudo console: a resize reaches the program',
  'terminate ends the whole tree (Job Object)',
]

/**
 * Why a failure is Wine's, or null. Wine 8's CreatePseudoConsole itself fails now and then
 * (HRESULT 0x80070001; 1 run in 4 here), whichever piece opens one.
 * @param {{ name: string, detail: any }} r
 */
function wineReason(r) {
  if (WINE_CANNOT[r.name]) return WINE_CANNOT[r.name]
  if (/cannot open a pseudo console/.test(String(r.detail))) return "Wine 8's CreatePseudoConsole failed (it does so now and then)"
  return null
}

const [resultsFile, nodeOut] = process.argv.slice(2)
if (!fs.existsSync(resultsFile)) {
  const log = fs.existsSync(nodeOut) ? fs.readFileSync(nodeOut, 'utf8').slice(-4000) : '(no output)'
  console.error(`test:windows-wine: the suite wrote no results; Node's output:\n${log}`)
  process.exit(1)
}
/** @type {{ name: string, ok: boolean, detail: any, ms?: number }[]} */
const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'))
let failed = 0
for (const name of PIECES) {
  if (results.some((r) => r.name === name)) continue
  failed++
  const log = fs.existsSync(nodeOut) ? fs.readFileSync(nodeOut, 'utf8').slice(-2000) : '(no output)'
  console.log(`FAIL ${name}: not run (the suite ended early); Node's output:\n${log}`)
}
for (const r of results) {
  const known = r.ok ? null : wineReason(r)
  const mark = r.ok ? 'ok  ' : known ? 'wine' : 'FAIL'
  if (!r.ok && !known) failed++
  const detail = r.ok ? JSON.stringify(r.detail) : known ? `${known} (${r.detail.split('\n')[0]})` : r.detail
  console.log(`${mark} ${r.name} [${r.ms ?? '-'} ms]: ${detail}`)
}
console.log(`test:windows-wine: ${results.filter((r) => r.ok).length} passed, ${failed} failed, ${results.filter((r) => !r.ok && wineReason(r)).length} not carried by Wine`)
process.exit(failed > 0 || results.length === 0 ? 1 : 0)
