'use strict'
// The MCP server: `npx ptypilot mcp` (bin/ptypilot.js) serves ptypilot's
// tools to any Model Context Protocol client over stdio — the terminal tool
// set (pty_exec, pty_start, pty_read, pty_send, pty_list, pty_stop), the git
// tool, and the user's own interactive tools from modules named on the command
// line or in a config file.
//
// The tools run in a ToolRegistry with `isolation: 'process'` (lib/host.js):
// a native crash kills the host, not this server; the call in flight gets an
// error result naming the lost sessions and the next call starts a fresh host.
//
// Why the SDK's low-level `Server` with tools/list and tools/call handlers
// rather than `McpServer.registerTool`: the registry already owns the tools'
// JSON Schemas (`definitions('mcp')`) and validates calls itself, answering a
// malformed call with a reply the model can act on (`respond()`); registerTool
// wants zod schemas and would validate (and word errors) a second time.
//
// Options come from, in this order of precedence: command-line flags,
// environment variables (PTYPILOT_MCP_*), a JSON config file (`--config`),
// defaults. `OPTIONS` below is the one table of them; `--help` prints it.
//
// A person beside the agent: `--web[=PORT]` serves the live panel of the
// terminal sessions (lib/panel.js, in the host next to them) on 127.0.0.1; its
// URL, with its random token, goes to stderr and to the client as a log
// message (stdout is the protocol). `--ask start,input,stop` asks the person
// before such calls — through an MCP elicitation when the client supports it;
// when it does not, the `allow` and `deny` lists decide (a program in neither
// is refused). The asking runs here, in the server's process, before a call
// goes to the host.

const fs = require('node:fs')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { parseArgs, stripVTControlCharacters } = require('node:util')

const { invalidArg, describe } = require('./errors.js')

/**
 * Every option: its config-file key, flag, environment variable, kind and
 * help text. Kinds: 'path', 'paths' (repeatable; ':'-separated in the
 * environment), 'list' (repeatable or ','-separated), 'count' (a positive
 * integer), 'ms' (an integer of milliseconds, 0 allowed), 'switch' (a
 * boolean whose flag is `--no-<flag>`), 'mode' (a sandbox mode), 'network'
 * (on, off or allow-list; `--no-network` is off), 'caches' (private, shared
 * or none).
 */
