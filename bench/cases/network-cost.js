'use strict'
// Case: what the network by host name costs (sandbox.network: { allow }).
// 1. A 50 MB download from a server on 127.0.0.1 by curl in the sandbox:
//    through the proxy (a made-up name mapped to 127.0.0.1 by the proxy's
//    test resolver map, curl reaching the proxy inside the network namespace
//    and the proxy the server outside) against directly (network on, the
//    same curl to 127.0.0.1). curl's own time_total, so the spawn is not in
//    it. Target: the proxy's throughput at least 0.8 of direct (issue 50).
// 2. Spawn-to-exit of `true` in workspace-write with the allow list (the
//    network namespace, lo brought up, the listener handed over) against
//    workspace-write with the network on; within sandbox-cost's target.
// The variants take turns, so load from elsewhere hits them alike: the same server (in this
// process, as the proxy is), the same curl, the same 50 MB, one warm-up download each, then
// `--rounds` pairs; the ratio is the median of the rounds' ratios. 'direct' is the same path
// without the proxy: the same sandbox mode with the network on, curl straight to 127.0.0.1.
//
//   node bench/cases/network-cost.js [--rounds=5] [--n=60] [--mb=50]

process.env.PTYPILOT_NET_TEST_HOSTS = 'big.test=127.0.0.1'

const fs = require('node:fs')
const http = require('node:http')
const os = require('node:os')
const path = require('node:path')
const { performance } = require('node:perf_hooks')
const { PtySession, exec } = require('../..')
const { summary, shuffled, emit, log, argv } = require('../lib/stats')

const opts = argv()
const ROUNDS = Number(opts.rounds || 5)
const N = Number(opts.n || 60)
const MB = Number(opts.mb || 50)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptypilot-bench-network-'))
const body = Buffer.alloc(MB * 1e6, 'x')
const server = http.createServer((_, res) => {
  res.setHeader('Content-Length', body.length)
  res.end(body)
})

const ALLOW = { mode: 'workspace-write', network: { allow: ['big.test'] } }
const ON = { mode: 'workspace-write', network: 'on' }

/** Seconds curl took for the download (its time_total), checking the size. */
async function download(url, sandbox) {
  const r = await exec({ command: 'curl', args: ['-sS', '-o', '/dev/null', '-w', '%{size_download} %{time_total}', url], cwd: dir, sandbox, timeoutMs: 120_000 })
  const [size, secs] = r.output.trim().split(/\s+/).map(Number)
  if (r.exitCode !== 0 || size !== body.length) throw new Error(`curl ${url}: exit ${r.exitCode}, ${r.output.trim()}`)
  return secs
}

async function spawnOnce(sandbox) {
  const t0 = performance.now()
  const s = PtySession.spawn({ command: 'true', cwd: dir, sandbox })
  const exit = await s.exited
  if (exit.exitCode !== 0) throw new Error(`true exited ${exit.exitCode}`)
  return performance.now() - t0
}

async function main() {
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  const port = server.address().port
  const variants = [
    { name: 'direct', url: `http://127.0.0.1:${port}/`, sandbox: ON },
    { name: 'proxy', url: `http://big.test:${port}/`, sandbox: ALLOW },
  ]
  const mibs = { direct: [], proxy: [] }
  const ratios = []
  // Warm-up: one download each way (the proxy's runtime and thread start, the page cache, curl's
  // first run) before any is counted.
  for (const v of variants) await download(v.url, v.sandbox)
  const load = os.loadavg()[0]
  for (let r = 0; r < ROUNDS; r++) {
    const got = {}
    for (const v of shuffled(variants, r)) got[v.name] = body.length / 2 ** 20 / (await download(v.url, v.sandbox))
    mibs.direct.push(got.direct)
    mibs.proxy.push(got.proxy)
    ratios.push(got.proxy / got.direct)
    log(`round ${r + 1}: direct ${got.direct.toFixed(0)} MiB/s, proxy ${got.proxy.toFixed(0)} MiB/s (${(got.proxy / got.direct).toFixed(2)}×)`)
  }
  await spawnOnce(ALLOW) // warm-up
  const spawn = { on: [], allow: [] }
  for (let k = 0; k < N; k++) {
    for (const [name, sb] of shuffled([['on', ON], ['allow', ALLOW]], k)) spawn[name].push(await spawnOnce(sb))
  }
  const rows = {
    download: { mb: MB, direct: summary(mibs.direct), proxy: summary(mibs.proxy), ratio: summary(ratios) },
    spawn: { on: summary(spawn.on), allow: summary(spawn.allow), ratio: summary(spawn.allow).median / summary(spawn.on).median },
  }
  log(`download ${MB} MB: direct ${rows.download.direct.median.toFixed(0)} MiB/s, proxy ${rows.download.proxy.median.toFixed(0)} MiB/s, ratio ${rows.download.ratio.median.toFixed(2)}×`)
  log(`spawn true: network on ${rows.spawn.on.median.toFixed(2)} ms, allow list ${rows.spawn.allow.median.toFixed(2)} ms (${rows.spawn.ratio.toFixed(2)}×)`)
  log(`load average at the start ${load.toFixed(1)}, at the end ${os.loadavg()[0].toFixed(1)} (${os.cpus().length} CPUs)`)
  emit({ case: 'network-cost', rounds: ROUNDS, n: N, load: [load, os.loadavg()[0]], ...rows })
}

main().then(
  () => {
    server.close()
    fs.rmSync(dir, { recursive: true, force: true })
    process.exit(0)
  },
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
