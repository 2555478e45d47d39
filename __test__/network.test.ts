// The network by host name (`sandbox.network: { allow, deny?, local?, ask? }`): the
// program runs in a network namespace with no route out but the proxy, which
// checks each host. Servers started here on 127.0.0.1 get made-up names through
// the proxy's test-only resolver map (PTYPILOT_NET_TEST_HOSTS, set before the
// first sandboxed program starts, as the proxy reads it then). Real programs:
// curl (HTTP, HTTPS through CONNECT, SOCKS5), git (dumb HTTP), python3 (direct
// sockets, DNS, UDP). Every refusal must reach the tool reply.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createTcpServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exec, terminalTools, ToolRegistry, type SandboxOption } from '../index.js'
import { serveMcp } from './mcp-client'

const NAMES = ['origin.test', 'tls.test', 'git.test', 'denied.test', 'yes.test', 'no.test', 'big.test', 'half.test', 'slow.test']
process.env.PTYPILOT_NET_TEST_HOSTS = NAMES.map((n) => `${n}=127.0.0.1`).join(',')

const has = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0
/** The checks drive curl (and python3, git); without curl they skip, saying so. */
const CURL = has('curl') && has('python3')
const base = mkdtempSync(join(tmpdir(), 'ptypilot-network-test-'))
const ws = join(base, 'ws')
let origin: HttpServer
let tls: ReturnType<typeof createHttpsServer> | null = null
let gitServer: HttpServer
let local: Server
let port = 0
let tlsPort = 0
let gitPort = 0
let localPort = 0
/** 50 MB of random bytes served whole by `big` (GET), and `sums` answering the SHA-256 of what it read once the client shut its side. */
const BIG = randomBytes(50_000_000)
const BIG_SHA = createHash('sha256').update(BIG).digest('hex')
let big: HttpServer
let bigPort = 0
let sums: Server
let sumsPort = 0
/** A port that never takes a connection (python3, below), and its process. */
let blackhole: ChildProcess | null = null
let blackholePort = 0

const listening = (s: { listening: boolean; once: (e: string, f: () => void) => unknown }) =>
  new Promise<void>((r) => (s.listening ? r() : s.once('listening', r)))
const portOf = (s: { address: () => unknown }) => (s.address() as { port: number }).port

/** A sandbox with only the test's names (and `extra`). */
function allowList(extra: Partial<{ deny: string[]; local: number[] }> = {}): SandboxOption {
  return { mode: 'workspace-write', network: { allow: ['*.test', 'origin.test'], deny: ['denied.test'], ...extra } }
}

/** Runs `script` with sh through the terminal tools (so the reply carries the refusals). */
async function toolSh(script: string, sandbox: SandboxOption) {
  const registry = new ToolRegistry({ cwd: ws })
  registry.register(terminalTools({ cwd: ws, sandbox }))
  try {
    return (await registry.respond('pty_exec', { command: 'sh', args: ['-c', script], timeout_ms: 30_000 })).text
  } finally {
    await registry.abortAll()
  }
}

