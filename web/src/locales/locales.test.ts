import { describe, expect, it } from 'vitest'
import en from './en'
import zh from './zh'

type Tree = { [key: string]: string | Tree }

/** `{a: {b: 'x'}}` → `{'a.b': 'x'}` */
function flatten(tree: Tree, prefix = ''): Record<string, string> {
  return Object.entries(tree).reduce<Record<string, string>>((out, [key, value]) => {
    const path = prefix + key
    return typeof value === 'string'
      ? { ...out, [path]: value }
      : { ...out, ...flatten(value, `${path}.`) }
  }, {})
}

const placeholders = (text: string) =>
  [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort()

describe('locales', () => {
  const zhFlat = flatten(zh)
  const enFlat = flatten(en)

  it('zh and en have exactly the same keys', () => {
    expect(Object.keys(enFlat).sort()).toEqual(Object.keys(zhFlat).sort())
  })

  it('no translation is empty', () => {
    for (const [key, text] of Object.entries({ ...zhFlat, ...enFlat })) {
      expect(text.trim(), key).not.toBe('')
    }
  })

  it('both languages use the same interpolation placeholders', () => {
    for (const key of Object.keys(zhFlat)) {
      expect(placeholders(enFlat[key] ?? ''), key).toEqual(placeholders(zhFlat[key]))
    }
  })

  it('carries the product title and unknown-error text the spec names', () => {
    expect(zh.app.title).toBe('光伏电站智慧运维监控平台')
    expect(zh.request.unknownError).toBe('未知错误')
    expect(en.route.login).toBe('Login')
  })
})