const OPTIONS = [
  { key: 'config', flag: 'config', env: 'PTYPILOT_MCP_CONFIG', kind: 'path', help: 'JSON file with any of the options below (keys as in parentheses); its relative paths are relative to the file' },
  { key: 'cwd', flag: 'cwd', env: 'PTYPILOT_MCP_CWD', kind: 'path', help: 'working directory of the tools (default: the directory the server starts in)' },
  { key: 'tools', flag: 'tools', env: 'PTYPILOT_MCP_TOOLS', kind: 'paths', help: 'a module exporting interactive tools (an InteractiveTool, an array, or a function returning them); repeatable' },
  { key: 'allow', flag: 'allow', env: 'PTYPILOT_MCP_ALLOW', kind: 'list', help: 'the programs pty_exec and pty_start may run, each as given: a name on PATH or a path (e.g. python3,npm,git); default: any. With --ask: the programs that run (and are typed into, stopped) without asking' },
  { key: 'deny', flag: 'deny', env: 'PTYPILOT_MCP_DENY', kind: 'list', help: 'programs pty_exec and pty_start never run, each as given' },
  { key: 'ask', flag: 'ask', env: 'PTYPILOT_MCP_ASK', kind: 'list', help: 'ask the person before calls of these permission classes: start (pty_exec, pty_start), input (pty_send), stop (pty_stop); through the client (MCP elicitation), else the allow list decides' },
  { key: 'web', flag: 'web', env: 'PTYPILOT_MCP_WEB', kind: 'web', help: 'serve the live panel of the terminal sessions on 127.0.0.1 (PORT, or any free port); the URL goes to stderr and as a log message' },
  { key: 'terminal', flag: 'terminal', env: 'PTYPILOT_MCP_TERMINAL', kind: 'switch', default: true, help: 'serve the terminal tools (pty_*); --no-terminal or 0 turns them off' },
  { key: 'sandbox', flag: 'sandbox', env: 'PTYPILOT_MCP_SANDBOX', kind: 'mode', default: 'workspace-write', help: 'the sandbox of every program the tools run: workspace-write (write only in the working directory and a private temporary folder; the configuration and hooks in .git read-only, what git records writable, for every tool), read-only, or off (default workspace-write)' },
  { key: 'network', flag: 'network', env: 'PTYPILOT_MCP_NETWORK', kind: 'network', default: 'allow-list', help: 'the network of sandboxed programs: allow-list (default: only the hosts of lib/network-allow.json and --allow-host, through a proxy; the package registries, so installs work), on (any host), or off (only Unix sockets; also --no-network)' },
  { key: 'allowHost', flag: 'allow-host', env: 'PTYPILOT_MCP_ALLOW_HOST', kind: 'list', help: 'with --network allow-list: a host name sandboxed programs may reach besides the defaults (example.org, *.example.org, optionally :PORT); repeatable' },
  { key: 'caches', flag: 'caches', env: 'PTYPILOT_MCP_CACHES', kind: 'caches', default: 'private', help: 'where sandboxed package managers keep their caches: private (a per-user folder, ~/.cache/ptypilot/sandbox, writable in the sandbox, each tool pointed at it: npm, pnpm, yarn, pip, uv, cargo, go, ...), shared (your own ~/.npm, ~/.cache, ~/.cargo/registry, ... writable: what the sandbox writes there your own builds run later), or none (default private)' },
  { key: 'git', flag: 'git', env: 'PTYPILOT_MCP_GIT', kind: 'switch', default: true, help: 'serve the git tool (stage, rebase, log); --no-git or 0 turns it off' },
  { key: 'maxSessions', flag: 'max-sessions', env: 'PTYPILOT_MCP_MAX_SESSIONS', kind: 'count', help: 'live terminal sessions at most' },
  { key: 'maxHandles', flag: 'max-handles', env: 'PTYPILOT_MCP_MAX_HANDLES', kind: 'count', help: 'live interactive-tool handles at most (default 64)' },
  { key: 'maxContentChars', flag: 'max-content-chars', env: 'PTYPILOT_MCP_MAX_CONTENT_CHARS', kind: 'count', help: 'longest tool content before it is cut (also the terminal tools\' default max_chars)' },
  { key: 'spillDir', flag: 'spill-dir', env: 'PTYPILOT_MCP_SPILL_DIR', kind: 'path', help: 'where long terminal output is written (default: a temporary directory)' },
  { key: 'recordDir', flag: 'record-dir', env: 'PTYPILOT_MCP_RECORD_DIR', kind: 'path', help: 'record every terminal session there as an asciicast v2 file (<id>.cast); input typed while echo is off is not recorded' },
  { key: 'idleTimeoutMs', flag: 'idle-timeout-ms', env: 'PTYPILOT_MCP_IDLE_TIMEOUT_MS', kind: 'ms', default: 30 * 60 * 1000, help: 'stop a session or handle that no call has named for this long, and forget an exited session nobody read for this long; 0: never (default 30 min)' },
  { key: 'progressIntervalMs', flag: 'progress-interval-ms', env: 'PTYPILOT_MCP_PROGRESS_INTERVAL_MS', kind: 'ms', default: 1000, help: 'how often a call that asked for progress reports it (default 1000)' },
  { key: 'hostTimeoutMs', flag: 'host-timeout-ms', env: 'PTYPILOT_MCP_HOST_TIMEOUT_MS', kind: 'ms', help: 'kill an isolated host that stops answering for this long (default 10000)' },
]
const BY_KEY = new Map(OPTIONS.map((o) => [o.key, o]))
/** How long a question to the person (an elicitation) may wait for an answer. */
const ASK_TIMEOUT_MS = 10 * 60 * 1000

function usage() {
  const lines = [
    'Usage: ptypilot mcp [options]',
    '',
    'Serves ptypilot\'s terminal tools, the git tool and your own interactive tools',
    'to an MCP client over stdio. Client configuration:',
    '  { "command": "npx", "args": ["-y", "ptypilot", "mcp"] }',
    '',
    'Options (flag, environment variable, config key):',
  ]
  for (const o of OPTIONS) {
    const value = { path: 'PATH', paths: 'PATH', list: 'A,B', count: 'N', ms: 'MS', mode: 'MODE', network: 'on|off|allow-list', caches: 'KIND' }[o.kind]
    const flag = o.kind === 'switch' ? `--no-${o.flag}` : o.kind === 'web' ? `--${o.flag}[=PORT]` : o.kind === 'list' && o.key === 'allowHost' ? `--${o.flag} NAME` : `--${o.flag} ${value}`
    lines.push(`  ${flag.padEnd(28)}${o.env} (${o.key})`, `      ${o.help}`)
  }
  lines.push('  --help, --version')
  return lines.join('\n') + '\n'
}

// ---------- options ----------

function optionError(where, message) {
  return invalidArg(`${where}: ${message}`)
}

