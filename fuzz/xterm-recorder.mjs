// A recorder of what a real xterm shows: the oracle of `npm run fuzz:xterm`.
//
// One fresh xterm per stream, at the size asked for (`-geometry COLSxROWS`,
// 80x25 unless told; the size xterm gave its terminal is read back with
// `stty size` before the stream and a recording at any other size is
// refused), under Xvfb, in UTF-8
// (`LANG=C.UTF-8`, `-u8`) with xterm's resource defaults otherwise
// (allowC1Printable false, precompose true; the ones set below only point
// the printer at a file). The stream is written through `stty raw -echo;
// cat FILE`, then `CSI i` (media copy, print screen): xterm handles every
// earlier byte first; before it DSR (`CSI 6 n`) asks for the cursor, whose
// reply bash reads from the terminal. xterm then prints the screen, plain (no attributes, no
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

/** The size a stream is recorded at unless told otherwise. */
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

/**
 * Another Debian's xterm, such as trixie's, can be the oracle: a root
 * folder made by `debootstrap --variant=minbase trixie DIR` with xterm
 * installed in it (`chroot DIR apt-get install xterm`), named by
 * PTYPILOT_XTERM_ROOT or the `root` option. xterm runs there by chroot,
 * with /proc, /dev, /dev/pts and /tmp (the X socket and the recorder's
 * files) bound to the host's. Needs root.
 */
export function xtermRoot(root = process.env.PTYPILOT_XTERM_ROOT) {
  return root ? path.resolve(root) : null
}

/** The command that runs xterm with `args`: [program, args]. */
function xtermCommand(root, args) {
  return root ? ['chroot', [root, 'xterm', ...args]] : ['xterm', args]
}

/**
 * Binds the folders xterm needs into `root` (where not yet bound); returns
 * the ones it bound, to be unbound by `unbind` (a root folder removed with
 * them bound would remove the host's /dev and /tmp).
 */
function bindInto(root) {
  const bound = []
  for (const dir of ['/proc', '/dev', '/dev/pts', '/tmp']) {
    const target = path.join(root, dir)
    fs.mkdirSync(target, { recursive: true })
    if (spawnSync('mountpoint', ['-q', target]).status === 0) continue
    const r = spawnSync('mount', ['--bind', dir, target], { stdio: 'inherit' })
    if (r.status !== 0) {
      unbind(bound)
      throw new Error(`could not bind ${dir} into ${root}`)
    }
    bound.push(target)
  }
  return bound
}

/** Unbinds what `bindInto` bound, the last first. */
function unbind(bound) {
  for (const target of bound.slice().reverse()) spawnSync('umount', ['-l', target], { stdio: 'inherit' })
}