beforeAll(async () => {
  mkdirSync(ws, { recursive: true })
  origin = createHttpServer((req, res) => res.end(`origin-answered ${req.method} ${req.url}`)).listen(0, '127.0.0.1')
  if (has('openssl')) {
    const key = join(base, 'key.pem')
    const cert = join(base, 'cert.pem')
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=tls.test'], { stdio: 'pipe' })
    tls = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_, res) => res.end('tls-answered')).listen(0, '127.0.0.1')
  }
  // A bare repository served as plain files (git's "dumb" HTTP protocol).
  const repoSrc = join(base, 'src')
  mkdirSync(repoSrc)
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'pipe' })
  git(repoSrc, 'init', '-q')
  writeFileSync(join(repoSrc, 'hello.txt'), 'cloned-through-the-proxy\n')
  git(repoSrc, 'add', '.')
  git(repoSrc, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'one')
  const served = join(base, 'served')
  mkdirSync(served)
  git(served, 'clone', '-q', '--bare', repoSrc, 'repo.git')
  git(join(served, 'repo.git'), 'update-server-info')
  gitServer = createHttpServer((req, res) => {
    try {
      res.end(readFileSync(join(served, decodeURIComponent((req.url ?? '/').split('?')[0]))))
    } catch {
      res.statusCode = 404
      res.end()
    }
  }).listen(0, '127.0.0.1')
  local = createTcpServer((c) => c.end('local-port-answered\n')).listen(0, '127.0.0.1')
  big = createHttpServer((_, res) => {
    res.setHeader('Content-Length', BIG.length)
    res.end(BIG)
  }).listen(0, '127.0.0.1')
  sums = createTcpServer((c) => {
    const hash = createHash('sha256')
    let n = 0
    c.on('data', (d) => {
      hash.update(d)
      n += d.length
    })
    c.on('end', () => c.end(`got ${n} ${hash.digest('hex')}\n`))
  }).listen(0, '127.0.0.1')
  await Promise.all([origin, gitServer, local, big, sums, ...(tls ? [tls] : [])].map(listening))
  bigPort = portOf(big)
  sumsPort = portOf(sums)
  if (CURL) {
    // A listener with a backlog of 0 that never accepts, its queue filled until a connection
    // times out: the kernel drops every further SYN, so a connection to it waits (deterministic,
    // unlike an address with no route, which may be refused at once).
    const script = [
      'import socket, sys',
      'l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(0)',
      'held = []',
      'while True:',
      '    s = socket.socket(); s.settimeout(0.3)',
      '    try: s.connect(l.getsockname())',
      '    except socket.timeout: break',
      '    held.append(s)',
      'print(l.getsockname()[1], flush=True)',
      'sys.stdin.read()',
    ].join('\n')
    blackhole = spawn('python3', ['-c', script], { stdio: ['pipe', 'pipe', 'inherit'] })
    blackholePort = await new Promise<number>((resolve) => blackhole!.stdout!.once('data', (d) => resolve(Number(String(d).trim()))))
  }
  port = portOf(origin)
  gitPort = portOf(gitServer)
  localPort = portOf(local)
  if (tls) tlsPort = portOf(tls)
})

afterAll(() => {
  origin?.close()
  tls?.close()
  gitServer?.close()
  local?.close()
  big?.close()
  sums?.close()
  blackhole?.kill()
  rmSync(base, { recursive: true, force: true })
})