/** A value of `o`'s kind from text (a flag or an environment variable). */
function fromText(o, text, where, base) {
  switch (o.kind) {
    case 'path':
      if (text === '') throw optionError(where, 'must not be empty')
      return path.resolve(base, text)
    case 'paths':
      // One path per flag; a path list (':'-separated) in the environment.
      return (where.startsWith('--') ? [text] : text.split(path.delimiter)).filter((p) => p !== '').map((p) => path.resolve(base, p))
    case 'list':
      return text.split(',').map((s) => s.trim()).filter((s) => s !== '')
    case 'mode':
      return sandboxMode(text, where)
    case 'network':
      if (/^(1|true|yes|on)$/i.test(text)) return 'on'
      if (/^(0|false|no|off)$/i.test(text)) return 'off'
      return networkMode(text, where)
    case 'caches':
      return cachesSetting(text, where)
    case 'switch':
      if (/^(1|true|yes|on)$/i.test(text)) return true
      if (/^(0|false|no|off)$/i.test(text)) return false
      throw optionError(where, `must be 1 or 0 (true or false), got ${JSON.stringify(text)}`)
    case 'web':
      // `--web` alone, `--web=PORT`; in the environment 1/0 or a port.
      if (text === '' || /^(true|yes|on)$/i.test(text)) return { port: 0 }
      if (/^(false|no|off)$/i.test(text)) return false
      // In the environment 1 and 0 switch it (a port number otherwise); on the command line 0 is any port.
      if (!where.startsWith('--') && (text === '0' || text === '1')) return text === '1' ? { port: 0 } : false
      return webPort(Number(/^\d+$/.test(text) ? text : NaN), where, JSON.stringify(text))
    default: {
      const n = /^\d+$/.test(text.trim()) ? Number(text) : NaN
      return checkNumber(o, n, where, JSON.stringify(text))
    }
  }
}

/** A network mode, checked. */
function networkMode(value, where) {
  if (value === true || value === false) return value ? 'on' : 'off'
  if (!['on', 'off', 'allow-list'].includes(value)) {
    throw optionError(where, `must be on, off or allow-list, got ${describe(value)}`)
  }
  return value
}

/** A sandbox mode, checked. */
function sandboxMode(value, where) {
  if (!['workspace-write', 'read-only', 'off'].includes(value)) {
    throw optionError(where, `must be workspace-write, read-only or off, got ${describe(value)}`)
  }
  return value
}

/** A caches setting (`--caches`), checked. */
function cachesSetting(value, where) {
  if (!['private', 'shared', 'none'].includes(value)) {
    throw optionError(where, `must be private, shared or none, got ${describe(value)}`)
  }
  return value
}

/** `{ port }` for a port number (0: any free one). */
function webPort(n, where, shown) {
  if (!Number.isSafeInteger(n) || n < 0 || n > 65535) {
    throw optionError(where, `must be a port number (0 to 65535), or 1 / 0 to turn the panel on or off, got ${shown}`)
  }
  return { port: n }
}

function checkNumber(o, n, where, shown) {
  const min = o.kind === 'count' ? 1 : 0
  if (!Number.isSafeInteger(n) || n < min) {
    throw optionError(where, `must be ${o.kind === 'count' ? 'a positive integer' : 'an integer of milliseconds, 0 or more'}, got ${shown}`)
  }
  return n
}

/** A value of `o`'s kind from a config file's JSON. */
function fromJson(o, value, where, base) {
  switch (o.kind) {
    case 'path':
      if (typeof value !== 'string' || value === '') throw optionError(where, `must be a path string, got ${describe(value)}`)
      return path.resolve(base, value)
    case 'paths':
    case 'list': {
      const items = typeof value === 'string' ? [value] : value
      if (!Array.isArray(items) || items.some((v) => typeof v !== 'string' || v === '')) {
        throw optionError(where, `must be a string or an array of strings, got ${describe(value)}`)
      }
      return o.kind === 'paths' ? items.map((p) => path.resolve(base, p)) : items
    }
    case 'switch':
      if (typeof value !== 'boolean') throw optionError(where, `must be true or false, got ${describe(value)}`)
      return value
    case 'mode':
      return sandboxMode(value, where)
    case 'network':
      return networkMode(value, where)
    case 'caches':
      return cachesSetting(value, where)
    case 'web':
      if (value === true) return { port: 0 }
      if (value === false) return false
      return webPort(value, where, describe(value))
    default:
      return checkNumber(o, value, where, describe(value))
  }
}

/** The options of a config file, its paths resolved against its directory. */
function readConfig(file) {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    throw invalidArg(`config file ${file} cannot be read: ${err.message}`)
  }
  let json
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw invalidArg(`config file ${file} is not JSON: ${err.message}`)
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw invalidArg(`config file ${file} must hold a JSON object, got ${describe(json)}`)
  }
  const out = {}
  for (const [key, value] of Object.entries(json)) {
    const o = BY_KEY.get(key)
    if (o === undefined || key === 'config') {
      const known = OPTIONS.filter((x) => x.key !== 'config').map((x) => x.key).join(', ')
      throw invalidArg(`config file ${file}: unknown key "${key}" (known: ${known})`)
    }
    out[key] = fromJson(o, value, `config file ${file}: "${key}"`, path.dirname(file))
  }
  return out
}

