// Compile-time checks of ptypilot/node-pty's types against node-pty's own
// typings (node-pty 1.1 and @lydell/node-pty, its prebuilt repackaging).
// Nothing runs: `npx tsc -p tsconfig.json` (strict) fails when a check
// fails, and __test__/node-pty-types.test.ts compiles this file on its own.
import type * as NodePty from 'node-pty'
import type * as Lydell from '@lydell/node-pty'
import type * as Ours from 'ptypilot/node-pty'
import { spawn, fork, createTerminal } from 'ptypilot/node-pty'

/** `true` when each type is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
/** Compiles only for `true`. */
type Check<T extends true> = T

/** Every type node-pty exports is here, and interchangeable with node-pty's. */
export type SameAsNodePty = [
  Check<Same<Ours.IPty, NodePty.IPty>>,
  Check<Same<Ours.IBasePtyForkOptions, NodePty.IBasePtyForkOptions>>,
  Check<Same<Ours.IPtyForkOptions, NodePty.IPtyForkOptions>>,
  Check<Same<Ours.IWindowsPtyForkOptions, NodePty.IWindowsPtyForkOptions>>,
  Check<Same<Ours.IDisposable, NodePty.IDisposable>>,
  Check<Same<Ours.IEvent<string>, NodePty.IEvent<string>>>,
  Check<Same<Ours.IEvent<{ exitCode: number; signal?: number }>, NodePty.IEvent<{ exitCode: number; signal?: number }>>>,
]

/** @lydell/node-pty's older typings: its IPty writes strings only, so ours is the wider one. */
export type CompatibleWithLydell = [
  Check<Ours.IPty extends Lydell.IPty ? true : false>,
  Check<Same<Ours.IPtyForkOptions, Lydell.IPtyForkOptions>>,
  Check<Lydell.IWindowsPtyForkOptions extends Ours.IWindowsPtyForkOptions ? true : false>,
  Check<Same<Ours.IDisposable, Lydell.IDisposable>>,
]

/** `spawn` (and its old names) can stand wherever node-pty's `spawn` is expected. */
export const spawns: (typeof NodePty.spawn)[] = [spawn, fork, createTerminal]
export const lydellSpawns: (typeof Lydell.spawn)[] = [spawn, fork, createTerminal]

/** What `spawn` returns is an IPty of node-pty's, with the untyped members typed. */
export function untypedMembers(pty: ReturnType<typeof spawn>): NodePty.IPty {
  const fd: number = pty.fd
  const name: string = pty.ptsName
  pty.on('data', (d: string) => void d).once('exit', (code: number, signal: number) => void [code, signal])
  pty.removeListener('close', () => {})
  void [fd, name]
  return pty
}
