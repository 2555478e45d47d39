import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__test__/**/*.test.ts'],
    // PTY tests spawn real processes; forks isolate each file in its own process.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