/**
 * The server's options from the command line (`argv`, after `mcp`), the
 * environment and a config file. Throws ERR_INVALID_ARG naming the flag,
 * variable or key; returns `{ help: true }` or `{ version: true }` for those
 * flags.
 */
function resolveOptions(argv, env = process.env, cwd = process.cwd()) {
  const spec = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } }
  for (const o of OPTIONS) {
    if (o.kind === 'switch' || o.kind === 'network') spec[`no-${o.flag}`] = { type: 'boolean' }
    if (o.kind === 'switch') continue
    if (o.kind !== 'web') spec[o.flag] = { type: 'string', multiple: o.kind === 'paths' || o.kind === 'list' }
  }
  // `--web` takes its value only as `--web=PORT` (a bare `--web` is on): parseArgs has no optional values.
  let web
  argv = argv.filter((arg) => {
    const m = /^--web(?:=(.*))?$/.exec(arg)
    if (m === null) return true
    web = m[1] ?? ''
    return false
  })
  let parsed
  try {
    parsed = parseArgs({ args: argv, options: spec, strict: true, allowPositionals: false })
  } catch (err) {
    throw invalidArg(`${err.message} (ptypilot mcp --help lists the options)`)
  }
  const flags = parsed.values
  if (flags.help) return { help: true }
  if (flags.version) return { version: true }

  const fromFlags = {}
  const fromEnv = {}
  for (const o of OPTIONS) {
    if (o.kind === 'web') {
      if (web !== undefined) fromFlags[o.key] = fromText(o, web, `--${o.flag}`, cwd)
    } else if (o.kind === 'switch') {
      if (flags[`no-${o.flag}`]) fromFlags[o.key] = false
    } else if (o.kind === 'network' && flags[`no-${o.flag}`]) {
      fromFlags[o.key] = 'off'
    } else if (flags[o.flag] !== undefined) {
      const values = o.kind === 'paths' || o.kind === 'list' ? flags[o.flag] : [flags[o.flag]]
      const parts = values.map((v) => fromText(o, v, `--${o.flag}`, cwd))
      fromFlags[o.key] = o.kind === 'paths' || o.kind === 'list' ? parts.flat() : parts[0]
    }
    const text = env[o.env]
    if (text !== undefined && text !== '') fromEnv[o.key] = fromText(o, text, o.env, cwd)
  }
  const configFile = fromFlags.config ?? fromEnv.config
  const fromConfig = configFile === undefined ? {} : readConfig(configFile)
  const options = {}
  for (const o of OPTIONS) {
    if (o.key === 'config') continue
    const value = fromFlags[o.key] ?? fromEnv[o.key] ?? fromConfig[o.key] ?? o.default
    if (value !== undefined) options[o.key] = value
  }
  options.cwd ??= cwd
  if (options.web === false) delete options.web
  for (const cls of options.ask ?? []) {
    if (!['start', 'input', 'stop', 'network'].includes(cls)) {
      throw invalidArg(`ask: ${JSON.stringify(cls)} is not a permission class to ask about (start, input, stop or network)`)
    }
  }
  for (const host of options.allowHost ?? []) {
    if (!/^(\*\.)?[A-Za-z0-9_.:\[\]-]+$/.test(host)) {
      throw invalidArg(`allow-host: ${JSON.stringify(host)} is not a host name (example.org, *.example.org, optionally :PORT)`)
    }
  }
  let stat
  try {
    stat = fs.statSync(options.cwd)
  } catch (err) {
    throw invalidArg(`the working directory ${options.cwd} cannot be used: ${err.message}`)
  }
  if (!stat.isDirectory()) throw invalidArg(`the working directory ${options.cwd} is not a directory`)
  return options
}

// ---------- the user's tool modules ----------

/**
 * The tools a module exports: its default export (or `module.exports`), or
 * its `tools` export — an InteractiveTool or ToolSet, an array of them, or a
 * function (maybe async) called with `{ cwd }` that returns them.
 */
async function loadToolModule(file, context) {
  let ns
  try {
    ns = await import(pathToFileURL(file).href)
  } catch (err) {
    throw invalidArg(`tool module ${file} cannot be loaded: ${err && err.message ? err.message : String(err)}`)
  }
  const found = []
  const visit = async (value, depth) => {
    if (depth > 4) return
    if (typeof value === 'function') return visit(await value(context), depth + 1)
    if (Array.isArray(value)) {
      for (const item of value) await visit(item, depth + 1)
      return
    }
    if (value === null || typeof value !== 'object') return
    if ('commands' in value || 'name' in value) {
      // An interactive tool (or a tool set); register() says what is wrong with it.
      found.push(value)
      return
    }
    if ('default' in value) return visit(value.default, depth + 1)
    if ('tools' in value) return visit(value.tools, depth + 1)
  }
  await visit(ns.default !== undefined ? ns.default : ns.tools, 0)
  if (found.length === 0) {
    throw invalidArg(
      `tool module ${file} exports no tool: export (default, or as "tools") an InteractiveTool ({ name, commands }), an array of them, or a function returning them`,
    )
  }
  return found
}

