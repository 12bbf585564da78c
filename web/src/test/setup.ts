import { configure } from '@testing-library/react'

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
