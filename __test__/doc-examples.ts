// The runnable documentation examples: finds the fenced code blocks of README.md and docs/**/*.md
// marked `runnable`, type-checks them against the package's public types as a user's project
// would import them (`import { PtySession } from 'ptypilot'`), runs them against real programs
// and compares what they print with the `text output` block shown after them. The marker and
// its attributes are described in docs/writing-docs.md.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import ts from 'typescript'

/** The repository (the package a project would install). */
export const repoRoot = resolve(__dirname, '..')

/** Packages a documentation project has installed beside `ptypilot`: linked from the repository's node_modules. */
const linkedPackages = ['vitest', '@types', '@anthropic-ai/sdk', 'openai']

/** A fenced block marked runnable, with the output block shown after it. */
export interface DocExample {
  /** The Markdown file, relative to the repository. */
  page: string
  /** 1-based line of the block's opening fence. */
  line: number
  /** `ts`, `js` or `sh`. */
  lang: 'ts' | 'js' | 'sh'
  /** The code, its fence's indentation removed. */
  code: string
  /** The file the example is saved as in its page's directory. */
  file: string
  /** Run with Vitest (the file is a `*.test.ts`) rather than with node or bash. */
  vitest: boolean
  /** Expected exit code. */
  exit: number
  /** Run it (false: only saved and type-checked, a program another example runs). */
  run: boolean
  /** Which output the `text output` block shows. */
  stream: 'stdout' | 'stderr'
  /** Milliseconds the run may take. */
  timeoutMs: number
  /** Programs it runs that a machine may lack (`needs=fish,vim`): where one is missing it is skipped, with the reason. */
  needs: string[]
  /** The `text output` block after it, or null when it shows none. */
  output: { text: string; line: number } | null
}

/** What running one example gave. */
export interface ExampleRun {
  example: DocExample
  exitCode: number | null
  stdout: string
  stderr: string
  timedOut: boolean
}

const fence = /^(\s*)(`{3,}|~{3,})\s*(.*)$/

/** Every runnable block of one Markdown text. `page` names it in messages. */
export function extractExamples(markdown: string, page: string): DocExample[] {
  const lines = markdown.split('\n')
  const blocks: { info: string; code: string; line: number }[] = []
  let i = 0
  while (i < lines.length) {
    const open = fence.exec(lines[i])
    if (!open) {
      i++
      continue
    }
    const [, indent, marks, info] = open
    const start = i
    const body: string[] = []
    i++
    while (i < lines.length) {
      const close = /^(\s*)(`{3,}|~{3,})\s*$/.exec(lines[i])
      if (close && close[2][0] === marks[0] && close[2].length >= marks.length) break
      body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i].trimStart())
      i++
    }
    if (i >= lines.length) throw new Error(`${page}:${start + 1}: the code block is never closed`)
    blocks.push({ info: info.trim(), code: body.join('\n') + '\n', line: start + 1 })
    i++
  }
  const examples: DocExample[] = []
  let n = 0
  for (let b = 0; b < blocks.length; b++) {
    const words = blocks[b].info.split(/\s+/)
    if (!words.includes('runnable')) continue
    const lang = words[0]
    if (lang !== 'ts' && lang !== 'js' && lang !== 'sh') {
      throw new Error(`${page}:${blocks[b].line}: a runnable block is ts, js or sh, not '${lang}'`)
    }
    const attrs: Record<string, string> = {}
    for (const word of words.slice(1)) {
      if (word === 'runnable') continue
      const eq = word.indexOf('=')
      if (eq < 1) throw new Error(`${page}:${blocks[b].line}: unknown word '${word}' in the info string (attributes are key=value)`)
      attrs[word.slice(0, eq)] = word.slice(eq + 1)
    }
    for (const key of Object.keys(attrs)) {
      if (!['file', 'exit', 'timeout', 'run', 'stream', 'needs'].includes(key)) throw new Error(`${page}:${blocks[b].line}: unknown attribute '${key}'`)
    }
    n++
    const file = attrs.file ?? `example-${n}.${lang === 'ts' ? 'ts' : lang === 'js' ? 'mjs' : 'sh'}`
    if (attrs.run !== undefined && attrs.run !== 'false') throw new Error(`${page}:${blocks[b].line}: run= takes only false`)
    if (attrs.stream !== undefined && attrs.stream !== 'stdout' && attrs.stream !== 'stderr') {
      throw new Error(`${page}:${blocks[b].line}: stream= is stdout or stderr`)
    }
    if (!/^[\w.-]+$/.test(file)) throw new Error(`${page}:${blocks[b].line}: file=${file} must be a plain file name`)
    const next = blocks[b + 1]
    const output = next && next.info.split(/\s+/).join(' ') === 'text output' ? { text: next.code, line: next.line } : null
    examples.push({
      page,
      line: blocks[b].line,
      lang,
      code: blocks[b].code,
      file,
      vitest: /\.test\.[mc]?[tj]s$/.test(file),
      exit: attrs.exit === undefined ? 0 : Number(attrs.exit),
      run: attrs.run !== 'false',
      stream: attrs.stream === 'stderr' ? 'stderr' : 'stdout',
      timeoutMs: attrs.timeout === undefined ? 60_000 : Number(attrs.timeout),
      needs: attrs.needs === undefined ? [] : attrs.needs.split(','),
      output,
    })
  }
  return examples
}