describe.skipIf(!CURL)('an allowed name through the proxy', () => {
  it('plain HTTP (curl through HTTP_PROXY); the same URL with the network on but no proxy finds no such name', async () => {
    const r = await exec({ command: 'curl', args: ['-sS', `http://origin.test:${port}/a`], cwd: ws, sandbox: allowList(), timeoutMs: 30_000 })
    expect(r.output).toContain('origin-answered GET /a')
    expect(r.exitCode).toBe(0)
    // Without the proxy (network on), the made-up name does not resolve: the proxy did the work.
    const direct = await exec({ command: 'curl', args: ['-sS', `http://origin.test:${port}/a`], cwd: ws, sandbox: 'workspace-write', timeoutMs: 30_000 })
    expect(direct.output).not.toContain('origin-answered')
  })

  it.skipIf(!has('openssl'))('HTTPS through CONNECT (curl through HTTPS_PROXY)', async () => {
    const r = await exec({ command: 'curl', args: ['-sSk', `https://tls.test:${tlsPort}/`], cwd: ws, sandbox: allowList(), timeoutMs: 30_000 })
    expect(r.output).toContain('tls-answered')
  })

  it('git clone over HTTP', async () => {
    const text = await toolSh(`git clone -q http://git.test:${gitPort}/repo.git cloned && cat cloned/hello.txt`, allowList())
    expect(text).toContain('cloned-through-the-proxy')
    expect(text).not.toContain('the sandbox refused')
  })

  it('SOCKS5 with the name resolved by the proxy (curl --socks5-hostname)', async () => {
    const r = await exec({
      command: 'sh',
      args: ['-c', `curl -sS --noproxy '' --socks5-hostname "\${ALL_PROXY#socks5h://}" http://origin.test:${port}/socks`],
      cwd: ws,
      sandbox: allowList(),
      timeoutMs: 30_000,
    })
    expect(r.output).toContain('origin-answered GET /socks')
  })

  it('a 50 MB body arrives whole through plain HTTP, CONNECT and SOCKS5 (its SHA-256)', async () => {
    const url = `http://big.test:${bigPort}/`
    const script = [
      `curl -sS ${url} | sha256sum`,
      `curl -sS --proxytunnel ${url} | sha256sum`,
      `curl -sS --noproxy '' --socks5-hostname "\${ALL_PROXY#socks5h://}" ${url} | sha256sum`,
    ].join('; ')
    const r = await exec({ command: 'sh', args: ['-c', script], cwd: ws, sandbox: allowList(), timeoutMs: 60_000 })
    expect(r.output.match(/[0-9a-f]{64}/g)).toEqual([BIG_SHA, BIG_SHA, BIG_SHA])
  }, 90_000)

  it("the client's half-close goes through a CONNECT tunnel, and the answer still comes back", async () => {
    // Python sends 3 MB through the tunnel, shuts its side, then reads the server's answer.
    const script = [
      'import hashlib, os, socket',
      'data = os.urandom(3_000_000)',
      'port = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])',
      's = socket.create_connection(("127.0.0.1", port))',
      `s.sendall(b"CONNECT half.test:${sumsPort} HTTP/1.1\\r\\n\\r\\n")`,
      'head = b""',
      'while not head.endswith(b"\\r\\n\\r\\n"): head += s.recv(1)',
      'print(head.split(b"\\r\\n")[0].decode())',
      's.sendall(data); s.shutdown(socket.SHUT_WR)',
      'answer = b""',
      'while True:',
      '    d = s.recv(65536)',
      '    if not d: break',
      '    answer += d',
      'print(answer.decode().strip() == f"got {len(data)} {hashlib.sha256(data).hexdigest()}", answer.decode().strip())',
    ].join('\n')
    const sandbox: SandboxOption = { mode: 'workspace-write', network: { allow: ['half.test'] } }
    const r = await exec({ command: 'python3', args: ['-c', script], cwd: ws, sandbox, timeoutMs: 30_000 })
    expect(r.output).toMatch(/^HTTP\/1\.1 200 Connection established\r?\nTrue got 3000000 [0-9a-f]{64}/)
  })

  // Without root the network namespace comes inside a user namespace (and the child forks). The
  // package is copied where that user can read it; the program runs as nobody.
  it.skipIf(process.getuid?.() !== 0 || !has('setpriv'))('as an unprivileged user: the allowed name through the proxy, a direct connection refused', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ptypilot-network-nobody-'))
    const root = join(__dirname, '..')
    for (const f of ['index.js', 'package.json', 'lib', ...readdirSync(root).filter((f) => /^ptypilot\..*\.node$/.test(f))]) {
      cpSync(join(root, f), join(home, 'pkg', f), { recursive: true })
    }
    const script = join(home, 'run.js')
    writeFileSync(script, `
      process.env.PTYPILOT_NET_TEST_HOSTS = 'origin.test=127.0.0.1'
      const { exec } = require(${JSON.stringify(join(home, 'pkg', 'index.js'))})
      const cmd = 'id -u; curl -sS http://origin.test:${port}/nobody; echo; curl -sS --noproxy "*" http://10.1.2.3:${port}/ || echo direct-failed'
      exec({ command: 'sh', args: ['-c', cmd], cwd: ${JSON.stringify(home)}, sandbox: { mode: 'workspace-write', network: { allow: ['origin.test'] } }, timeoutMs: 20000 })
        .then((r) => console.log(JSON.stringify(r.output)), (e) => console.log(JSON.stringify([e.code, e.message])))
    `)
    execFileSync('chown', ['-R', '65534:65534', home])
    try {
      // Not spawnSync: the origin server answers from this process's event loop.
      const run = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
        execFile('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, script], { encoding: 'utf8', timeout: 30_000 }, (_, stdout, stderr) => resolve({ stdout, stderr })),
      )
      const output = JSON.parse(run.stdout.trim().split('\n').pop() ?? '""')
      expect(output, run.stderr).toMatch(/^65534\norigin-answered GET \/nobody\n/)
      expect(output).toMatch(/Network is unreachable|Couldn't connect/)
      expect(output).toContain('direct-failed')
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })

  it('a process the program left behind keeps the allow list until it ends: the proxy answers it, a direct connection gets no route', async () => {
    // The program starts a detached job and exits at once; the job's connections come after the
    // session ended.
    const dir = mkdtempSync(join(ws, 'left-'))
    writeFileSync(
      join(dir, 'late.sh'),
      [
        'sleep 1',
        `curl -sS http://origin.test:${port}/late > late.txt 2>&1`,
        `python3 -c 'import socket; socket.create_connection(("10.1.2.3", 80), timeout=5)' > direct.txt 2>&1`,
        'touch done',
      ].join('\n'),
    )
    // SIGHUP ignored before the fork: the terminal's hang-up when sh exits must not end the job
    // before setsid detached it.
    const job = `trap '' HUP; setsid sh late.sh </dev/null >/dev/null 2>&1 &`
    const r = await exec({ command: 'sh', args: ['-c', job], cwd: dir, sandbox: allowList(), timeoutMs: 30_000 })
    expect(r.exitCode).toBe(0)
    for (let i = 0; i < 300 && !existsSync(join(dir, 'done')); i++) await new Promise((res) => setTimeout(res, 100))
    expect(readFileSync(join(dir, 'late.txt'), 'utf8')).toBe('origin-answered GET /late')
    expect(readFileSync(join(dir, 'direct.txt'), 'utf8')).toMatch(/Network is unreachable/)
  })

  it('a local port of this machine named in local', async () => {
    const script = `import socket; s = socket.create_connection(("127.0.0.1", ${localPort})); print(s.recv(100).decode().strip())`
    const r = await exec({ command: 'python3', args: ['-c', script], cwd: ws, sandbox: allowList({ local: [localPort] }), timeoutMs: 30_000 })
    expect(r.output).toContain('local-port-answered')
    // Not named: 127.0.0.1 inside the namespace is its own, and nothing listens there.
    const closed = await exec({ command: 'python3', args: ['-c', script], cwd: ws, sandbox: allowList(), timeoutMs: 30_000 })
    expect(closed.output).toContain('Connection refused')
  })
})

describe.skipIf(!CURL)('refused and told', () => {
  it('a denied name, an unlisted name and an IP literal, through the proxy', async () => {
    const text = await toolSh(
      `curl -sS http://denied.test:${port}/; curl -sS http://else.example:${port}/; curl -sS http://10.1.2.3:${port}/`,
      allowList(),
    )
    expect(text).not.toContain('origin-answered')
    expect(text).toContain(`the sandbox refused: a connection to denied.test:${port} (on the deny list)`)
    expect(text).toContain(`the sandbox refused: a connection to else.example:${port} (not on the network allow list; the person can add it: network.allow, or ptypilot mcp --allow-host else.example)`)
    expect(text).toContain(`the sandbox refused: a connection to 10.1.2.3:${port} (an IP address, not a name on the allow list`)
  })

  it('a direct socket, a DNS query and UDP get no route, and the reply says so', async () => {
    const direct = await toolSh(`python3 -c 'import socket; socket.create_connection(("93.184.216.34", 443), timeout=5)'`, allowList())
    expect(direct).toMatch(/the sandbox refused: a direct connection to 93\.184\.216\.34:443 \(only the proxy is reachable; set HTTPS_PROXY\)/)
    const dns = await toolSh(`python3 -c 'import socket; socket.getaddrinfo("example.org", 443)'`, allowList())
    expect(dns).toMatch(/the sandbox refused: a DNS query/)
    const udp = await toolSh(`python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("93.184.216.34", 9999))'`, allowList())
    expect(udp).toMatch(/the sandbox refused: UDP to 93\.184\.216\.34:9999/)
  })

  it('an allowed host that never answers, and one whose name does not resolve, fail in time and are told', async () => {
    const sandbox: SandboxOption = { mode: 'workspace-write', network: { allow: ['slow.test', 'nowhere.invalid'] } }
    const text = await toolSh(`curl -sS http://slow.test:${blackholePort}/; curl -sS https://nowhere.invalid/`, sandbox)
    // The program's own answer (the proxy's 504 body), then the reply's lines.
    expect(text).toContain(`ptypilot: could not reach slow.test:${blackholePort} (allowed, but it did not answer within 10 s)`)
    expect(text).toContain(`the network proxy could not reach slow.test:${blackholePort} (allowed, but it did not answer within 10 s)`)
    expect(text).toMatch(/the network proxy could not reach nowhere\.invalid:443 \(allowed, but its name did not resolve/)
    expect(text).not.toContain('the sandbox refused: the network proxy')
  }, 60_000)

  it('a refusal line is at most 5 lines in a reply', async () => {
    const script = Array.from({ length: 8 }, (_, i) => `curl -s http://n${i}.example/ >/dev/null`).join('; ')
    const text = await toolSh(script, allowList())
    const lines = text.split('\n').filter((l) => l.startsWith('the sandbox refused'))
    expect(lines.length).toBe(5)
    expect(lines[4]).toBe('the sandbox refused 4 more')
  })
})

describe.skipIf(!CURL)('ptypilot mcp', () => {
  it('--ask network: an elicitation allows one host and refuses another; the program sees each answer', async () => {
    const questions: string[] = []
    const served = await serveMcp(['--ask', 'network', '--allow-host', 'origin.test'], {
      cwd: ws,
      env: { PTYPILOT_NET_TEST_HOSTS: process.env.PTYPILOT_NET_TEST_HOSTS! },
      elicit({ message }) {
        questions.push(message)
        return message.includes('yes.test') ? { action: 'accept', content: { allow: true } } : { action: 'decline' }
      },
    })
    try {
      const yes = await served.call('pty_exec', { command: 'curl', args: ['-sS', `http://yes.test:${port}/y`] })
      expect(yes.text).toContain('origin-answered GET /y')
      const no = await served.call('pty_exec', { command: 'curl', args: ['-sS', `http://no.test:${port}/n`] })
      expect(no.text).not.toContain('origin-answered')
      expect(no.text).toContain(`the sandbox refused: a connection to no.test:${port} (the person refused it)`)
      // Listed: not asked. Asked once per host.
      expect((await served.call('pty_exec', { command: 'curl', args: ['-sS', `http://origin.test:${port}/o`] })).text).toContain('origin-answered')
      await served.call('pty_exec', { command: 'curl', args: ['-sS', `http://yes.test:${port}/again`] })
      expect(questions).toEqual([
        'A program the agent runs wants to reach yes.test, which the network allow list does not name. Allow yes.test for this session?',
        'A program the agent runs wants to reach no.test, which the network allow list does not name. Allow no.test for this session?',
      ])
    } finally {
      await served.close()
    }
  })

  it('without elicitation a host not on the list is refused, naming the host and how to allow it', async () => {
    const served = await serveMcp(['--ask', 'network'], { cwd: ws, env: { PTYPILOT_NET_TEST_HOSTS: process.env.PTYPILOT_NET_TEST_HOSTS! } })
    try {
      const reply = await served.call('pty_exec', { command: 'curl', args: ['-sS', `http://yes.test:${port}/`] })
      expect(reply.text).toContain(
        `the sandbox refused: a connection to yes.test:${port} (not on the network allow list, and this MCP client cannot ask the person (no elicitation support); the person can allow it: ptypilot mcp --allow-host yes.test)`,
      )
    } finally {
      await served.close()
    }
  })

  it('--network on and off; the default allow list is lib/network-allow.json', async () => {
    const listed = JSON.parse(readFileSync(join(__dirname, '..', 'lib', 'network-allow.json'), 'utf8')).allow as string[]
    expect(listed).toEqual(expect.arrayContaining(['registry.npmjs.org', 'pypi.org', 'files.pythonhosted.org', 'index.crates.io', 'static.crates.io', 'proxy.golang.org', 'sum.golang.org', 'github.com', 'codeload.github.com']))
    const on = await serveMcp(['--network', 'on'], { cwd: ws })
    try {
      const reply = await on.call('pty_exec', { command: 'curl', args: ['-sS', `http://127.0.0.1:${port}/on`] })
      expect(reply.text).toContain('origin-answered GET /on')
    } finally {
      await on.close()
    }
    const def = await serveMcp([], { cwd: ws })
    try {
      const reply = await def.call('pty_exec', { command: 'sh', args: ['-c', 'env | grep -E "^(HTTPS_PROXY|ALL_PROXY|npm_config_https_proxy)=" | sort'] })
      expect(reply.text).toMatch(/ALL_PROXY=socks5h:\/\/127\.0\.0\.1:3128\nHTTPS_PROXY=http:\/\/127\.0\.0\.1:3128\nnpm_config_https_proxy=http:\/\/127\.0\.0\.1:3128/)
    } finally {
      await def.close()
    }
  })
})

/** The registry answers from this machine (not through ptypilot), within 10 s. */
async function reachable(url: string) {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(10_000) })
    return r.status < 500
  } catch {
    return false
  }
}

