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
   * The network: `'on'` (or `true`), `'off'` (or `false`: only Unix sockets), or only the hosts
   * of an allow list (see {@link NetworkAllowList}): the program runs with no route out but a
   * proxy that checks each host name.
   * @default 'on'
   */
  network?: 'on' | 'off' | boolean | NetworkAllowList
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
  /**
   * Where the package managers keep their caches (`workspace-write` only; a `read-only` sandbox
   * writes no cache):
   *
   * - `'private'`: a per-user folder, `$XDG_CACHE_HOME/ptypilot/sandbox` (`~/.cache/ptypilot/sandbox`),
   *   is writable, and each package manager is pointed at its own folder in it through its own
   *   variable (`npm_config_cache`, `pnpm_config_store_dir` and `PNPM_HOME`, `YARN_CACHE_FOLDER`,
   *   `YARN_GLOBAL_FOLDER`, `COREPACK_HOME`, `PIP_CACHE_DIR`, `UV_CACHE_DIR`, `CARGO_HOME` with the
   *   person's `config.toml` copied in, `GOPATH`, `GOMODCACHE`, `GOCACHE`, `DENO_DIR`,
   *   `BUN_INSTALL_CACHE_DIR`, and `XDG_CACHE_HOME` for the tools that follow it). The person's own
   *   caches stay read-only. Every sandboxed program of the user shares this folder.
   * - `'shared'`: the person's own cache folders that exist (`~/.npm`, `~/.cache`,
   *   `~/.cargo/registry` and `~/.cargo/git`, `~/go/pkg/mod`, pnpm's store, Yarn's folder, or where
   *   the tools' variables point) are writable and nothing is redirected. **Risk:** what the
   *   sandbox writes there (a rewritten package, a compiled object) is what the person's own
   *   builds run later, outside the sandbox.
   * - `'none'`: no cache folder is writable and no variable is set.
   * @default 'private'
   */
  caches?: 'private' | 'shared' | 'none'
}

/**
 * Only these hosts, through a proxy in this process: on Linux the program runs in a network
 * namespace of its own with no route out but the proxy (HTTP CONNECT, plain HTTP and SOCKS5 on
 * `127.0.0.1:3128` inside it), which resolves names itself; `HTTP_PROXY`, `HTTPS_PROXY`,
 * `ALL_PROXY` (and the lower-case forms, npm's and cargo's) point the common tools at it. On
 * macOS the Seatbelt profile lets the program reach only the proxy's loopback port.
 */
export interface NetworkAllowList {
  /**
   * Host names the program may reach, each optionally with `:PORT`: `registry.npmjs.org`,
   * `*.example.org` (names below it, not itself). IP addresses are refused unless listed.
   */
  allow: string[]
  /** Names refused even when `allow` covers them. */
  deny?: string[]
  /** Loopback ports of this machine the program may reach at `127.0.0.1:PORT` (a database, a dev server). */
  local?: number[]
  /**
   * A name on neither list is asked about through the process's asker (`ptypilot mcp --ask
   * network`: an MCP elicitation), and the answer kept for the process; without one it is refused.
   * @default false
   */
  ask?: boolean
}

/** The `sandbox` option: a mode, or the sandbox spelled out. */
export type SandboxOption = SandboxMode | SandboxOptions

/** The sandbox a program runs under (`session.sandbox`). */
export interface SandboxInfo {
  /** `'read-only'` or `'workspace-write'`. */
  mode: Exclude<SandboxMode, 'off'>
  /** The program may use the network (with an allow list: only through the proxy). */
  network: boolean
  /** The hosts it may reach through the proxy; `null` without an allow list. */
  allowHosts: string[] | null
  /** Where it may write (resolved), its temporary folder last. */
  writable: string[]
  /** What stays read-only inside those (`.git`), resolved. */
  readOnly: string[]
  /** Its private temporary folder (`TMPDIR`), removed when the session ends. */
  tempDir: string
  /** What this system could not enforce (only with `ifUnavailable: 'warn'`). */
  missing: string[]
  /** Where the package managers keep their caches (`SandboxOptions.caches`). */
  caches: 'private' | 'shared' | 'none'
  /**
   * The private cache folder the package managers are pointed at (`caches: 'private'` in
   * `workspace-write`), also listed in `writable`; `null` otherwise, or when there was no home
   * to make it in.
   */
  cacheDir: string | null
  /** One line for statuses: `'workspace-write, network on'`. */
  summary: string
}

/**
 * The lines "the sandbox refused: write /home/u/.bashrc (outside the workspace)" for what
 * `output` shows the sandbox refused: errors the program printed (`Permission denied`,
 * `Read-only file system`, `Operation not permitted`) on a path the sandbox keeps read-only, or
 * on the network when it is off; with an allow list of hosts, a direct connection or a DNS query
 * that found no route (the program ignored the proxy variables). At most `max` lines (default 5), the last one counting the rest.
 * Relative paths are taken from `cwd` (default `process.cwd()`).
 */
export function sandboxRefusals(
  output: string,
  sandbox: SandboxInfo | null,
  options?: {
    cwd?: string
    max?: number
    /** The network proxy's refusals (`session.takeNetworkRefusals()`), listed first. */
    network?: string[]
  },
): string[]
