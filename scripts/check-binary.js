#!/usr/bin/env node
'use strict'
// Checks a built addon against what its platform needs, without running it
// (no arm64 or macOS program runs on the machine that builds them all):
//
// - format and architecture (ELF x86-64/aarch64 shared object, Mach-O
//   x86_64/arm64 dylib);
// - it exports `napi_register_module_v1`, and it imports nothing but N-API
//   and the platform's C library: on Linux, glibc's libraries (libc, libm,
//   ld.so, ...) and libgcc_s's unwinder, which every glibc system has; on
//   macOS, libSystem (every other library it names must be a system one);
// - Linux: the newest glibc symbol version it needs is at most the floor;
// - macOS: the minimum OS version (LC_BUILD_VERSION) is at most Node 20's,
//   the install name is no build path, local symbols are stripped, and the
//   ad-hoc code signature matches the file's pages (arm64 macOS refuses to
//   load code whose signature does not).
//
// ELF files are read with LLVM's `llvm-readelf` (any architecture); Mach-O
// files are parsed here, PE32+ files by scripts/windows/pe.js (Windows: system DLLs and
// node.exe only). One reader per format (`READERS`).
//
// Usage: node scripts/check-binary.js KEY FILE   (KEY: a platform of scripts/platforms.js)

const { spawnSync, execFileSync } = require('node:child_process')
const crypto = require('node:crypto')
const fs = require('node:fs')
const { platform: platformOf } = require('./platforms.js')
const { readPe, SYSTEM_DLLS } = require('./windows/pe.js')

/**
 * @typedef {object} Facts what a binary is and needs
 * @property {string} format        'elf' | 'macho' | 'unknown'
 * @property {string} machine       the architecture, as scripts/platforms.js names it
 * @property {boolean} library      a shared library (ELF DYN, Mach-O MH_DYLIB)
 * @property {string[]} exports     the defined global symbols of interest (napi_*)
 * @property {string[]} imports     the undefined symbols that are not allowed, with where they come from
 * @property {string[]} libraries   the shared libraries it needs
 * @property {string | null} glibc  ELF: the newest GLIBC_x.y version it needs
 * @property {string[]} optional    ELF: weak undefined symbols (bound to null where absent)
 * @property {string | null} minos  Mach-O: the minimum macOS version
 * @property {string | null} installName Mach-O: LC_ID_DYLIB
 * @property {number | null} localSymbols Mach-O: local symbols left in the symbol table
 * @property {string | null} signature Mach-O: 'valid', 'none', or what is wrong
 */

/** The libraries a Linux addon may need: glibc's and the GCC unwinder. */
const GLIBC_LIBRARIES = /^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|libutil\.so\.1|librt\.so\.1|ld-linux-(x86-64|aarch64)\.so\.[12]|libgcc_s\.so\.1)$/
/** N-API's symbols (napi-rs resolves them at load time; a build may import them too). */
const NAPI = /^_?(napi|node_api)_/

/** @param {string} a @param {string} b  dotted versions, numerically */
function compareVersions(a, b) {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)]
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) - (y[i] || 0)
  }
  return 0
}

