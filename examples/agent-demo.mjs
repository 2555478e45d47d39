// @ts-check
// The main job of ptypilot, end to end: an LLM agent stages exactly one of
// two changed hunks with `git add --patch`, through the git tool.
//
// A scripted assistant stands in for the model: it sends the JSON tool calls
// a model would send (spawn stage -> apply "y" -> apply "n"), reads each
// ToolState, and decides from the screen text. At the end `git diff --cached`
// proves that exactly the first hunk was staged.
//
//   npm run demo
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ToolRegistry, gitTool } from 'ptypilot'

/** @param {string} text */
const say = (text) => process.stdout.write(text + '\n')
/** @param {string} text @param {string} [pad] */
const indent = (text, pad = '    ') => text.split('\n').map((l) => pad + l).join('\n')

// 1. A repository with one file and two separate changes in it.
const repo = mkdtempSync(join(tmpdir(), 'ptypilot-demo-'))
/** @param {string[]} args */
const git = (...args) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' })
git('init', '-q')
git('config', 'user.name', 'Demo')
git('config', 'user.email', 'demo@example.com')
const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`)
writeFileSync(join(repo, 'notes.txt'), lines.join('\n') + '\n')
git('add', 'notes.txt')
git('commit', '-qm', 'Add notes')
lines[2] = 'line 3: fix the typo (keep this)'
lines[26] = 'line 27: debug print (do not commit)'
writeFileSync(join(repo, 'notes.txt'), lines.join('\n') + '\n')
say(`Repository ${repo}: notes.txt has two changed hunks.\n`)

// 2. The registry the agent harness owns, with the git tool registered.
const registry = new ToolRegistry({ cwd: repo })
registry.register(gitTool())
const [definition] = registry.definitions('anthropic')
say(`Tool offered to the model: "${definition.name}" (commands: stage, rebase, log)\n`)

/**
 * One tool call, printed as the model sent it and as the tool answered.
 * @param {Record<string, unknown>} input
 */
async function toolCall(input) {
  say(`assistant -> git ${JSON.stringify(input)}`)
  const started = Date.now()
  const state = await registry.call('git', input)
  const content = state.state === 'running' ? state.content ?? '' : state.result.ok ? state.result.content : state.result.error.message
  const status = state.state === 'running' ? 'running' : state.result.ok ? 'stopped (ok)' : 'stopped (error)'
  say(`tool      <- ${state.id}: ${status} after ${Date.now() - started} ms\n${indent(content)}\n`)
  return state
}

// 3. The scripted assistant: stage the typo fix, skip the debug print.
const spawned = await toolCall({ action: 'spawn', command: 'stage' })
let state = spawned
const answers = []
while (state.state === 'running') {
  const screen = state.content ?? ''
  if (!/Stage this hunk/.test(screen)) {
    state = await toolCall({ action: 'fetch', id: spawned.id })
    continue
  }
  // Decide on the hunk shown last on the screen.
  const hunk = screen.slice(screen.lastIndexOf('@@'))
  const answer = hunk.includes('keep this') ? 'y' : 'n'
  answers.push(answer)
  state = await toolCall({ action: 'apply', id: spawned.id, input: `${answer}<enter>` })
}

// 4. Proof: only the first hunk is staged.
const staged = git('diff', '--cached')
say('git diff --cached:\n' + indent(staged.trimEnd()))
const ok = answers.join(',') === 'y,n' && staged.includes('keep this') && !staged.includes('debug print')
say(ok ? '\nExactly one hunk was staged.' : '\nUnexpected result: the staged diff is not the first hunk alone.')
await registry.abortAll()
process.exitCode = ok ? 0 : 1
