'use strict'
// The sandbox's refusals, named for the model: a tool reply says
// "the sandbox refused: write /home/u/.bashrc (outside the workspace)" where
// the program's output shows an error the sandbox caused. The kernel refuses
// with a bare errno (EACCES from Landlock, EROFS from a read-only mount,
// EPERM from seccomp); the kernel's own record of it (Landlock's audit log,
// ABI 7) reaches only the audit daemon, which a library may not switch on for
// the whole machine, so the program's own error is read: its message and the
// path it names, checked against where the sandbox lets it write.

const path = require('node:path')
const { describe, invalidArg } = require('./errors.js')

const DENIED = /Permission denied|permission denied|Read-only file system|read-only file system|Operation not permitted|operation not permitted|\bEACCES\b|\bEROFS\b|\bEPERM\b|\[Errno (?:1|13|30)\]/
const NETWORK_WORDS = /socket|connect|urlopen|network|https?:|curl|wget|fetch|getaddrinfo|resolve|\bnpm\b|\bpip\b/i
const NO_RESOLVER = /Could not resolve host|Temporary failure in name resolution|Name or service not known|EAI_AGAIN|getaddrinfo E/
const QUOTED = /[‘'"`“]([^'"`’”\n]+)['"’”]/g
const PATHLIKE = /(?:^|[\s:=(])((?:~|\.{1,2})?\/[^\s:'"`’,;)]*|[\w.+-]+\/[^\s:'"`’,;)]*)/g
/** A bare name right before the error (`sh: 1: cannot create notes.txt: Permission denied`). */
const BEFORE_ERROR = /(?:^|\s)([^\s:'"`‘’]+): (?:Permission denied|Read-only file system|Operation not permitted)/g
/** A connection with no route: the sandbox's network namespace has only the proxy. */
const NO_ROUTE = /Network is unreachable|\bENETUNREACH\b|\[Errno 101\]|connect: network is unreachable|No route to host/
/** The name a failed lookup names (curl, git, Node, Python, Go). */
const LOOKUP_NAME = /(?:Could not resolve host:?|getaddrinfo \w+|lookup|resolve host|host) ['"]?([A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2,})/
const ENDPOINT = /(https?:\/\/[^\s'">)]+)|\b((?:\d{1,3}\.){3}\d{1,3}|localhost|\[[0-9a-fA-F:]+\]):(\d{1,5})\b/

/** 'route' or 'dns' for a refusal of a connection that found no route or no DNS, else null. */
function networkKind(refusal) {
  if (/^(a direct connection|UDP to)/.test(refusal)) return 'route'
  if (refusal.startsWith('a DNS query')) return 'dns'
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
  for (const m of line.matchAll(QUOTED)) if (m[1].includes('/') || m[1].startsWith('.')) found.push(m[1])
  for (const m of line.matchAll(PATHLIKE)) if (!found.includes(m[1]) && m[1] !== '/') found.push(m[1])
  for (const m of line.matchAll(BEFORE_ERROR)) if (!found.includes(m[1]) && !/^\d+$/.test(m[1])) found.push(m[1])
  return found
}

/** The refusal a file error on `p` (absolute) is, or null when the sandbox allows writing there. */
function fileRefusal(p, sandbox) {
  if (/^\/proc\/\d+\//.test(p) && !p.startsWith('/proc/self/')) return `read ${p} (a process outside the sandbox)`
  const readOnly = sandbox.readOnly.find((dir) => within(p, dir))
  if (readOnly !== undefined) return `write ${p} (${path.basename(readOnly)} is read-only in the sandbox)`
  if (sandbox.writable.some((dir) => within(p, dir))) return null
  return `write ${p} (${sandbox.mode === 'read-only' ? 'the sandbox is read-only' : 'outside the workspace'})`
}

/** The refusal `line` shows, or null. */
function lineRefusal(line, sandbox, cwd) {
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
  if (!sandbox.network && (NO_RESOLVER.test(line) || (DENIED.test(line) && NETWORK_WORDS.test(line)))) {
    const m = ENDPOINT.exec(line)
    const where = m === null ? 'a network connection' : `connect ${m[1] ?? `${m[2]}:${m[3]}`}`
    return `${where} (the network is off)`
  }
  if (!DENIED.test(line)) return null
  if (/TIOCSTI|TIOCLINUX/.test(line)) return 'typing into the terminal (TIOCSTI/TIOCLINUX)'
  if (/\bunshare\b|\bsetns\b|namespace/i.test(line)) return 'a new namespace'
  if (/\bmount\b/i.test(line)) return 'mount'
  if (/ptrace|PTRACE_/i.test(line)) return 'ptrace of a process outside the sandbox'
  for (const named of pathsIn(line)) {
    const home = process.env.HOME
    const expanded = named.startsWith('~/') && home ? path.join(home, named.slice(2)) : named
    const refusal = fileRefusal(path.resolve(cwd, expanded), sandbox)
    if (refusal !== null) return refusal
  }
  return null
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
  const seen = new Set(network)
  // What the proxy's observer named exactly (with the address) is not repeated from the text.
  const told = new Set(network.map(networkKind))
  for (const line of output.split(/\r?\n/)) {
    const refusal = lineRefusal(line, sandbox, cwd)
    if (refusal !== null && !(told.has(networkKind(refusal)) && /^(a direct connection|a DNS query) \(/.test(refusal))) seen.add(refusal)
  }
  const lines = [...seen].map((r) => `the sandbox refused: ${r}`)
  if (lines.length <= max) return lines
  return [...lines.slice(0, max - 1), `the sandbox refused ${lines.length - max + 1} more`]
}

module.exports = { sandboxRefusals }