describe("the package registries through ptypilot mcp's default allow list", () => {
  it('npm install', async (ctx) => {
    if (!(await reachable('https://registry.npmjs.org/is-number'))) ctx.skip('registry.npmjs.org is not reachable from this machine')
    const dir = mkdtempSync(join(base, 'npm-'))
    writeFileSync(join(dir, 'package.json'), '{ "name": "t", "version": "1.0.0" }\n')
    const served = await serveMcp([], { cwd: dir })
    try {
      const reply = await served.call('pty_exec', {
        command: 'npm',
        args: ['install', 'is-number@7.0.0', '--no-audit', '--no-fund', '--cache', join(dir, '.npm-cache')],
        timeout_ms: 120_000,
      })
      expect(reply.text).toMatch(/added 1 package/)
      expect(JSON.parse(readFileSync(join(dir, 'node_modules', 'is-number', 'package.json'), 'utf8')).version).toBe('7.0.0')
    } finally {
      await served.close()
    }
  }, 180_000)

  it('pip install into a venv', async (ctx) => {
    if (!(await reachable('https://pypi.org/simple/six/'))) ctx.skip('pypi.org is not reachable from this machine')
    const dir = mkdtempSync(join(base, 'pip-'))
    execFileSync('python3', ['-m', 'venv', join(dir, 'venv')], { stdio: 'pipe' })
    const served = await serveMcp([], { cwd: dir })
    try {
      const reply = await served.call('pty_exec', {
        command: join(dir, 'venv', 'bin', 'pip'),
        args: ['install', '--no-cache-dir', '--disable-pip-version-check', 'six==1.16.0'],
        timeout_ms: 120_000,
      })
      expect(reply.text).toMatch(/Successfully installed six-1\.16\.0/)
      expect(reply.text).not.toContain('the sandbox refused')
    } finally {
      await served.close()
    }
  }, 180_000)
})
