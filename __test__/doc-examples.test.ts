// Every fenced block marked `runnable` in README.md and docs/**/*.md is type-checked against the
// public types and run against real programs, and what it prints is compared with the `text
// output` block shown after it (docs/writing-docs.md). A mutated copy of a page shows that a
// changed output or a changed type fails.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  checkPages,
  checkRun,
  documentationPages,
  extractExamples,
  makeProject,
  missingPrograms,
  outputMatches,
  repoRoot,
  runExample,
  typeCheck,
  where,
  writeExamples,
  type DocExample,
} from './doc-examples.js'

const pages = documentationPages()
const examples = pages.flatMap((page) => extractExamples(readFileSync(join(repoRoot, page), 'utf8'), page))
let project = ''
let typeErrors = new Map<DocExample, string[]>()

beforeAll(() => {
  project = makeProject()
  writeExamples(project, examples)
  typeErrors = typeCheck(project, examples)
}, 120_000)

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true })
})

describe('the documentation examples', () => {
  test('README.md and every guide in docs/ have runnable examples, most with their output shown', () => {
    for (const page of pages.filter((p) => p !== 'docs/writing-docs.md')) {
      expect(examples.filter((e) => e.page === page).length, `${page} has no runnable example`).toBeGreaterThan(0)
    }
    expect(examples.filter((e) => e.output !== null).length).toBeGreaterThan(examples.length / 2)
  })

  test('links between the pages and to the files of the repository resolve, anchors too', () => {
    const broken: string[] = []
    let checked = 0
    for (const page of pages) {
      const text = readFileSync(join(repoRoot, page), 'utf8').replace(/^(\s*)(`{3,}|~{3,})[^]*?^\1\2\s*$/gm, '')
      for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(link)) continue
        checked++
        const [path, anchor] = link.split('#')
        const target = path ? join(repoRoot, dirname(page), path) : join(repoRoot, page)
        if (!existsSync(target)) {
          broken.push(`${page}: ${link}: no such file`)
        } else if (anchor && target.endsWith('.md')) {
          const slugs = [...readFileSync(target, 'utf8').matchAll(/^#+ (.*)$/gm)].map(([, h]) =>
            h.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-'),
          )
          if (!slugs.includes(anchor)) broken.push(`${page}: ${link}: no heading for #${anchor}`)
        }
      }
    }
    expect(broken, broken.join('\n')).toEqual([])
    expect(checked).toBeGreaterThan(20)
  })

  test('type-check against the public types, strictly, as a project that installed ptypilot', () => {
    const errors = [...typeErrors.values()].flat()
    expect(errors, errors.join('\n')).toEqual([])
  })

  // Pages side by side; a page's examples in order, in one directory.
  // An example whose `needs=` program is missing is skipped with the reason (CI installs them all).
  test.concurrent.for(pages)('%s: each example runs and prints what the page shows', { timeout: 600_000 }, async (page, ctx) => {
    const own = examples.filter((e) => e.page === page && e.run && !typeErrors.has(e))
    const problems: string[] = []
    const skipped = own.map(missingPrograms).filter((why) => why !== null)
    for (const why of skipped) await ctx.annotate(why)
    if (own.length > 0 && skipped.length === own.length) ctx.skip(skipped.join('; '))
    for (const example of own) {
      if (missingPrograms(example)) continue
      const problem = checkRun(await runExample(project, example))
      if (problem) problems.push(problem)
    }
    expect(problems, problems.join('\n\n')).toEqual([])
  })
})

