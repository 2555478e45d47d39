// Shared helpers for the Vitest suites: real-process checks, fd counting.
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'

/** Open file descriptors of this process. */
export function fdCount(): number {
  return readdirSync('/proc/self/fd').length
}

/** Kernel state letter of a process (`'Z'` for a zombie), or null when it does not exist. */
export function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
  } catch {
    return null
  }
}

/** True while `pid` exists and is not a zombie. */
export function alive(pid: number): boolean {
  const state = procState(pid)
  return state !== null && state !== 'Z' && state !== 'X'
}

/** True when `pid` exists at all (a zombie included). */
export function exists(pid: number): boolean {
  return existsSync(`/proc/${pid}`)
}

/** Whether a program is installed. */
export function have(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`]).status === 0
}

/** Collects chunks and remembers how much had arrived when the exit resolved. */
export function collector() {
  const chunks: string[] = []
  return {
    chunks,
    onData: (chunk: string) => {
      chunks.push(chunk)
    },
    text: () => chunks.join(''),
  }
}
