import { describe, expect, it, vi } from 'vitest'
import { textOf } from '../../../components/crud/logic'
import { tenantConfig } from './config'

vi.mock('../../../api/system/tenant', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../api/system/tenant')>()),
  packageOptions: vi.fn(() =>
    Promise.resolve([
      { id: '9', packageName: '基础包', menuId: '1,2' },
      { id: '10', packageName: '运维包', menuId: '3' },
    ]),
  ),
}))

describe('tenant form', () => {
  it('chooses the package when adding a tenant (contract field packageId)', async () => {
    const field = tenantConfig(() => undefined).fields.find((f) => f.name === 'packageId')
    expect(field?.type).toBe('select')
    expect(field?.hideInForm).toBeFalsy()
    expect(field?.required).toBeUndefined()
    expect(await field?.loadOptions?.()).toEqual([
      { value: '9', label: '基础包' },
      { value: '10', label: '运维包' },
    ])
  })

  it('lets the platform administrator open a tenant to self-registration, off by default', async () => {
    const { default: i18n } = await import('../../../locales/i18n')
    const say = (label: Parameters<typeof textOf>[0]) => textOf(label, (key) => i18n.t(key))
    const field = tenantConfig(() => undefined).fields.find((f) => f.name === 'selfRegister')
    expect(field?.type).toBe('select')
    expect(field?.hideInForm).toBeFalsy()
    expect(field?.options?.map((o) => o.value)).toEqual([0, 1])
    await i18n.changeLanguage('zh')
    expect(field?.options?.map((o) => say(o.label))).toEqual([
      '关闭（默认）',
      '开放（申请需管理员审核）',
    ])
    await i18n.changeLanguage('en')
    expect(say(field?.options?.[0]?.label ?? 'tenant.selfRegister')).toBe('Off (default)')
    await i18n.changeLanguage('zh')
  })
})
