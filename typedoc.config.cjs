'use strict'
// The API reference (TypeDoc): `npm run docs` builds it from the public types
// into docs/api/. A warning fails the build (an export without documentation,
// a broken link).
//
// Source links ("Defined in …") point at the hosted repository only when
// there is one to point at: this checkout's `origin` is a GitHub, GitLab or
// Bitbucket URL and HEAD is a commit. They are then set explicitly (the
// template and the commit), so TypeDoc asks git nothing more. Anywhere else
// (a release tarball, a fresh `git init`, a mirror whose remote is a plain
// path or another host) the reference is built without source links, with no
// warning: it must build wherever the source is.

const { execFileSync } = require('node:child_process')

/** Web hosts whose file views TypeDoc's links fit: the path to a file at a revision, and the line anchor. */
const HOSTS = {
  'github.com': { blob: 'blob', line: 'L' },
  'gitlab.com': { blob: '-/blob', line: 'L' },
  'bitbucket.org': { blob: 'src', line: 'lines-' },
}

/** `git ARGS` in this folder: its output, trimmed, or null when git fails (or is not installed). */
function git(...args) {
  try {
    return execFileSync('git', ['-C', __dirname, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return null
  }
}

/** The source-link options for this checkout (see the header). */
function sourceLinks() {
  const remote = git('remote', 'get-url', 'origin')
  // https://github.com/o/r(.git), git@github.com:o/r(.git), ssh://git@github.com/o/r(.git)
  const m = remote === null ? null : /^(?:https:\/\/|ssh:\/\/)?(?:[^@/]+@)?([^/:]+)[:/]([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(remote)
  const host = m === null ? undefined : HOSTS[m[1]]
  const revision = host === undefined ? null : git('rev-parse', '--verify', 'HEAD')
  if (host === undefined || !revision) return { disableSources: true }
  return {
    sourceLinkTemplate: `https://${m[1]}/${m[2]}/${m[3]}/${host.blob}/{gitRevision}/{path}#${host.line}{line}`,
    gitRevision: revision,
  }
}

/** @type {Partial<import('typedoc').TypeDocOptions>} */
module.exports = {
  name: 'ptypilot',
  entryPoints: ['index.d.ts', 'lib/vitest.d.mts', 'lib/node-pty.d.ts'],
  tsconfig: 'tsconfig.docs.json',
  out: 'docs/api',
  readme: 'none',
  treatWarningsAsErrors: true,
  validation: { notExported: true, invalidLink: true, notDocumented: true },
  excludePrivate: true,
  ...sourceLinks(),
}
