import { describe, expect, it } from 'vitest'
import { builtPageOf, businessPages, businessPath } from './menuPages'

const stub = () => Promise.resolve({ default: () => null })

describe('menu pages', () => {
  it('serves the developer tools instead of the "not available" page', () => {
    for (const path of ['/tool/datasource', '/tool/model', '/tool/code'])
      expect(builtPageOf(path), path).toBeDefined()
  })

  it('finds a generated page by its folder: pages/business/{folder}/index.tsx → /business/{folder}', () => {
    expect(businessPath('../pages/business/sparePart/index.tsx')).toBe('/business/sparePart')
    expect(businessPath('../pages/business/sparePart/config.ts')).toBeNull()
    expect(businessPath('../pages/business/a/b/index.tsx')).toBeNull()
    const pages = businessPages({
      '../pages/business/sparePart/index.tsx': stub,
      '../pages/business/contract/index.tsx': stub,
    })
    expect(Object.keys(pages).sort()).toEqual(['/business/contract', '/business/sparePart'])
  })
})
