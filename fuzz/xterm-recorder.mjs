// A recorder of what a real xterm shows: the oracle of `npm run fuzz:xterm`.
//
// One fresh xterm per stream, at 80x25, under Xvfb, in UTF-8
// (`LANG=C.UTF-8`, `-u8`) with xterm's resource defaults otherwise
// (allowC1Printable false, precompose true; the ones set below only point
// the printer at a file). The stream is written through `stty raw -echo;
// cat FILE`, then `CSI i` (media copy, print screen): xterm handles every
// earlier byte first, then prints the screen, plain (no attributes, no
// printer control codes, the whole page) to its printerCommand, which
// writes it to a file and renames it when done. The recorder waits for that
// file and ends the xterm. Several xterms run at a time, one display.
//
// xterm prints a wide character followed by U+FFFF (the cell of its right
// half); `parseDump` drops those, and trailing blanks.

import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** The size every stream is recorded at. */
export const COLS = 80
export const ROWS = 25

/** True when `name` is a program on PATH. */
function have(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0
}

/**
 * Installs Debian's xterm and Xvfb where one is missing (apt-get, waiting
 * for the lock other installs hold). Throws when that fails.
 */
export function ensurePrograms({ log = console.error } = {}) {
  const missing = [
    ['xterm', 'xterm'],
    ['Xvfb', 'xvfb'],
  ].filter(([program]) => !have(program))
  if (missing.length === 0) return
  const packages = missing.map(([, pkg]) => pkg)
  log(`installing ${packages.join(' ')} (apt-get)`)
  const apt = ['-o', 'DPkg::Lock::Timeout=900', 'install', '-y', '-qq', ...packages]
  let r = spawnSync('apt-get', apt, { stdio: 'inherit' })
  if (r.status !== 0) {
    spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=900', 'update', '-qq'], { stdio: 'inherit' })
    r = spawnSync('apt-get', apt, { stdio: 'inherit' })
  }
  if (r.status !== 0) throw new Error(`could not install ${packages.join(' ')}`)
}

/** xterm's version line, such as `XTerm(379)`. */
export function xtermVersion() {
  return spawnSync('xterm', ['-version'], { encoding: 'utf8' }).stdout.trim()
}

/**
 * The rows of a media-copy dump: U+FFFF (the right half of a wide
 * character) dropped, trailing spaces trimmed, ROWS rows.
 */
export function parseDump(text, rows = ROWS) {
  const lines = text.replace(/\uffff/g, '').split('\n').map((l) => l.replace(/ +$/, ''))
  const out = []
  for (let i = 0; i < rows; i++) out.push(lines[i] ?? '')
  return out
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** A running Xvfb and a pool of xterms on it. */
export class XtermRecorder {
  /**
   * @param {{ jobs?: number, timeoutMs?: number }} [options] `jobs`: xterms
   *   at a time; `timeoutMs`: how long one stream may take.
   */
  constructor({ jobs = 3, timeoutMs = 15000 } = {}) {
    this.jobs = jobs
    this.timeoutMs = timeoutMs
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptypilot-xterm-'))
    this.queue = []
    this.running = 0
    this.serial = 0
    this.recorded = 0
  }

  /** Starts Xvfb on a free display. */
  async start() {
    ensurePrograms()
    for (let n = 53; n < 153; n++) {
      if (fs.existsSync(`/tmp/.X${n}-lock`) || fs.existsSync(`/tmp/.X11-unix/X${n}`)) continue
      const xvfb = spawn('Xvfb', [`:${n}`, '-screen', '0', '1024x768x24', '-nolisten', 'tcp'], {
        stdio: 'ignore',
      })
      let exited = false
      xvfb.on('exit', () => {
        exited = true
      })
      for (let t = 0; t < 100 && !exited; t++) {
        if (fs.existsSync(`/tmp/.X11-unix/X${n}`)) {
          this.xvfb = xvfb
          this.display = `:${n}`
          return this
        }
        await sleep(50)
      }
      if (!exited) xvfb.kill('SIGKILL')
    }
    throw new Error('no display for Xvfb')
  }

  /** Stops Xvfb and removes the work folder. */
  close() {
    this.xvfb?.kill('SIGTERM')
    fs.rmSync(this.dir, { recursive: true, force: true })
  }

  /** What xterm shows after `bytes` (a Uint8Array or string): its rows. */
  record(bytes) {
    return new Promise((resolve, reject) => {
      this.queue.push({ bytes, resolve, reject })
      this.pump()
    })
  }

  pump() {
    while (this.running < this.jobs && this.queue.length > 0) {
      const job = this.queue.shift()
      this.running++
      this.recordOne(job.bytes)
        .catch(() => this.recordOne(job.bytes)) // one retry (a busy machine)
        .then(job.resolve, job.reject)
        .finally(() => {
          this.running--
          this.pump()
        })
    }
  }

  async recordOne(bytes) {
    const id = this.serial++
    const stream = path.join(this.dir, `${id}.in`)
    const out = path.join(this.dir, `${id}.out`)
    fs.writeFileSync(stream, bytes)
    const resources = {
      printerCommand: `cat > ${out}.part && mv ${out}.part ${out}`,
      printAttributes: '0',
      printerControlMode: '0',
      printerExtent: 'true',
      printerFormFeed: 'false',
      printerNewLine: 'true',
    }
    const args = ['-u8', '-geometry', `${COLS}x${ROWS}`]
    for (const [name, value] of Object.entries(resources)) args.push('-xrm', `XTerm*${name}: ${value}`)
    args.push('-e', 'sh', '-c', 'stty raw -echo; cat "$0"; printf "\\033[i"; exec sleep 600', stream)
    const env = { ...process.env, DISPLAY: this.display, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' }
    delete env.XENVIRONMENT
    const xterm = spawn('xterm', args, { env, stdio: 'ignore' })
    let exited = false
    xterm.on('exit', () => {
      exited = true
    })
    try {
      const start = Date.now()
      while (!fs.existsSync(out)) {
        if (exited) throw new Error('xterm exited before it printed the screen')
        if (Date.now() - start > this.timeoutMs) throw new Error('xterm did not print the screen in time')
        await sleep(15)
      }
      this.recorded++
      return parseDump(fs.readFileSync(out, 'utf8'))
    } finally {
      if (!exited) xterm.kill('SIGTERM')
      fs.rmSync(stream, { force: true })
      fs.rmSync(out, { force: true })
    }
  }
}
