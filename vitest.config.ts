import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/{node,contract,interop}/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