// ---------- the server ----------

/** `{ content, isError }` of a tool result with one text block. */
function textResult(text, isError) {
  return { content: [{ type: 'text', text }], isError }
}

/** The text a model gets for an error the registry threw rather than answered. */
function errorText(err) {
  if (err && typeof err === 'object' && typeof err.message === 'string') {
    return `Error${typeof err.code === 'string' ? ` (${err.code})` : ''}: ${err.message}`
  }
  return `Error: ${String(err)}`
}

/** The last non-blank line of terminal output, without escapes, for a progress message. */
function lastLine(text) {
  const lines = stripVTControlCharacters(text).split(/\r\n|\r|\n/)
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim()
    if (line !== '') return line.length > 200 ? `${line.slice(0, 200)}…` : line
  }
  return ''
}

/**
 * The terminal tools' `approve` from the options: a program on the deny list
 * never starts; one on the allow list runs (and is typed into, stopped)
 * without asking; calls of the classes in `ask` are asked about; otherwise
 * with an allow list (and no asking for start) only its programs start.
 */
function approvalPolicy(options) {
  const ask = new Set(options.ask ?? [])
  const allow = options.allow
  const deny = options.deny ?? []
  return (request) => {
    if (request.permission === 'start' && deny.includes(request.command)) {
      return { decision: 'deny', reason: `${JSON.stringify(request.command)} is on the server's deny list` }
    }
    if (allow !== undefined && allow.includes(request.command)) return 'allow'
    if (ask.has(request.permission)) return 'ask'
    if (request.permission === 'start' && allow !== undefined) {
      return { decision: 'deny', reason: `${JSON.stringify(request.command)} is not on the server's allow list (${allow.join(', ') || 'empty'})` }
    }
    return 'allow'
  }
}

/** The question put to the person for an approval request. */
function approvalQuestion(request) {
  const line = [request.command, ...request.args].join(' ')
  switch (request.permission) {
    case 'start':
      return `The agent wants to run: ${line}${request.input.cwd ? ` (in ${request.input.cwd})` : ''}. Allow it?`
    case 'input':
      return `The agent wants to type into ${request.session} (${line}): ${JSON.stringify(request.input.input)}. Allow it?`
    default:
      return `The agent wants to stop ${request.session} (${line}). Allow it?`
  }
}

/** The default allow list of `--network allow-list` (lib/network-allow.json, which a person may edit). */
function defaultAllowHosts() {
  const file = path.join(__dirname, 'network-allow.json')
  let json
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw invalidArg(`the default network allow list ${file} cannot be read: ${err.message}`)
  }
  if (!Array.isArray(json.allow) || !json.allow.every((h) => typeof h === 'string')) {
    throw invalidArg(`the default network allow list ${file} must hold { "allow": [host names] }`)
  }
  return json.allow
}

/** The sandbox's `network` value for the server's options: on, off, or the allow list (asked about with --ask network). */
function networkOption(options) {
  const mode = options.network === undefined ? 'allow-list' : options.network
  if (mode === 'on' || mode === true) return true
  if (mode === 'off' || mode === false) return false
  return {
    allow: [...new Set([...defaultAllowHosts(), ...(options.allowHost ?? [])])],
    ...((options.ask ?? []).includes('network') && { ask: true }),
  }
}

/**
 * `{ sandbox }` for the tools' options, from the server's options (mode, network, caches) and
 * `extra` fields; `{}` when the sandbox is off. Every sandbox the server makes comes from here.
 */
function sandboxOf(options, extra = {}) {
  if (options.sandbox === undefined || options.sandbox === 'off') return {}
  return {
    sandbox: {
      mode: options.sandbox,
      network: networkOption(options),
      ...(options.caches !== undefined && { caches: options.caches }),
      ...extra,
    },
  }
}

/** Registers the tools `options` ask for: the terminal tools, git, the modules' tools. */
function registerTools(registry, ptypilot, options, modules, hooks = {}) {
  if (options.terminal) {
    const asking = (options.ask ?? []).some((c) => c !== 'network')
    registry.register(
      ptypilot.terminalTools({
        cwd: options.cwd,
        ...sandboxOf(options),
        ...(options.maxSessions !== undefined && { maxSessions: options.maxSessions }),
        ...(options.spillDir !== undefined && { spillDir: options.spillDir }),
        ...(options.recordDir !== undefined && { recordDir: options.recordDir }),
        // A list of names (not a function) crosses to the host and is checked there;
        // when starts are asked about, the policy below applies it instead.
        ...(options.allow !== undefined && !(options.ask ?? []).includes('start') && { allow: options.allow }),
        ...((asking || options.deny !== undefined) && { approve: approvalPolicy(options) }),
        ...(hooks.ask !== undefined && { ask: hooks.ask }),
        ...(options.maxContentChars !== undefined && { maxOutputChars: Math.max(200, Math.min(1e7, options.maxContentChars)) }),
        ...(options.idleTimeoutMs !== undefined && { keepExitedMs: options.idleTimeoutMs > 0 ? options.idleTimeoutMs : 2 ** 31 - 1 }),
        ...(options.web !== undefined && { web: options.web }),
      }),
    )
  }
  if (options.git) registry.register(ptypilot.gitTool())
  for (const { file, tools } of modules) {
    for (const tool of tools) {
      try {
        registry.register(tool)
      } catch (err) {
        err.message = `tool module ${file}: ${err.message}`
        throw err
      }
    }
  }
}