/** xterm's version line, such as `XTerm(379)`. */
export function xtermVersion(root = xtermRoot()) {
  const [program, args] = xtermCommand(root, ['-version'])
  return spawnSync(program, args, { encoding: 'utf8' }).stdout.trim()
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

/**
 * The cursor, [row, col] from 0 on the screen, from the replies to CPR,
 * DECRQM 6 and 69 and DECRQSS r and s (one a line): in origin mode CPR
 * counts from the top margin, and from the left one with DECLRMM set.
 */
export function cursorOf(replies) {
  const [cpr, decom, declrmm, stbm, slrm] = replies.split('\n')
  const at = /\x1b\[(\d+);(\d+)$/.exec(cpr ?? '')
  const origin = /\?6;(\d)\$$/.exec(decom ?? '')
  const lrmm = /\?69;(\d)\$$/.exec(declrmm ?? '')
  const top = /1\$r(\d+);\d+r\x1b$/.exec(stbm ?? '')
  const left = /1\$r(\d+);\d+s\x1b$/.exec(slrm ?? '')
  if (!at || !origin || !lrmm || !top || !left) throw new Error(`xterm did not report the cursor: ${JSON.stringify(replies)}`)
  let [row, col] = [at[1] - 1, at[2] - 1]
  if (origin[1] === '1') {
    row += top[1] - 1
    if (lrmm[1] === '1') col += left[1] - 1
  }
  return [row, col]
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** A running Xvfb and a pool of xterms on it. */
export class XtermRecorder {
  /**
   * @param {{ jobs?: number, timeoutMs?: number, root?: string | null }} [options]
   *   `jobs`: xterms at a time; `timeoutMs`: how long one stream may take;
   *   `root`: the root folder of another Debian whose xterm to run (see
   *   `xtermRoot`).
   */
  constructor({ jobs = 3, timeoutMs = 15000, root = xtermRoot() } = {}) {
    this.jobs = jobs
    this.root = root
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
    if (this.root) {
      this.bound = bindInto(this.root)
      this.unbindAtExit = () => unbind(this.bound)
      process.once('exit', this.unbindAtExit)
      // A signal ends Node without 'exit': unbind, then end as the signal
      // would have.
      this.onSignal = (signal) => {
        unbind(this.bound)
        process.exit(128 + (signal === 'SIGINT' ? 2 : 15))
      }
      for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, this.onSignal)
    }
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
    unbind(this.bound ?? [])
    this.bound = []
    if (this.unbindAtExit) process.removeListener('exit', this.unbindAtExit)
    for (const signal of ['SIGINT', 'SIGTERM']) if (this.onSignal) process.removeListener(signal, this.onSignal)
    fs.rmSync(this.dir, { recursive: true, force: true })
  }

  /**
   * What xterm shows after `bytes` (a Uint8Array or string) at `cols` x
   * `rows`: `{ lines, cursor: [row, col] }` (from 0; with a wrap pending the
   * cursor is on the last column).
   */
  record(bytes, { cols = COLS, rows = ROWS } = {}) {
    return new Promise((resolve, reject) => {
      this.queue.push({ bytes, size: { cols, rows }, resolve, reject })
      this.pump()
    })
  }

  pump() {
    while (this.running < this.jobs && this.queue.length > 0) {
      const job = this.queue.shift()
      this.running++
      this.recordOne(job.bytes, job.size)
        .catch(() => this.recordOne(job.bytes, job.size)) // one retry (a busy machine)
        .then(job.resolve, job.reject)
        .finally(() => {
          this.running--
          this.pump()
        })
    }
  }

  async recordOne(bytes, { cols, rows }) {
    const id = this.serial++
    const stream = path.join(this.dir, `${id}.in`)
    const out = path.join(this.dir, `${id}.out`)
    const size = path.join(this.dir, `${id}.size`)
    const cursor = path.join(this.dir, `${id}.cursor`)
    fs.writeFileSync(stream, bytes)
    const resources = {
      printerCommand: `cat > ${out}.part && mv ${out}.part ${out}`,
      printAttributes: '0',
      printerControlMode: '0',
      printerExtent: 'true',
      printerFormFeed: 'false',
      printerNewLine: 'true',
    }
    const args = ['-u8', '-geometry', `${cols}x${rows}`]
    for (const [name, value] of Object.entries(resources)) args.push('-xrm', `XTerm*${name}: ${value}`)
    // `stty size` first: the rows and columns xterm gave the terminal; after
    // the stream, DSR (`CSI 6 n`) and its reply, the cursor; then the screen.
    // In origin mode xterm reports the cursor from the margins: DECRQM asks
    // for modes 6 (DECOM) and 69 (DECLRMM), DECRQSS for the margins.
    const ask = (query, end) => `printf '${query}'; IFS= read -r -s -t 10 -d '${end}' r; printf '%s\\n' "$r" >> "$2"; `
    const script =
      'stty size > "$1"; stty raw -echo; cat "$0"; ' +
      ask('\\033[6n', 'R') +
      ask('\\033[?6$p', 'y') +
      ask('\\033[?69$p', 'y') +
      ask('\\033P$qr\\033\\\\', '\\') +
      ask('\\033P$qs\\033\\\\', '\\') +
      'printf "\\033[i"; exec sleep 600'
    args.push('-e', 'bash', '-c', script, stream, size, cursor)
    const env = { ...process.env, DISPLAY: this.display, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' }
    delete env.XENVIRONMENT
    const [program, argv] = xtermCommand(this.root, args)
    const xterm = spawn(program, argv, { env, stdio: 'ignore' })
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
      const got = fs.readFileSync(size, 'utf8').trim()
      if (got !== `${rows} ${cols}`) {
        throw new Error(`xterm made a terminal of ${got} (rows cols), not ${rows} ${cols}`)
      }
      const at = cursorOf(fs.readFileSync(cursor, 'utf8'))
      this.recorded++
      return { lines: parseDump(fs.readFileSync(out, 'utf8'), rows), cursor: at }
    } finally {
      if (!exited) xterm.kill('SIGTERM')
      for (const file of [stream, out, size, cursor]) fs.rmSync(file, { force: true })
    }
  }
}