/** Why `example` cannot run here (the programs of its `needs=` this machine lacks), or null. */
export function missingPrograms(example: DocExample): string | null {
  const missing = example.needs.filter((program) => spawnSync('sh', ['-c', `command -v ${program}`]).status !== 0)
  return missing.length === 0 ? null : `${where(example)}: skipped: ${missing.join(', ')} not installed`
}

/** README.md and every Markdown file under docs/ (the generated API reference aside), relative to `root`. */
export function documentationPages(root = repoRoot): string[] {
  const pages = ['README.md']
  const walk = (dir: string) => {
    let entries: import('node:fs').Dirent[]
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name)
      if (entry.isDirectory() && path !== join('docs', 'api')) walk(path)
      else if (entry.isFile() && entry.name.endsWith('.md')) pages.push(path)
    }
  }
  walk('docs')
  return pages
}

/**
 * A project directory for the examples: `package.json` (an ES module project), `node_modules`
 * with `ptypilot` linked to `packageRoot` (as `npm install` would put it) and the few packages a
 * documentation example may import, and one directory per page. Remove it with `rmSync`.
 */
export function makeProject(packageRoot = repoRoot): string {
  const root = mkdtempSync(join(tmpdir(), 'ptypilot-doc-examples-'))
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'doc-examples', private: true, type: 'module' }))
  mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(packageRoot, join(root, 'node_modules', 'ptypilot'))
  symlinkSync(join(packageRoot, 'bin', 'ptypilot.js'), join(root, 'node_modules', '.bin', 'ptypilot'))
  for (const name of linkedPackages) {
    mkdirSync(dirname(join(root, 'node_modules', name)), { recursive: true })
    symlinkSync(join(repoRoot, 'node_modules', name), join(root, 'node_modules', name))
  }
  return root
}

/** The directory a page's examples run in (they share it, in order: one may use what an earlier one wrote). */
export function pageDir(project: string, page: string): string {
  return join(project, page.replace(/[^\w.-]+/g, '_'))
}

/** Writes every example to its page's directory. */
export function writeExamples(project: string, examples: DocExample[]): void {
  const seen = new Set<string>()
  for (const example of examples) {
    const dir = pageDir(project, example.page)
    const path = join(dir, example.file)
    if (seen.has(path)) throw new Error(`${where(example)}: a second example saved as ${example.file} on this page`)
    seen.add(path)
    mkdirSync(dir, { recursive: true })
    writeFileSync(path, example.code)
  }
}

/** `page:line` of an example. */
export function where(example: DocExample): string {
  return `${example.page}:${example.line}`
}

/**
 * Type-checks the TypeScript and JavaScript examples, strictly, as a project that installed
 * ptypilot would (NodeNext resolution, the package's `exports` and types). JavaScript has no
 * annotations, so there an unannotated parameter is `any` and a caught error is `any`, as in
 * a JavaScript project that turns `checkJs` on; everything else is as strict. Returns the errors
 * per example, each as `page:line: message` with the line in the Markdown file.
 */
export function typeCheck(project: string, examples: DocExample[]): Map<DocExample, string[]> {
  const errors = new Map<DocExample, string[]>()
  for (const lang of ['ts', 'js'] as const) {
    const byPath = new Map<string, DocExample>()
    for (const example of examples) {
      if (example.lang === lang) byPath.set(join(pageDir(project, example.page), example.file), example)
    }
    if (byPath.size === 0) continue
    const program = ts.createProgram([...byPath.keys()], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.esnext.disposable.d.ts'],
      types: ['node'],
      typeRoots: [join(project, 'node_modules', '@types')],
      strict: true,
      ...(lang === 'js' ? { noImplicitAny: false, useUnknownInCatchVariables: false } : {}),
      noEmit: true,
      allowJs: true,
      checkJs: true,
      skipLibCheck: true,
    })
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
      const example = diagnostic.file ? byPath.get(diagnostic.file.fileName) : undefined
      if (!example || !diagnostic.file || diagnostic.start === undefined) {
        // Not in an example (the package's own types, the options): every example fails with it.
        for (const e of byPath.values()) errors.set(e, [...(errors.get(e) ?? []), `TS${diagnostic.code}: ${message}`])
        continue
      }
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
      const text = `${example.page}:${example.line + 1 + line}: TS${diagnostic.code}: ${message}`
      errors.set(example, [...(errors.get(example) ?? []), text])
    }
  }
  return errors
}