/**
 * The MCP server over a registry built from `options` (as `resolveOptions`
 * returns them) and the tools of the modules named in `options.tools`
 * (`modules`: `{ file, tools }`, as `loadToolModule` gives them). Returns
 * `{ server, registry, close }`; the caller connects a transport.
 */
function createServer(options, modules = [], { stderr = process.stderr } = {}) {
  const { Server } = require('@modelcontextprotocol/sdk/server/index.js')
  const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js')
  const { ToolRegistry, gitTool } = require('./tool-registry.js')
  const ptypilot = { ToolRegistry, gitTool, terminalTools: require('./terminal-tools.js').terminalTools }
  const { version } = require('../package.json')

  /** Listeners of the registry's events (the progress trackers of calls in flight). */
  const listeners = new Set()
  /** Handle id → when a call last named it (or it started). */
  const lastUsed = new Map()
  /** Handle id → why this server stopped it (idle cleanup), for later calls naming it. */
  const reaped = new Map()
  /** Calls in flight: the id each names (or null), and when it came. */
  const inFlight = new Set()
  /** The panel's token: the same for every host, so its URL stays put when the port is fixed. */
  const webToken = require('node:crypto').randomBytes(24).toString('base64url')
  /** The panel's log message, until the client can take it. */
  let webNotice = null
  const stderrWrite = (text) => {
    try {
      stderr.write(text)
    } catch {
      // Nowhere to say it.
    }
  }
  /** Marks a live handle as used now. */
  const touch = (id) => {
    if (typeof id === 'string' && lastUsed.has(id)) lastUsed.set(id, Date.now())
  }

  /** The live panel's URL once it listens (a fresh host after a crash announces its own). */
  let webUrl = null
  const registry = new ptypilot.ToolRegistry({
    isolation: 'process',
    cwd: options.cwd,
    // The git tool and the modules' tools run in the same sandbox as the terminal tools, under
    // the same .git rule: what git records is writable, its configuration and hooks are not.
    ...sandboxOf(options),
    ...(options.maxHandles !== undefined && { maxHandles: options.maxHandles }),
    ...(options.maxContentChars !== undefined && { maxContentChars: options.maxContentChars }),
    ...(options.hostTimeoutMs !== undefined && { hostTimeoutMs: options.hostTimeoutMs }),
    ...((options.ask ?? []).includes('network') && { askNetwork: (q) => askNetwork(q) }),
    onEvent(event) {
      if (event.type === 'started') lastUsed.set(event.id, Date.now())
      else if (event.type === 'finished' || event.type === 'hostCrashed') lastUsed.delete(event.id)
      else if (event.type === 'web') announceWeb(event)
      for (const listener of listeners) listener(event)
    },
  })

  /**
   * Asks the person about a call the policy marks 'ask': an elicitation when
   * the client supports it; otherwise refused (the allow list already let
   * through what it names).
   */
  async function ask(request) {
    if (!server.getClientCapabilities()?.elicitation) {
      return {
        decision: 'deny',
        reason: `it needs the person's approval, and this MCP client cannot ask (no elicitation support); ` +
          `the server's allow list (${(options.allow ?? []).join(', ') || 'empty'}) does not have ${JSON.stringify(request.command)}`,
      }
    }
    let answer
    try {
      answer = await server.elicitInput(
        {
          message: approvalQuestion(request),
          requestedSchema: {
            type: 'object',
            properties: { allow: { type: 'boolean', title: 'Allow', description: 'Let the agent do this' } },
            required: ['allow'],
          },
        },
        { timeout: ASK_TIMEOUT_MS },
      )
    } catch (err) {
      return { decision: 'deny', reason: `the person could not be asked: ${err && err.message ? err.message : String(err)}` }
    }
    if (answer.action === 'accept' && answer.content?.allow === true) return 'allow'
    return { decision: 'deny', reason: answer.action === 'accept' || answer.action === 'decline' ? 'the person declined it' : 'the person dismissed the question' }
  }

  /**
   * Asks the person whether sandboxed programs may reach a host the allow list does not name
   * (`--ask network`): an elicitation; without one, refused (the reply names the host and how to
   * allow it).
   */
  async function askNetwork({ host }) {
    if (!server.getClientCapabilities()?.elicitation) {
      return `not on the network allow list, and this MCP client cannot ask the person (no elicitation support); the person can allow it: ptypilot mcp --allow-host ${host}`
    }
    try {
      const answer = await server.elicitInput(
        {
          message: `A program the agent runs wants to reach ${host}, which the network allow list does not name. Allow ${host} for this session?`,
          requestedSchema: {
            type: 'object',
            properties: { allow: { type: 'boolean', title: 'Allow', description: `Let sandboxed programs reach ${host}` } },
            required: ['allow'],
          },
        },
        { timeout: ASK_TIMEOUT_MS },
      )
      if (answer.action === 'accept' && answer.content?.allow === true) return true
      return answer.action === 'cancel' ? 'the person dismissed the question' : 'the person refused it'
    } catch (err) {
      return `the person could not be asked: ${err && err.message ? err.message : String(err)}`
    }
  }

  try {
    registerTools(registry, ptypilot, { ...options, ...(options.web !== undefined && { web: { port: options.web.port, token: webToken } }) }, modules, { ask })
  } catch (err) {
    // The host started with the registry; it ends with it.
    registry[Symbol.asyncDispose]().catch(() => {})
    throw err
  }

  const lines = []
  if (options.terminal) {
    lines.push(
      'Terminal tools: pty_exec runs a program to completion; pty_start starts a session that pty_read, ' +
        'pty_send and pty_stop work on (pty_list lists them). Programs run without a shell: command is the program, args its arguments. ' +
        'Replies end with the session state: running, waiting for input (line, password or key: answer with pty_send), or exited N; ' +
        'pty_exec returns as soon as its program waits for input, and pty_send with wait_ms returns the answer.',
    )
  }
  if (registry.names().some((n) => !n.startsWith('pty_'))) {
    lines.push(
      'Interactive tools (such as git) take { "action": "spawn", "command": ... } and then "fetch", "apply" ' +
        '(input text with named keys such as <enter>) or "abort" with the id the spawn returned.',
    )
  }
  if (options.web !== undefined && options.terminal) {
    lines.push(
      'A person can watch the terminal sessions live and take one over: when a program waits for a password or a code, ' +
        'you may ask the person to type it in the live panel (the reply names its address) instead of sending it yourself.',
    )
  }
  const server = new Server(
    { name: 'ptypilot', version },
    { capabilities: { tools: { listChanged: false }, logging: {} }, ...(lines.length > 0 && { instructions: lines.join('\n') }) },
  )

  /** Tells the person where the panel is: stderr now, and the client as a log message once it is connected. */
  function announceWeb(event) {
    const text = event.url === null ? `ptypilot mcp: ${event.error}` : `ptypilot mcp: live panel of the terminal sessions: ${event.url}`
    webUrl = event.url
    stderrWrite(`${text}\n`)
    webNotice = { level: event.url === null ? 'warning' : 'notice', logger: 'ptypilot', data: text }
    sendWebNotice()
  }
  function sendWebNotice() {
    if (webNotice === null || server.getClientVersion() === undefined) return
    server.sendLoggingMessage(webNotice).catch(() => {})
    webNotice = null
  }
  server.oninitialized = () => sendWebNotice()

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: registry.definitions('mcp') }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params
    const input = request.params.arguments ?? {}
    const named = typeof input.id === 'string' ? input.id : null
    const call = { id: named, since: Date.now() }
    inFlight.add(call)
    const token = request.params._meta?.progressToken
    const stopProgress = token === undefined ? () => {} : trackProgress(name, input, named, token, extra)
    // A cancelled request gets no more progress (the call itself runs on: the
    // registry's calls take no signal; pty_stop or abort ends a program).
    extra.signal.addEventListener('abort', stopProgress, { once: true })
    try {
      const reply = await registry.respond(name, input)
      touch(named)
      touch(reply.state?.id ?? reply.result?.id)
      let text = reply.text
      if (reply.isError && named !== null && reaped.has(named)) text += `\n(${reaped.get(named)})`
      return textResult(text, reply.isError)
    } catch (err) {
      return textResult(errorText(err), true)
    } finally {
      inFlight.delete(call)
      stopProgress()
      extra.signal.removeEventListener('abort', stopProgress)
    }
  })

  /**
   * Sends `notifications/progress` every `progressIntervalMs` while the call
   * runs: progress is the elapsed milliseconds (of `timeout_ms` for
   * pty_exec), the message the last line of the output of the handle the
   * call works on (named by `id`, or the one it started).
   */
  function trackProgress(name, input, named, token, extra) {
    const started = Date.now()
    let id = named
    let tail = ''
    let last = 0
    const total = name === 'pty_exec' ? (Number.isSafeInteger(input.timeout_ms) ? input.timeout_ms : 60000) : undefined
    const listener = (event) => {
      if (id === null && event.type === 'started' && event.tool === name) {
        // The first handle of this tool that started during the call. Two
        // concurrent calls of one tool may swap messages; progress itself is time.
        id = event.id
      }
      if (event.type === 'output' && event.id === id) tail = (tail + event.chunk).slice(-4096)
    }
    listeners.add(listener)
    const timer = setInterval(() => {
      const progress = Math.max(last + 1, Date.now() - started)
      last = progress
      const line = lastLine(tail)
      const message = `${name}: running for ${(progress / 1000).toFixed(1)} s${line === '' ? '' : ` — ${line}`}`
      extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress, ...(total !== undefined && { total }), message },
        })
        .catch(() => {})
    }, options.progressIntervalMs || 1000)
    return () => {
      clearInterval(timer)
      listeners.delete(listener)
    }
  }

  /** Stops what no call has named for `idleTimeoutMs`. */
  let idleTimer = null
  if (options.idleTimeoutMs > 0) {
    const period = Math.max(50, Math.min(30000, Math.floor(options.idleTimeoutMs / 4)))
    idleTimer = setInterval(() => reapIdle().catch(() => {}), period)
    idleTimer.unref()
  }
  async function reapIdle() {
    const now = Date.now()
    // Never what a call in flight works on: the handle it names, or one it may have started.
    const busy = new Set([...inFlight].map((c) => c.id))
    const firstSpawn = Math.min(...[...inFlight].filter((c) => c.id === null).map((c) => c.since))
    for (const h of registry.list()) {
      if (h.state !== 'running' || busy.has(h.id) || h.startedAt >= firstSpawn) continue
      const since = lastUsed.get(h.id) ?? h.startedAt
      if (now - since < options.idleTimeoutMs) continue
      lastUsed.delete(h.id)
      const minutes = Math.round((now - since) / 60000)
      reaped.set(h.id, `ptypilot mcp stopped ${h.id} after ${minutes >= 1 ? `${minutes} min` : `${now - since} ms`} without a call naming it (idle timeout ${options.idleTimeoutMs} ms)`)
      const stop = h.tool.startsWith('pty_') ? ['pty_stop', { id: h.id }] : [h.tool, { action: 'abort', id: h.id }]
      await registry.call(...stop).catch(() => {})
    }
  }

  let closing = null
  /** Stops every program (TERM, then KILL after the grace), ends the host and the server. */
  function close() {
    closing ??= (async () => {
      if (idleTimer !== null) clearInterval(idleTimer)
      try {
        await registry[Symbol.asyncDispose]()
      } finally {
        await server.close().catch(() => {})
      }
    })()
    return closing
  }

  return { server, registry, close, webUrl: () => webUrl }
}

