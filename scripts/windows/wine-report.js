// Reads the Wine suite's results (scripts/windows/wine-suite.cjs) and prints one line per
// piece. Fails (exit 1) when a piece fails that Wine carries, or when the suite did not run;
// a piece Wine cannot carry (listed below with the reason, and failing for that reason) is
// reported, not failed. "[shim]" marks the pieces that run through the test fixture
// conshim.exe (see wine-suite.cjs).
'use strict'

const fs = require('node:fs')

/** Pieces Wine cannot carry (8 and 10 alike), and why (see docs/how-it-works.md, "Windows"). @type {Record<string, string>} */
const WINE_CANNOT = {
  'pseudo console: a resize reaches the program [shim]':
    'ResizePseudoConsole is not implemented in Wine (E_NOTIMPL, HRESULT 0x80004001)',
}

/** Every piece of scripts/windows/wine-suite.cjs: one missing means the suite ended early. */
const PIECES = [
  'load the addon in Node for Windows',
  'pipes: a console program runs, its output and exit code arrive',
  'pipes: a missing program is ERR_SPAWN with ENOENT',
  'pipes: 0 lost tails (100 runs, 10 at a time)',
  'pseudo console: exit code (cmd.exe /c exit 5)',
  'pseudo console: output arrives [shim]',
  'pseudo console: typing and Enter (\\r) reach cmd.exe, `exit 3` typed ends it with 3 [shim]',
  'pseudo console: Ctrl+C (\\x03) stops a program waiting for it [shim]',
  'waitFor and the screen: the prompt, a typed command and its answer as the model reads them [shim]',
  'a full-screen redraw (console API, every cell) as the model reads it [shim]',
  'session loop: order and completeness, 0 lost tails (100 runs, 10 at a time) [shim]',
  "many sessions at once (50): typed round trips through the Windows wait's one lock [CONIN$]",
  'pseudo console: a resize reaches the program [shim]',
  "conpty.inheritCursor reaches CreatePseudoConsole (Wine's console host refuses the flag: no output) [shim]",
  'Shell on cmd.exe: output, exit codes, state from one run to the next [shim]',
  'Shell on cmd.exe: a timeout stops the command, the next run gets a new shell [shim]',
  'terminate ends the whole tree (Job Object)',
]

/**
 * Why a failure is Wine's, or null. Wine 8's CreatePseudoConsole itself has failed now and then
 * (HRESULT 0x80070001), whichever piece opens one.
 * @param {{ name: string, detail: any }} r
 */
function wineReason(r) {
  if (WINE_CANNOT[r.name] && /0x80004001|not implemented/i.test(String(r.detail))) return WINE_CANNOT[r.name]
  if (/cannot open a pseudo console/.test(String(r.detail))) return "Wine's CreatePseudoConsole failed (Wine 8 does so now and then)"
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
console.log(`test:windows-wine (${process.env.PTYPILOT_WINE_LABEL || 'Wine'}): ${results.filter((r) => r.ok).length} passed, ${failed} failed, ${results.filter((r) => !r.ok && wineReason(r)).length} not carried by Wine`)
process.exit(failed > 0 || results.length === 0 ? 1 : 0)
