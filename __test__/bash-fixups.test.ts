// applyBashFixups through the public API: tricky quoting cases, and that the stripped command
// prints what the capped one printed, and more (run in a real bash).
import { describe, it, expect } from 'vitest'
import { execFileSync } from 'node:child_process'
import { applyBashFixups } from '../index.js'

describe('applyBashFixups', () => {
  it.each([
    ['ls -la | head -20', 'ls -la'],
    ['make 2>&1 | tail -50', 'make'],
    ["grep -r 'foo|bar' . | head -n 20", "grep -r 'foo|bar' ."],
    ['echo "$(ls | wc -l)" | head -1', 'echo "$(ls | wc -l)"'],
    ['{ ls; pwd; } | head -5', '{ ls; pwd; }'],
    ['ls | sort | head -20 | tail -5', 'ls | sort'],
    ['diff <(ls a) <(ls b) 2>&1', 'diff <(ls a) <(ls b)'],
  ])('%j -> %j', (input, command) => {
    expect(applyBashFixups(input)).toEqual({ command, stripped: true })
  })

  it.each([
    'echo "a | head -5"',
    "echo 'a | head -5'",
    'echo a \\| head -5',
    'echo $(ls | head -5)',
    'echo `ls | head -5`',
    'ls | head -5 file.txt',
    'ls | tail -n +5',
    'ls | head -n "$N"',
    'ls | head -5; echo done',
    'make > log 2>&1',
    'yes | head -3',
    'cat <<EOF | head -1\nx\nEOF',
    "echo 'open | head -1",
  ])('%j is left alone', (input) => {
    expect(applyBashFixups(input)).toEqual({ command: input, stripped: false })
  })

  it('the stripped command prints everything the capped one printed', () => {
    // stderr merged into the output, as in a terminal
    const bash = (cmd: string) => execFileSync('bash', ['-c', `{ ${cmd}; } 2>&1`], { encoding: 'utf8' })
    for (const capped of [
      'seq 1 100 | head -5',
      'seq 1 100 | tail -n 7',
      'printf "%s\\n" a "b|c" d | head -n2',
      'seq 1 30 | sort -n | head -20 | tail -5',
      '{ seq 1 5; seq 6 9 >&2; } 2>&1 | head -3',
    ]) {
      const { command, stripped } = applyBashFixups(capped)
      expect(stripped, capped).toBe(true)
      const before = bash(`${capped}; true`)
      const after = bash(`${command}; true`)
      expect(before.length, capped).toBeGreaterThan(0)
      expect(after.includes(before.trim()), `${capped} -> ${command}`).toBe(true)
      expect(after.length, capped).toBeGreaterThan(before.length)
    }
  })

  it('throws ERR_INVALID_ARG for a command that is not a string', () => {
    expect(() => applyBashFixups(undefined as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
    expect(() => applyBashFixups(42 as never)).toThrow(/command must be a string, got number/)
  })
})