/** The environment examples run with: this one, less what marks a test run or a CI machine, without colours. */
function exampleEnv(project: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(VITEST|VITE_|TINYPOOL|GITHUB_)|^(CI|NODE_ENV|TEST|FORCE_COLOR|NODE_OPTIONS)$/.test(key)) continue
    env[key] = value
  }
  env.NO_COLOR = '1'
  env.PATH = `${join(project, 'node_modules', '.bin')}:${env.PATH ?? ''}`
  return env
}

/** Runs one example in its page's directory: node (TypeScript stripped to JavaScript first), bash, or Vitest. */
export function runExample(project: string, example: DocExample): Promise<ExampleRun> {
  const dir = pageDir(project, example.page)
  let argv: string[]
  if (example.vitest) {
    argv = [process.execPath, join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run', example.file, '--root', dir]
  } else if (example.lang === 'sh') {
    argv = ['bash', '-e', example.file]
  } else if (example.lang === 'ts') {
    const js = ts.transpileModule(example.code, {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
      fileName: example.file,
    }).outputText
    const runFile = `.${example.file}.run.mjs`
    writeFileSync(join(dir, runFile), js)
    argv = [process.execPath, runFile]
  } else {
    argv = [process.execPath, example.file]
  }
  return new Promise((done) => {
    // Its own process group, so that a run that hangs is ended with all it started.
    const child = spawn(argv[0], argv.slice(1), { cwd: dir, env: exampleEnv(project), stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }, example.timeoutMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      done({ example, exitCode: code, stdout, stderr, timedOut })
    })
  })
}

function normalize(text: string): string[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n').map((l) => l.trimEnd())
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
  return lines
}

/**
 * Whether `actual` is the output `expected` shows: line by line, trailing spaces and blank lines
 * at the end aside; a line that is only `...` stands for any lines (none too), and `…` within a
 * line for any text on that line.
 */
export function outputMatches(expected: string, actual: string): boolean {
  let pattern = ''
  for (const line of normalize(expected)) {
    if (line === '...') pattern += '(?:[^\\n]*\\n)*?'
    else pattern += line.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^\\n]*?') + '\\n'
  }
  return new RegExp(`^${pattern}$`).test(normalize(actual).map((l) => l + '\n').join(''))
}

/** What is wrong with a run, or null when it did what the page shows. */
export function checkRun(run: ExampleRun): string | null {
  const { example } = run
  const shown = () => `--- stdout ---\n${run.stdout}--- stderr ---\n${run.stderr}`
  if (run.timedOut) return `${where(example)}: still running after ${example.timeoutMs} ms\n${shown()}`
  if (run.exitCode !== example.exit) {
    return `${where(example)}: exited with ${run.exitCode}, expected ${example.exit}\n${shown()}`
  }
  const printed = example.stream === 'stderr' ? run.stderr : run.stdout
  if (example.output && !outputMatches(example.output.text, printed)) {
    return (
      `${example.page}:${example.output.line}: the output shown is not what the example at line ${example.line} prints` +
      ` (on ${example.stream})\n--- shown ---\n${example.output.text}--- printed ---\n${printed}` +
      `--- the other stream ---\n${example.stream === 'stderr' ? run.stdout : run.stderr}`
    )
  }
  return null
}

/**
 * Checks every runnable example of `pages` (paths relative to `root`): type-checks them all, then
 * runs each page's in order (pages side by side). Returns the problems found, one per example.
 */
export async function checkPages(pages: string[], root = repoRoot): Promise<{ examples: DocExample[]; problems: string[] }> {
  const examples = pages.flatMap((page) => extractExamples(readFileSync(join(root, page), 'utf8'), page))
  const project = makeProject()
  try {
    writeExamples(project, examples)
    const typeErrors = typeCheck(project, examples)
    const problems: string[] = []
    for (const [, errors] of typeErrors) problems.push(errors.join('\n'))
    await Promise.all(
      pages.map(async (page) => {
        for (const example of examples.filter((e) => e.page === page)) {
          if (typeErrors.has(example) || !example.run || missingPrograms(example)) continue
          const problem = checkRun(await runExample(project, example))
          if (problem) problems.push(problem)
        }
      }),
    )
    return { examples, problems }
  } finally {
    rmSync(project, { recursive: true, force: true })
  }
}
