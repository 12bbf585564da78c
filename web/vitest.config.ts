import { defineConfig, mergeConfig } from 'vitest/config'
import viteConfig from './vite.config.ts'

export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      environment: 'jsdom',
      include: ['src/**/*.test.{ts,tsx}'],
      restoreMocks: true,
      setupFiles: ['src/test/setup.ts'],
      // Route tests render lazily imported pages; on a loaded 2-core CI machine the first
      // import alone can take several seconds, far past Vitest's 5 s default.
      testTimeout: 30_000,
    },
  }),
)