/** @param {string} file @returns {Facts} */
function readElf(file) {
  const readelf = (/** @type {string[]} */ args) => execFileSync('llvm-readelf', [...args, file], { encoding: 'utf8', maxBuffer: 64 << 20 })
  const header = readelf(['-h'])
  const machine = /Machine:\s+AArch64/.test(header) ? 'aarch64' : /Machine:\s+Advanced Micro Devices X86-64/.test(header) ? 'x86-64' : (/Machine:\s+(.*)/.exec(header) || [])[1] || '?'
  const library = /Type:\s+DYN/.test(header)
  const libraries = [...readelf(['-d']).matchAll(/\(NEEDED\)\s+Shared library: \[(.+)\]/g)].map((m) => m[1])
  /** @type {string[]} */ const exports = []
  /** @type {string[]} */ const imports = []
  /** @type {string[]} */ const optional = []
  const versions = new Set()
  for (const line of readelf(['--dyn-syms', '-W']).split('\n')) {
    // Num: Value Size Type Bind Vis Ndx Name
    const cols = line.trim().split(/\s+/)
    if (cols.length < 8 || !/^\d+:$/.test(cols[0])) continue
    const [bind, ndx, full] = [cols[4], cols[6], cols[7]]
    const [name, version = ''] = full.split(/@+/)
    if (ndx !== 'UND') {
      if (bind === 'GLOBAL' && NAPI.test(name)) exports.push(name)
      continue
    }
    if (version.startsWith('GLIBC_')) versions.add(version.slice('GLIBC_'.length))
    if (version.startsWith('GLIBC_') || version.startsWith('GCC_') || NAPI.test(name)) continue
    if (bind === 'WEAK') optional.push(name)
    else imports.push(`${name}${version ? `@${version}` : ''} (unversioned: not from glibc)`)
  }
  const glibc = [...versions].sort(compareVersions).pop() || null
  return { format: 'elf', machine, library, exports, imports, libraries, glibc, optional, minos: null, installName: null, localSymbols: null, signature: null }
}

const LC = { SYMTAB: 0x2, DYSYMTAB: 0xb, LOAD_DYLIB: 0xc, ID_DYLIB: 0xd, CODE_SIGNATURE: 0x1d, VERSION_MIN_MACOSX: 0x24, BUILD_VERSION: 0x32, LOAD_WEAK_DYLIB: 0x80000018, REEXPORT_DYLIB: 0x8000001f, LOAD_UPWARD_DYLIB: 0x80000023 }
const CPU = { 0x01000007: 'x86_64', 0x0100000c: 'arm64' }

/** `xxxx.yy.zz` packed in 32 bits, as Mach-O stores versions. */
function machoVersion(/** @type {number} */ v) {
  const [major, minor, patch] = [v >>> 16, (v >>> 8) & 0xff, v & 0xff]
  return patch ? `${major}.${minor}.${patch}` : `${major}.${minor}`
}

/**
 * Whether the code signature's page hashes match the file (the ad-hoc
 * signature the linker writes; a tool that edits the file after it must
 * write a new one).
 * @param {Buffer} buf @param {number} offset @param {number} size
 */
function checkSignature(buf, offset, size) {
  const blob = buf.subarray(offset, offset + size)
  if (blob.length < 12 || blob.readUInt32BE(0) !== 0xfade0cc0) return 'no signature superblob at LC_CODE_SIGNATURE'
  const count = blob.readUInt32BE(8)
  for (let i = 0; i < count; i++) {
    const [type, at] = [blob.readUInt32BE(12 + i * 8), blob.readUInt32BE(16 + i * 8)]
    if (type !== 0) continue // CSSLOT_CODEDIRECTORY
    const cd = blob.subarray(at)
    if (cd.readUInt32BE(0) !== 0xfade0c02) return 'the code directory has a wrong magic'
    const hashOffset = cd.readUInt32BE(16)
    const nCodeSlots = cd.readUInt32BE(28)
    const codeLimit = cd.readUInt32BE(32)
    const [hashSize, hashType, pageShift] = [cd[36], cd[37], cd[39]]
    const algorithm = { 1: 'sha1', 2: 'sha256' }[hashType]
    if (!algorithm) return `unknown hash type ${hashType}`
    const page = 1 << pageShift
    if (nCodeSlots !== Math.ceil(codeLimit / page)) return `${nCodeSlots} page hashes for ${codeLimit} bytes`
    for (let slot = 0; slot < nCodeSlots; slot++) {
      const data = buf.subarray(slot * page, Math.min((slot + 1) * page, codeLimit))
      const want = cd.subarray(hashOffset + slot * hashSize, hashOffset + (slot + 1) * hashSize)
      const got = crypto.createHash(algorithm).update(data).digest().subarray(0, hashSize)
      if (!got.equals(want)) return `page ${slot} does not match its hash (the file changed after signing)`
    }
    if (codeLimit !== offset) return `the signature covers ${codeLimit} bytes, but the code ends at ${offset}`
    return 'valid'
  }
  return 'no code directory'
}

