'use strict'
// Reads a PE32+ file (a Windows DLL: the win32 addon) for the binary check: its machine, whether
// it is a DLL, the N-API names it exports, and the DLLs and functions it imports. Parsed here
// from the file's own tables (the COFF header, the optional header's data directories, the
// export and import directories), so no Windows tool is needed.

const fs = require('node:fs')

/** COFF machine numbers, named as scripts/platforms.js names architectures. @type {Record<number, string>} */
const MACHINES = { 0x8664: 'x86-64', 0xaa64: 'arm64', 0x14c: 'i386' }
/** IMAGE_FILE_DLL in the COFF characteristics. */
const IMAGE_FILE_DLL = 0x2000
/** The optional header's magic for PE32+ (64-bit). */
const PE32_PLUS = 0x20b

/** DLLs every Windows 10 has (the addon may import from these and from node.exe only). */
const SYSTEM_DLLS = /^(kernel32|kernelbase|ntdll|advapi32|bcrypt|bcryptprimitives|ws2_32|userenv|msvcrt|ucrtbase|shell32|user32|ole32|oleaut32|secur32|crypt32|psapi|dbghelp|synchronization|iphlpapi|ntdll)\.dll$|^api-ms-win-[a-z0-9-]+\.dll$/i
/** N-API's names. */
const NAPI = /^(napi|node_api)_/

/**
 * What the PE file `file` is and needs, as scripts/check-binary.js's `Facts`.
 * @param {string} file
 */
function readPe(file) {
  const buf = fs.readFileSync(file)
  const unknown = { format: 'unknown', machine: 'unknown', library: false, exports: [], imports: [], libraries: [], glibc: null, optional: [], minos: null, installName: null, localSymbols: null, signature: null }
  if (buf.length < 0x40 || buf.toString('latin1', 0, 2) !== 'MZ') return unknown
  const pe = buf.readUInt32LE(0x3c)
  if (pe + 24 > buf.length || buf.toString('latin1', pe, pe + 4) !== 'PE\0\0') return unknown
  const machine = MACHINES[buf.readUInt16LE(pe + 4)] ?? `0x${buf.readUInt16LE(pe + 4).toString(16)}`
  const sections = buf.readUInt16LE(pe + 6)
  const optSize = buf.readUInt16LE(pe + 20)
  const library = (buf.readUInt16LE(pe + 22) & IMAGE_FILE_DLL) !== 0
  const opt = pe + 24
  if (buf.readUInt16LE(opt) !== PE32_PLUS) return { ...unknown, format: 'pe32', machine, library }
  const dirCount = buf.readUInt32LE(opt + 108)
  const dir = (/** @type {number} */ i) => (i < dirCount ? { rva: buf.readUInt32LE(opt + 112 + i * 8), size: buf.readUInt32LE(opt + 116 + i * 8) } : { rva: 0, size: 0 })
  const table = opt + optSize
  /** @type {{ va: number, vsize: number, raw: number }[]} */
  const secs = []
  for (let i = 0; i < sections; i++) {
    const s = table + i * 40
    secs.push({ va: buf.readUInt32LE(s + 12), vsize: Math.max(buf.readUInt32LE(s + 8), buf.readUInt32LE(s + 16)), raw: buf.readUInt32LE(s + 20) })
  }
  const offset = (/** @type {number} */ rva) => {
    const s = secs.find((x) => rva >= x.va && rva < x.va + x.vsize)
    if (!s) throw new Error(`${file}: RVA 0x${rva.toString(16)} is in no section`)
    return rva - s.va + s.raw
  }
  const cstring = (/** @type {number} */ rva) => {
    const at = offset(rva)
    return buf.toString('latin1', at, buf.indexOf(0, at))
  }

  /** @type {string[]} */
  const exports = []
  const exp = dir(0)
  if (exp.rva) {
    const e = offset(exp.rva)
    const names = buf.readUInt32LE(e + 24)
    const nameTable = offset(buf.readUInt32LE(e + 32))
    for (let i = 0; i < names; i++) {
      const name = cstring(buf.readUInt32LE(nameTable + i * 4))
      if (NAPI.test(name)) exports.push(name)
    }
  }

  /** @type {string[]} */
  const libraries = []
  /** @type {string[]} */
  const imports = []
  const imp = dir(1)
  if (imp.rva) {
    for (let d = offset(imp.rva); ; d += 20) {
      const lookup = buf.readUInt32LE(d) || buf.readUInt32LE(d + 16)
      const nameRva = buf.readUInt32LE(d + 12)
      if (!lookup && !nameRva) break
      const dll = cstring(nameRva)
      // One entry per DLL (a DLL's functions may come in several descriptors).
      if (!libraries.some((l) => l.toLowerCase() === dll.toLowerCase())) libraries.push(dll)
      const allowed = SYSTEM_DLLS.test(dll) || /^node\.exe$/i.test(dll)
      for (let t = offset(lookup); ; t += 8) {
        const entry = buf.readBigUInt64LE(t)
        if (entry === 0n) break
        const name = entry >> 63n ? `#${Number(entry & 0xffffn)}` : cstring(Number(entry & 0x7fffffffn) + 2)
        if (!allowed || (/^node\.exe$/i.test(dll) && !NAPI.test(name))) imports.push(`${name} (from ${dll})`)
      }
    }
  }
  return { format: 'pe', machine, library, exports, imports, libraries, glibc: null, optional: [], minos: null, installName: null, localSymbols: null, signature: null }
}

module.exports = { readPe, SYSTEM_DLLS }
