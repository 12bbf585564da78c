import { describe, expect, it } from 'vitest'
import { checkAvatar, checkPhone, checkRegister } from './validate'

describe('checkPhone', () => {
  it.each([
    ['', 'validate.phoneRequired'],
    ['   ', 'validate.phoneRequired'],
    [undefined, 'validate.phoneRequired'],
    ['13800138000', null],
    ['19912345678', null],
    ['23800138000', 'validate.phoneFormat'],
    ['1380013800', 'validate.phoneFormat'],
    ['138001380001', 'validate.phoneFormat'],
    ['1380013800a', 'validate.phoneFormat'],
  ])('%j → %j', (value, expected) => {
    expect(checkPhone(value)).toBe(expected)
  })
})

describe('checkAvatar', () => {
  it.each([
    ['image/png', 1000, null],
    ['image/jpeg', 500 * 1024, null],
    ['image/jpeg', 500 * 1024 + 1, 'info.avatarSize'],
    ['image/gif', 10, 'info.avatarType'],
    ['image/webp', 10, 'info.avatarType'],
    ['image/gif', 10 * 1024 * 1024, 'info.avatarType'],
  ])('%s of %d bytes → %j', (type, size, expected) => {
    expect(checkAvatar({ type, size })).toBe(expected)
  })
})

describe('checkRegister', () => {
  const full = { tenantId: '000000', name: 'n', account: 'a', password: 'p', password2: 'p' }

  it('accepts a complete form', () => {
    expect(checkRegister(full, false)).toBeNull()
  })

  it('checks in order: tenant, account, password, match', () => {
    expect(checkRegister({}, false)).toBe('register.tenantRequired')
    expect(checkRegister({ tenantId: '1' }, false)).toBe('register.accountRequired')
    expect(checkRegister({ tenantId: '1', account: 'a', password: 'x' }, false)).toBe(
      'register.passwordRequired',
    )
    expect(checkRegister({ ...full, password2: 'q' }, false)).toBe('register.passwordMismatch')
  })

  it('skips the tenant check when the tenant was resolved from the site address', () => {
    expect(checkRegister({}, true)).toBe('register.accountRequired')
    expect(checkRegister({ ...full, tenantId: '' }, true)).toBeNull()
  })
})
