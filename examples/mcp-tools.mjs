// @ts-check
// A tool module for the MCP server: your own interactive tools beside the
// terminal tools and git.
//
//   npx ptypilot mcp --tools examples/mcp-tools.mjs
//
// or in an MCP client's configuration:
//
//   { "command": "npx", "args": ["-y", "ptypilot", "mcp", "--tools", "/path/to/mcp-tools.mjs"] }
//
// The default export may also be a single tool, or a function (maybe async)
// that gets `{ cwd }` (the server's working directory) and returns tools.

/** @type {import('../index.js').InteractiveTool[]} */
export default [
  {
    name: 'python',
    description: 'A Python REPL in a terminal: spawn "repl", then apply lines of code ending in <enter>.',
    commands: [
      {
        name: 'repl',
        description: 'python3 -q: an interactive interpreter; its screen shows the >>> prompt when it waits for input.',
        program: ['python3', '-q'],
        acceptsInput: true,
        settleMs: 150,
      },
    ],
  },
  {
    name: 'sqlite',
    description: 'The sqlite3 shell on a database file (args: the file); apply SQL statements ending in ;<enter>.',
    commands: [
      {
        name: 'open',
        program: ['sqlite3', '-header', '-column'],
        acceptsInput: true,
        argsSchema: { type: 'array', items: { type: 'string' }, maxItems: 1, description: 'The database file.' },
      },
    ],
  },
]
