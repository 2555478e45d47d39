// Types of the sandbox option every way to start a program takes, the sandbox
// a session runs under, and the refusal lines tool replies carry (lib/sandbox.js).

/** Where a sandboxed program may write. */
export type SandboxMode = 'off' | 'read-only' | 'workspace-write'

/** The sandbox, spelled out. */
export interface SandboxOptions {
  /** Where the program may write. */
  mode: SandboxMode
  /**
   * The folder the program may write in (`workspace-write`), relative to `cwd`.
   * @default cwd
   */
  workspace?: string
  /**
   * More folders the program may write in (`workspace-write`), besides `cwd`; relative ones are
   * taken from `cwd`. Each must exist.
   */
  roots?: string[]
  /**
   * Paths kept read-only inside the writable folders, relative to each (or absolute). Besides
   * these, the `.git` rule always holds: what git records (index, objects, refs, logs) is
   * writable, what git runs or reads as configuration (`config`, `config.worktree`, `hooks/`,
   * `commondir`, `info/`, `modules/`, `worktrees/`) is not. `['.git']` makes all of `.git`
   * read-only.
   * @default []
   */
  readOnly?: string[]
  /**
   * May the program use the network (sockets other than Unix ones). An allow-list of loopback
   * ports is not offered: Landlock's TCP rules name a port, not an address.
   * @default true
   */
  network?: boolean
  /**
   * Unix socket files the program may not connect to (covered in its own mount namespace).
   * @default ['/var/run/docker.sock', '/run/docker.sock', '/run/podman/podman.sock', '/run/containerd/containerd.sock']
   */
  denyUnixSockets?: string[]
  /**
   * Unix socket files outside the writable folders the program may connect to (Linux: every
   * other socket outside them is covered or absent in its own mount namespace; a daemon's socket
   * is a way around the sandbox, so name only those you trust). The container daemons' sockets
   * stay denied unless named here.
   * @default []
   */
  allowUnixSockets?: string[]
  /**
   * A system that lacks what the sandbox needs: `'error'` rejects with
   * `ERR_SANDBOX_UNAVAILABLE` naming it; `'warn'` starts the program with what the system has and
   * lists the rest in `SandboxInfo.missing`.
   * @default 'error'
   */
  ifUnavailable?: 'error' | 'warn'
}

/** The `sandbox` option: a mode, or the sandbox spelled out. */
export type SandboxOption = SandboxMode | SandboxOptions

/** The sandbox a program runs under (`session.sandbox`). */
export interface SandboxInfo {
  /** `'read-only'` or `'workspace-write'`. */
  mode: Exclude<SandboxMode, 'off'>
  /** The program may use the network. */
  network: boolean
  /** Where it may write (resolved), its temporary folder last. */
  writable: string[]
  /** What stays read-only inside those (`.git`), resolved. */
  readOnly: string[]
  /** Its private temporary folder (`TMPDIR`), removed when the session ends. */
  tempDir: string
  /** What this system could not enforce (only with `ifUnavailable: 'warn'`). */
  missing: string[]
  /** One line for statuses: `'workspace-write, network on'`. */
  summary: string
}

/**
 * The lines "the sandbox refused: write /home/u/.bashrc (outside the workspace)" for what
 * `output` shows the sandbox refused: errors the program printed (`Permission denied`,
 * `Read-only file system`, `Operation not permitted`) on a path the sandbox keeps read-only, or
 * on the network when it is off. At most `max` lines (default 5), the last one counting the rest.
 * Relative paths are taken from `cwd` (default `process.cwd()`).
 */
export function sandboxRefusals(output: string, sandbox: SandboxInfo | null, options?: { cwd?: string; max?: number }): string[]
