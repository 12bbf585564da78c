import { cleanup, configure } from '@testing-library/react'
import { afterEach } from 'vitest'

// jsdom lacks the browser APIs antd's responsive helpers ask for; every component test needs them.
Object.defineProperty(window, 'matchMedia', {
  configurable: true,
  value: (query: string): MediaQueryList =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList,
})
Object.defineProperty(window, 'ResizeObserver', {
  configurable: true,
  value: class {
    observe() {}
    unobserve() {}
    disconnect() {}
  },
})

// findBy*/waitFor give up after 1 s by default; on a loaded 2-core machine an antd page can take
// longer than that to render, which made tests fail by timing rather than by behaviour.
configure({ asyncUtilTimeout: 5000 })

// Without vitest globals, Testing Library does not unmount what a test rendered: a hook still
// mounted when its file's jsdom is torn down lets React's scheduler run after `window` is gone.
afterEach(() => {
  cleanup()
})