/**
 * `ptypilot mcp [flags]`: resolves the options, loads the tool modules, and
 * serves over stdio until stdin ends or a SIGTERM/SIGINT comes. Returns the
 * exit code for a bad command line (2) or 0 for --help/--version; otherwise
 * it never settles before the process exits.
 */
async function main(argv, { env = process.env, stdout = process.stdout, stderr = process.stderr } = {}) {
  let options
  try {
    options = resolveOptions(argv, env)
  } catch (err) {
    stderr.write(`ptypilot mcp: ${err.message}\n`)
    return 2
  }
  if (options.help) {
    stdout.write(usage())
    return 0
  }
  if (options.version) {
    stdout.write(`${require('../package.json').version}\n`)
    return 0
  }
  // stdout carries the protocol: whatever a tool module logs goes to stderr.
  for (const method of ['log', 'info', 'debug']) console[method] = (...args) => console.error(...args)

  let served
  try {
    const modules = []
    for (const file of options.tools ?? []) modules.push({ file, tools: await loadToolModule(file, { cwd: options.cwd }) })
    served = createServer(options, modules, { stderr })
  } catch (err) {
    stderr.write(`ptypilot mcp: ${err.message}\n`)
    return 2
  }
  const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js')
  const transport = new StdioServerTransport()
  served.server.onerror = (err) => stderr.write(`ptypilot mcp: ${err && err.message ? err.message : String(err)}\n`)
  let exiting = false
  const exit = async (code) => {
    if (exiting) return
    exiting = true
    try {
      await served.close()
    } finally {
      process.exit(code)
    }
  }
  // The client closes stdin to end the server; a signal ends it at once (the
  // host then sees its channel close and kills what it started).
  process.stdin.on('end', () => exit(0))
  process.stdin.on('close', () => exit(0))
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => process.exit(0))
  await served.server.connect(transport)
  return new Promise(() => {})
}

module.exports = { main, createServer, resolveOptions, loadToolModule, usage, OPTIONS }