/** @param {string} file @returns {Facts} */
function readMachO(file) {
  const buf = fs.readFileSync(file)
  if (buf.readUInt32LE(0) !== 0xfeedfacf) throw new Error(`${file}: not a 64-bit little-endian Mach-O file`)
  const machine = CPU[/** @type {keyof typeof CPU} */ (buf.readUInt32LE(4))] || `cputype 0x${buf.readUInt32LE(4).toString(16)}`
  const library = buf.readUInt32LE(12) === 6 // MH_DYLIB
  const ncmds = buf.readUInt32LE(16)
  /** @type {string[]} */ const libraries = []
  let [minos, installName, signature] = [/** @type {string | null} */ (null), /** @type {string | null} */ (null), 'none']
  let symtab = null
  let dysymtab = null
  const cstring = (/** @type {number} */ at) => buf.toString('utf8', at, buf.indexOf(0, at))
  for (let i = 0, at = 32; i < ncmds; i++) {
    const [cmd, size] = [buf.readUInt32LE(at), buf.readUInt32LE(at + 4)]
    if (cmd === LC.ID_DYLIB) installName = cstring(at + buf.readUInt32LE(at + 8))
    if ([LC.LOAD_DYLIB, LC.LOAD_WEAK_DYLIB, LC.REEXPORT_DYLIB, LC.LOAD_UPWARD_DYLIB].includes(cmd)) libraries.push(cstring(at + buf.readUInt32LE(at + 8)))
    if (cmd === LC.BUILD_VERSION) minos = machoVersion(buf.readUInt32LE(at + 12))
    if (cmd === LC.VERSION_MIN_MACOSX) minos = machoVersion(buf.readUInt32LE(at + 8))
    if (cmd === LC.SYMTAB) symtab = { symoff: buf.readUInt32LE(at + 8), nsyms: buf.readUInt32LE(at + 12), stroff: buf.readUInt32LE(at + 16) }
    if (cmd === LC.DYSYMTAB) dysymtab = { nlocal: buf.readUInt32LE(at + 12), iext: buf.readUInt32LE(at + 16), next: buf.readUInt32LE(at + 20), iundef: buf.readUInt32LE(at + 24), nundef: buf.readUInt32LE(at + 28) }
    if (cmd === LC.CODE_SIGNATURE) signature = checkSignature(buf, buf.readUInt32LE(at + 8), buf.readUInt32LE(at + 12))
    at += size
  }
  /** @type {string[]} */ const exports = []
  /** @type {string[]} */ const imports = []
  if (symtab && dysymtab) {
    const name = (/** @type {number} */ i) => cstring(symtab.stroff + buf.readUInt32LE(symtab.symoff + i * 16))
    for (let i = dysymtab.iext; i < dysymtab.iext + dysymtab.next; i++) if (NAPI.test(name(i))) exports.push(name(i).replace(/^_/, ''))
    for (let i = dysymtab.iundef; i < dysymtab.iundef + dysymtab.nundef; i++) {
      const sym = name(i)
      // Two-level namespace: the library's 1-based ordinal is n_desc's high byte.
      const ordinal = buf.readUInt16LE(symtab.symoff + i * 16 + 6) >> 8
      const from = ordinal >= 1 && ordinal <= libraries.length ? libraries[ordinal - 1] : ordinal === 0xfe ? 'dynamic lookup' : `ordinal ${ordinal}`
      if (NAPI.test(sym) || /\/libSystem\.B\.dylib$/.test(from)) continue
      imports.push(`${sym} (from ${from})`)
    }
  }
  return { format: 'macho', machine, library, exports, imports, libraries, glibc: null, optional: [], minos, installName, localSymbols: dysymtab ? dysymtab.nlocal : null, signature }
}

