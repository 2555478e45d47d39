#!/usr/bin/env node
'use strict'
// The `ptypilot` command. Subcommands:
//   ptypilot mcp [options]   the MCP server over stdio (lib/mcp.js)
//   ptypilot view <cast>     an HTML trace of a recording (lib/trace.js)

const [command, ...rest] = process.argv.slice(2)

const USAGE = `Usage: ptypilot <command> [options]

Commands:
  mcp     serve ptypilot's tools to an MCP client over stdio (ptypilot mcp --help)
  view    write an HTML trace of a recording: ptypilot view <recording.cast> [-o trace.html]
`

async function run() {
  switch (command) {
    case 'mcp':
      return require('../lib/mcp.js').main(rest)
    case 'view':
      return require('../lib/trace.js').main(rest)
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE)
      return command === undefined ? 2 : 0
    case '--version':
    case '-v':
      process.stdout.write(`${require('../package.json').version}\n`)
      return 0
    default:
      process.stderr.write(`ptypilot: unknown command ${JSON.stringify(command)}\n\n${USAGE}`)
      return 2
  }
}

run().then(
  (code) => {
    if (code !== undefined) process.exitCode = code
  },
  (err) => {
    process.stderr.write(`ptypilot: ${err && err.stack ? err.stack : String(err)}\n`)
    process.exitCode = 1
  },
)
