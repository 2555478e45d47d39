'use strict'
// The sandbox's refusals, named for the model: a tool reply says
// "the sandbox refused: write /home/u/.bashrc (outside the workspace)" where
// the program's output shows an error the sandbox caused. The kernel refuses
// with a bare errno (EACCES from Landlock, EROFS from a read-only mount,
// EPERM from seccomp and from Landlock's scopes). The kernel's own record of
// a denial (Landlock's audit records, ABI 7) reaches only the audit netlink,
// and only while auditing is on for the whole machine (off here, and a
// library may not switch it on); a seccomp listener that only observes never
// sees the sockets seccomp refuses (an errno action wins over a
// notification). The sandbox's supervisor (Linux) tells the Unix sockets it refused, and the
// connections that bypass the proxy; for the rest the program's own error is read: its message, the path
// it names (on the line, or on the lines just before it, as Cargo and
// Python's tracebacks put it), checked against where the sandbox lets it
// write, and a Unix socket it names checked on the host. Errors that hide
// the cause (npm's `sudo chown` advice, pip's "the cache has been disabled")
// are read too.
const fs = require('node:fs')
const path = require('node:path')
const { describe, invalidArg } = require('./errors.js')

const DENIED = /Permission denied|permission denied|Read-only file system|read-only file system|Operation not permitted|operation not permitted|\bEACCES\b|\bEROFS\b|\bEPERM\b|\[Errno (?:1|13|30)\]|\(os error (?:1|13|30)\)/
const NETWORK_WORDS = /socket|connect|urlopen|network|https?:|curl|wget|fetch|getaddrinfo|resolve/i
const NO_RESOLVER = /Could not resolve host|Temporary failure in name resolution|Name or service not known|EAI_AGAIN|getaddrinfo E/
const QUOTED = /[‘'"`“]([^'"`’”\s]+)['"’”`]/g
const PATHLIKE = /(?:^|[\s:=(])((?:~|\.{1,2})?\/[^\s:'"`’,;)]*|[\w.+-]+\/[^\s:'"`’,;)]*)/g
/** A bare name right before the error (`sh: 1: cannot create notes.txt: Permission denied`). */
const BEFORE_ERROR = /(?:^|\s)([^\s:'"`‘’]+): (?:Permission denied|Read-only file system|Operation not permitted)/g
/** How the proxy's note of an allowed host it could not reach begins (core::net_proxy::UNREACHABLE). */
const UNREACHABLE = 'the network proxy could not reach '
/** A connection with no route: the sandbox's network namespace has only the proxy. */
const NO_ROUTE = /Network is unreachable|\bENETUNREACH\b|\[Errno 101\]|connect: network is unreachable|No route to host/
/** The name a failed lookup names (curl, git, Node, Python, Go). */
const LOOKUP_NAME = /(?:Could not resolve host:?|getaddrinfo \w+|lookup|resolve host|host) ['"]?([A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2,})/
const ENDPOINT = /(https?:\/\/[^\s'">)]+)|\b((?:\d{1,3}\.){3}\d{1,3}|localhost|\[[0-9a-fA-F:]+\]):(\d{1,5})\b/
/** A connection to an abstract Unix socket (its name starts with a NUL: `\0name`, `@name`). */
const ABSTRACT = /\\0|\\x00|\0|\babstract\b|AF_UNIX[^\n]*@|\bunix:@|connect\([^)]*"@/
/** A failed connection to a Unix socket a line names. */
const SOCKET_FAILED = /Connection refused|ECONNREFUSED|No such file or directory|ENOENT|[Cc]annot connect|[Cc]ould not connect|error connecting to|no server running|Permission denied|Operation not permitted/
/** A hard link or rename across mounts (`EXDEV`). */
const CROSS_DEVICE = /Invalid cross-device link|cross-device link not permitted|\bEXDEV\b|\[Errno 18\]|\(os error 18\)/
/** A tool saying a folder is not writable without an errno (pip: "The cache has been disabled"). */
const NOT_WRITABLE = /is not writable|not owned or is not writable|isn't writable|cannot write to/i
/** Advice a program gives for a refusal that is not a permissions problem here. */
const SUDO_ADVICE = /\bsudo\b|\bchown\b/
/** How many lines before an error may name its path or its network call (a traceback's frames, Cargo's "Caused by"). */
const CONTEXT_LINES = 4

/**
 * 'route' or 'dns' for a refusal of a connection that found no route or no DNS, 'unix' or
 * 'abstract' for one of a Unix socket, else null: what the kernel side told (the proxy,
 * the sandbox's supervisor) is not told again from the program's text.
 */
function networkKind(refusal) {
  if (/^(a direct connection|UDP to)/.test(refusal)) return 'route'
  if (refusal.startsWith('a DNS query')) return 'dns'
  if (/^(a connection|a datagram) to the abstract Unix socket/.test(refusal) || /^connect an abstract Unix socket/.test(refusal)) return 'abstract'
  if (/^(a connection|a datagram) to the Unix socket/.test(refusal) || /^connect .*\(a Unix socket outside the sandbox\)$/.test(refusal) || /^connect the ssh agent/.test(refusal)) return 'unix'
  return null
}

/** True when `p` is `dir` or inside it. */
function within(p, dir) {
  const rel = path.relative(dir, p)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

/** The paths a line names, quoted ones first. */
function pathsIn(line) {
  const found = []
  for (const m of line.matchAll(QUOTED)) if (/[/.]/.test(m[1]) && !/^\.+$/.test(m[1])) found.push(m[1])
  for (const m of line.matchAll(PATHLIKE)) {
    const p = m[1].replace(/^\/\/+/, '/')
    if (!found.includes(p) && p !== '/' && !/^[a-z][\w+.-]*:\/\//i.test(m[1])) found.push(p)
  }
  for (const m of line.matchAll(BEFORE_ERROR)) if (!found.includes(m[1]) && !/^\d+$/.test(m[1])) found.push(m[1])
  for (const m of line.matchAll(/unix:\/\/(\/[^\s'"`]+)/g)) if (!found.includes(m[1])) found.push(m[1])
  return found
}

/** Where `p` (absolute) leads on this host: symlinks followed, for a missing file its folder's. */
function realOf(p) {
  try {
    return fs.realpathSync.native(p)
  } catch {
    try {
      return path.join(fs.realpathSync.native(path.dirname(p)), path.basename(p))
    } catch {
      return p
    }
  }
}

/** The refusal a file error on `p` (absolute) is, or null when the sandbox allows writing there. */
function fileRefusal(p, sandbox) {
  if (/^\/proc\/\d+\//.test(p) && !p.startsWith('/proc/self/')) return `read ${p} (a process outside the sandbox)`
  const real = realOf(p)
  const readOnly = sandbox.readOnly.find((dir) => within(p, dir) || within(real, dir))
  if (readOnly !== undefined) return `write ${p} (${path.basename(readOnly)} is read-only in the sandbox)`
  if (sandbox.writable.some((dir) => within(real, dir))) return null
  // A symlink in the workspace that leads out: the kernel follows it, and the write lands outside.
  if (real !== p && sandbox.writable.some((dir) => within(p, dir))) return `write ${p} (a symlink that leads out of the workspace, to ${real})`
  return `write ${p} (${sandbox.mode === 'read-only' ? 'the sandbox is read-only' : 'outside the workspace'})`
}

/**
 * The refusal an `EXDEV` ("Invalid cross-device link") on a line is: a hard link or a rename
 * between a writable folder and anything outside it (each writable folder is a mount of its own
 * in the sandbox), or null when both ends are inside.
 */
function crossRefusal(line, sandbox, cwd) {
  if (!CROSS_DEVICE.test(line)) return null
  const ends = pathsIn(line).map((named) => resolved(named, cwd))
  const inside = (p) => sandbox.writable.some((dir) => within(realOf(p), dir))
  const out = ends.find((p) => !inside(p))
  if (ends.length === 0 || out === undefined) return null
  const what = /\brename|\bmv\b|\bmove/i.test(line) ? 'rename' : 'link'
  return `${what} ${ends.join(' -> ')} (across the workspace's edge: ${out} is outside it, and the sandbox mounts each writable folder on its own)`
}

/** True when `p` is a Unix socket on this host (the sandbox covers or hides those outside its roots). */
function isSocket(p) {
  try {
    return fs.statSync(p).isSocket()
  } catch {
    return false
  }
}

/** `named` (from the output) as an absolute path. */
function resolved(named, cwd) {
  const home = process.env.HOME
  const expanded = named.startsWith('~/') && home ? path.join(home, named.slice(2)) : named
  return path.resolve(cwd, expanded)
}

/**
 * False when `lines` name an abstract socket (`\0name`, `\x00name`, `@name`) that nothing on
 * this host listens on (/proc/net/unix): the connection failed for want of a server, not
 * because of the sandbox. True when it is listened on, or the name or the list is not known.
 */
function abstractListened(lines) {
  const m = /(?:\\0|\\x00|\0|@)([\w.:/+-]+)/.exec(lines.find((l) => /(?:\\0|\\x00|\0)[\w.:/+-]/.test(l)) ?? '')
  if (m === null) return true
  try {
    // A name bound with the whole address length shows padded with '@' (its NULs).
    return fs.readFileSync('/proc/net/unix', 'utf8').split('\n').some((l) => new RegExp(` @${m[1].replace(/[.+/]/g, '\\$&')}@*$`).test(l))
  } catch {
    return true
  }
}

/** The refusal a connection to the Unix socket `p` a line names is, or null. */
function socketRefusal(p, sandbox) {
  if (!isSocket(p) || sandbox.writable.some((dir) => within(p, dir))) return null
  if ((sandbox.allowUnixSockets ?? []).some((a) => a === p)) return null
  return `connect ${p} (a Unix socket outside the sandbox)`
}

/**
 * The refusal `lines[i]` shows, or null; the lines before it may name the path or the network
 * call of its error.
 */
function lineRefusal(lines, i, sandbox, cwd) {
  const line = lines[i]
  const context = lines.slice(Math.max(0, i - CONTEXT_LINES), i)
  // Node prints the error object (its `address`) up to a dozen lines below the message.
  const around = [...context, line, ...lines.slice(i + 1, i + 13)]
  if (Array.isArray(sandbox.allowHosts)) {
    // Only the proxy is reachable: a program that ignored its variables found no route or no DNS.
    if (NO_ROUTE.test(line)) {
      const m = ENDPOINT.exec(line)
      const where = m === null ? 'a direct connection' : `a direct connection to ${m[1] ?? `${m[2]}:${m[3]}`}`
      return `${where} (only the proxy is reachable; set HTTPS_PROXY)`
    }
    if (NO_RESOLVER.test(line)) {
      const m = LOOKUP_NAME.exec(line)
      return `a DNS query${m === null ? '' : ` for ${m[1]}`} (the sandbox has no DNS; only the proxy is reachable, set HTTPS_PROXY)`
    }
  }
  if (SOCKET_FAILED.test(line)) {
    for (const named of [line, ...context.toReversed()].flatMap(pathsIn)) {
      const refusal = socketRefusal(resolved(named, cwd), sandbox)
      if (refusal !== null) return refusal
    }
  }
  if (/Could not open a connection to your authentication agent|Error connecting to agent/.test(line)) {
    return "connect the ssh agent's socket (a Unix socket outside the sandbox)"
  }
  const denied = DENIED.test(line)
  // Landlock's scope refuses it (EPERM, or ECONNREFUSED for some callers); the name is on the
  // line or beside it (Node's `address: '\x00name'` after it).
  if ((denied || /Connection refused|ECONNREFUSED/.test(line)) && /connect/i.test(line + context.join('\n')) && around.some((l) => ABSTRACT.test(l)) && abstractListened(around)) {
    return 'connect an abstract Unix socket made outside the sandbox'
  }
  if (!sandbox.network) {
    const networkCall = NETWORK_WORDS.test(line) || (/\bEPERM\b|Operation not permitted|\[Errno 1\]/.test(line) && context.some((l) => NETWORK_WORDS.test(l)))
    if (NO_RESOLVER.test(line) || (denied && networkCall)) {
      const m = ENDPOINT.exec(line) ?? context.map((l) => ENDPOINT.exec(l)).findLast((x) => x !== null) ?? null
      const where = m === null ? 'a network connection' : `connect ${m[1] ?? `${m[2]}:${m[3]}`}`
      return `${where} (the network is off)`
    }
  }
  const cross = crossRefusal(line, sandbox, cwd)
  if (cross !== null) return cross
  if (NOT_WRITABLE.test(line)) {
    for (const named of pathsIn(line)) {
      const refusal = fileRefusal(resolved(named, cwd), sandbox)
      if (refusal !== null) return refusal
    }
  }
  if (!denied) return null
  if (/TIOCSTI|TIOCLINUX/.test(line)) return 'typing into the terminal (TIOCSTI/TIOCLINUX)'
  if (/\bunshare\b|\bsetns\b|namespace/i.test(line)) return 'a new namespace'
  if (/\bmount\b/i.test(line)) return 'mount'
  if (/ptrace|PTRACE_/i.test(line)) return 'ptrace of a process outside the sandbox'
  let named = pathsIn(line)
  // Cargo ("failed to open: PATH" … "Caused by: Read-only file system (os error 30)") and a
  // traceback name the path on a line before the error.
  if (named.length === 0) named = context.toReversed().flatMap(pathsIn)
  for (const name of named) {
    const p = resolved(name, cwd)
    const refusal = fileRefusal(p, sandbox) ?? relativeRefusal(name, p, sandbox)
    if (refusal !== null) return refusal
  }
  return null
}

/**
 * A relative path refused although, taken from where the program started, the sandbox lets it
 * write there: the program had moved to a folder outside the workspace (`cd /etc && …`). Null
 * when the path is absolute, or the folder is not writable anyway (a permissions problem of its
 * own).
 */
function relativeRefusal(named, p, sandbox) {
  if (path.isAbsolute(named) || named.startsWith('~/') || sandbox.mode !== 'workspace-write') return null
  if (!sandbox.writable.some((dir) => within(p, dir))) return null
  try {
    fs.accessSync(fs.existsSync(p) ? p : path.dirname(p), fs.constants.W_OK)
  } catch {
    return null
  }
  return `write ${named} (relative to a folder outside the workspace: the program may write only in ${sandbox.writable[0]})`
}

/** The refusals npm's error block shows (`npm error code EACCES` … `npm error path P`). */
function npmRefusals(output, sandbox, cwd) {
  const found = []
  if (!/npm (?:error|ERR!) (?:code|errno) (?:EACCES|EROFS|EPERM)/.test(output)) return found
  for (const m of output.matchAll(/npm (?:error|ERR!) path (\S+)/g)) {
    const refusal = fileRefusal(resolved(m[1], cwd), sandbox)
    if (refusal !== null) found.push(refusal)
  }
  return found
}

/**
 * The lines "the sandbox refused: …" for what `output` shows the sandbox refused (see
 * lib/sandbox.d.ts); none without a sandbox.
 */
function sandboxRefusals(output, sandbox, options) {
  if (typeof output !== 'string') throw invalidArg(`output must be a string, got ${describe(output)}`)
  if (sandbox === null || sandbox === undefined) return []
  const strings = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string')
  if (typeof sandbox !== 'object' || !strings(sandbox.writable) || !strings(sandbox.readOnly) || typeof sandbox.mode !== 'string') {
    throw invalidArg(`sandbox must be a session's sandbox ({ mode, network, writable, readOnly, ... }) or null, got ${describe(sandbox)}`)
  }
  if (options === undefined || options === null) options = {}
  if (typeof options !== 'object') throw invalidArg(`options must be an object, got ${describe(options)}`)
  const cwd = options.cwd ?? process.cwd()
  if (typeof cwd !== 'string') throw invalidArg(`options.cwd must be a path, got ${describe(cwd)}`)
  const max = options.max ?? 5
  if (!Number.isSafeInteger(max) || max < 1) throw invalidArg(`options.max must be a positive integer, got ${describe(max)}`)
  const network = options.network ?? []
  if (!Array.isArray(network) || !network.every((x) => typeof x === 'string')) {
    throw invalidArg(`options.network must be an array of strings, got ${describe(network)}`)
  }
  const seen = new Set([...network, ...npmRefusals(output, sandbox, cwd)])
  // What the kernel side named exactly (the proxy, the sandbox's supervisor) is not repeated from the text.
  const told = new Set(network.map(networkKind))
  const outputLines = output.split(/\r?\n/)
  for (let i = 0; i < outputLines.length; i++) {
    const refusal = lineRefusal(outputLines, i, sandbox, cwd)
    if (refusal === null) continue
    const kind = networkKind(refusal)
    const fromText = /^(a direct connection|a DNS query) \(/.test(refusal) || kind === 'unix' || kind === 'abstract'
    if (!(told.has(kind) && fromText)) seen.add(refusal)
  }
  // A program that advises sudo or chown for what the sandbox refused: that advice does not apply.
  const advice = seen.size > 0 && SUDO_ADVICE.test(output) ? '; sudo or chown will not help' : ''
  // The proxy's notes of allowed hosts it could not reach are not refusals: they are told as they are.
  const lines = [...seen].map((r) =>
    r.startsWith(UNREACHABLE) ? r : `the sandbox refused: ${advice === '' ? r : r.replace(/\)$/, `${advice})`)}`,
  )
  if (lines.length <= max) return lines
  return [...lines.slice(0, max - 1), `the sandbox refused ${lines.length - max + 1} more`]
}

module.exports = { sandboxRefusals }