describe('the check itself', () => {
  test('finds runnable blocks, indented ones too, with their attributes and output', () => {
    const md = [
      'Text.',
      '```ts runnable file=hello.ts exit=3 timeout=5000 needs=fish,vim',
      "console.log('hi')",
      '```',
      'Prints:',
      '```text output',
      'hi',
      '```',
      '- a list item:',
      '',
      '  ```js runnable',
      '  console.log(1)',
      '  ```',
      '```ts',
      'not runnable',
      '```',
    ].join('\n')
    const found = extractExamples(md, 'x.md')
    expect(found).toEqual([
      {
        page: 'x.md', line: 2, lang: 'ts', code: "console.log('hi')\n", file: 'hello.ts', vitest: false,
        exit: 3, run: true, stream: 'stdout', timeoutMs: 5000, needs: ['fish', 'vim'], output: { text: 'hi\n', line: 6 },
      },
      {
        page: 'x.md', line: 11, lang: 'js', code: 'console.log(1)\n', file: 'example-2.mjs', vitest: false,
        exit: 0, run: true, stream: 'stdout', timeoutMs: 60_000, needs: [], output: null,
      },
    ])
    expect(extractExamples('```ts runnable file=a.test.ts\n```\n', 'y.md')[0].vitest).toBe(true)
    expect(() => extractExamples('```ts runnable speed=fast\n```\n', 'z.md')).toThrow("z.md:1: unknown attribute 'speed'")
    expect(() => extractExamples('```python runnable\n```\n', 'z.md')).toThrow("not 'python'")
    expect(() => extractExamples('```ts runnable\nx\n', 'z.md')).toThrow('z.md:1: the code block is never closed')
  })

  test('compares output line by line, with `...` for any lines and `…` for any text in a line', () => {
    expect(outputMatches('a\nb\n', 'a\nb\n\n')).toBe(true)
    expect(outputMatches('a\nb\n', 'a  \nb')).toBe(true)
    expect(outputMatches('a\nb\n', 'a\nc\n')).toBe(false)
    expect(outputMatches('a\nb\n', 'a\nb\nc\n')).toBe(false)
    expect(outputMatches('a\n...\nz\n', 'a\nz\n')).toBe(true)
    expect(outputMatches('a\n...\nz\n', 'a\nb\nc\nz\n')).toBe(true)
    expect(outputMatches('a\n...\nz\n', 'a\nb\nc\n')).toBe(false)
    expect(outputMatches('took … ms\n', 'took 12 ms\n')).toBe(true)
    expect(outputMatches('took … ms\n', 'took 12\nms\n')).toBe(false)
    expect(outputMatches('(1+1)*[2]?\n', '(1+1)*[2]?\n')).toBe(true)
  })

  describe('on a mutated copy of README.md', () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8')
    const shown = extractExamples(readme, 'README.md').find((e) => e.output !== null && e.lang !== 'sh')!
    let copy = ''
    beforeAll(() => {
      copy = mkdtempSync(join(tmpdir(), 'ptypilot-doc-mutation-'))
    })
    afterAll(() => {
      if (copy) rmSync(copy, { recursive: true, force: true })
    })

    test('the unchanged example passes', async () => {
      writeFileSync(join(copy, 'README.md'), onlyExample(readme, shown))
      const { examples: checked, problems } = await checkPages(['README.md'], copy)
      expect(checked.length).toBe(1)
      expect(problems).toEqual([])
    }, 120_000)

    test('fails when the output shown for an example is changed', async () => {
      const lines = readme.split('\n')
      const outputLines = shown.output!.text.split('\n')
      const target = outputLines.findIndex((l) => l.trim() !== '' && l.trim() !== '...')
      const lineNo = shown.output!.line + target // 0-based index of the changed line in the page
      lines[lineNo] = lines[lineNo] + ' (changed)'
      writeFileSync(join(copy, 'README.md'), onlyExample(lines.join('\n'), shown))
      const { problems } = await checkPages(['README.md'], copy)
      expect(problems.length).toBe(1)
      expect(problems[0]).toContain(`README.md:${shown.output!.line}: the output shown is not what the example at line ${shown.line} prints (on stdout)`)
      expect(problems[0]).toContain('(changed)')
    }, 120_000)

    test('fails when a type in an example is changed', async () => {
      // A property of the public API the example uses, misspelled: `.exited` -> `.exitedd`.
      const codeLines = shown.code.split('\n')
      const index = codeLines.findIndex((l) => /\.(\w+)/.test(l) && /\b(exited|text|screen|waitFor|write|sendKeys|exitCode|output|run)\b/.test(l))
      expect(index, `${where(shown)} uses no property this test knows how to misspell`).toBeGreaterThanOrEqual(0)
      const name = /\b(exited|text|screen|waitFor|write|sendKeys|exitCode|output|run)\b/.exec(codeLines[index])![1]
      const lines = readme.split('\n')
      const lineNo = shown.line + index // 0-based index of that code line in the page
      lines[lineNo] = lines[lineNo].replace(new RegExp(`\\.${name}\\b`), `.${name}d`)
      expect(lines[lineNo]).toContain(`.${name}d`)
      writeFileSync(join(copy, 'README.md'), onlyExample(lines.join('\n'), shown))
      const { problems } = await checkPages(['README.md'], copy)
      expect(problems.length).toBe(1)
      expect(problems[0]).toMatch(new RegExp(`^README\\.md:${lineNo + 1}: TS\\d+: .*'${name}d'`))
    }, 120_000)
  })
})

/**
 * The page with every runnable marker removed except `example`'s (same line numbers), so a
 * mutation test runs that one example alone.
 */
function onlyExample(markdown: string, example: DocExample): string {
  return markdown
    .split('\n')
    .map((line, i) => (i + 1 !== example.line && /^\s*(`{3,}|~{3,})\s*\w+.*\brunnable\b/.test(line) ? line.replace(/\brunnable\b/, 'shown') : line))
    .join('\n')
}