/** One reader per binary format. */
const READERS = { elf: readElf, macho: readMachO, pe: readPe }

/**
 * What `file` is and needs.
 * @param {string} file @param {import('./platforms.js').Platform} platform
 * @returns {Facts}
 */
function inspect(file, platform) {
  const read = READERS[/** @type {keyof typeof READERS} */ (platform.format)]
  if (!read) throw new Error(`no reader for ${platform.format} files`)
  return read(file)
}

/**
 * Everything wrong with `facts` for `platform` (empty when it passes).
 * @param {Facts} facts @param {import('./platforms.js').Platform} platform
 * @returns {string[]}
 */
function problems(facts, platform) {
  const out = []
  if (facts.format !== platform.format) out.push(`format ${facts.format}, expected ${platform.format}`)
  if (facts.machine !== platform.machine) out.push(`architecture ${facts.machine}, expected ${platform.machine}`)
  if (!facts.library) out.push('not a shared library')
  if (!facts.exports.includes('napi_register_module_v1')) out.push('does not export napi_register_module_v1')
  for (const i of facts.imports) out.push(`imports ${i}`)
  if (platform.format === 'elf') {
    for (const l of facts.libraries) if (!GLIBC_LIBRARIES.test(l)) out.push(`needs ${l}, which is not part of glibc`)
    if (!facts.glibc) out.push('needs no GLIBC_ symbol version at all (not linked against glibc?)')
    else if (platform.glibc && compareVersions(facts.glibc, platform.glibc) > 0) out.push(`needs GLIBC_${facts.glibc}, newer than ${platform.glibc}`)
  }
  if (platform.format === 'pe') {
    // Windows: system DLLs only (a mingw runtime DLL such as libgcc_s_seh-1.dll or
    // libwinpthread-1.dll would be missing on the user's machine), and node.exe for N-API.
    for (const l of facts.libraries) if (!SYSTEM_DLLS.test(l) && !/^node\.exe$/i.test(l)) out.push(`needs ${l}, which is not a system DLL`)
  }
  if (platform.format === 'macho') {
    for (const l of facts.libraries) if (!l.startsWith('/usr/lib/')) out.push(`needs ${l}, which is not a system library`)
    if (!facts.libraries.includes('/usr/lib/libSystem.B.dylib')) out.push('does not link libSystem')
    if (!facts.minos) out.push('no minimum macOS version')
    else if (platform.macos && compareVersions(facts.minos, platform.macos) > 0) out.push(`minimum macOS ${facts.minos}, newer than ${platform.macos}`)
    if (!facts.installName || facts.installName.includes('/target/') || facts.installName.startsWith('/')) out.push(`install name ${facts.installName} is a build path`)
    if (facts.localSymbols !== 0) out.push(`${facts.localSymbols} local symbols: not stripped`)
    if (facts.signature !== 'valid' && !(facts.signature === 'none' && platform.machine === 'x86_64')) out.push(`code signature: ${facts.signature}`)
  }
  return out
}

/**
 * The problems of the binary `file` for `platform` (empty when it passes).
 * @param {string} file @param {import('./platforms.js').Platform} platform
 */
function checkBinary(file, platform) {
  return problems(inspect(file, platform), platform)
}

/** Whether the tools the checks read ELF files with are installed. */
function toolsAvailable() {
  return spawnSync('llvm-readelf', ['--version'], { stdio: 'ignore' }).status === 0
}

if (require.main === module) {
  const [key, file] = process.argv.slice(2)
  const platform = platformOf(key)
  const facts = inspect(file, platform)
  console.log(JSON.stringify(facts, null, 2))
  const found = problems(facts, platform)
  for (const p of found) console.error(`${file}: ${p}`)
  process.exit(found.length ? 1 : 0)
}

module.exports = { inspect, problems, checkBinary, checkSignature, toolsAvailable, compareVersions }
