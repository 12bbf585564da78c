import { describe, expect, it } from 'vitest'
import { guardRedirect, type RouteMeta } from './guard'

const open: RouteMeta = { isAuth: false }
const closed: RouteMeta = { title: 'route.home' }

describe('guardRedirect', () => {
  it.each([
    // path, token, meta, expected
    ['/basicFacts/equipmentMap', '', closed, '/login'],
    ['/basicFacts/equipmentMap', 'tok', closed, null],
    ['/', '', undefined, '/login'],
    ['/', 'tok', undefined, null],
    ['/login', '', open, null],
    ['/login', 'tok', open, '/'],
    ['/login/', 'tok', open, '/'],
    ['/404', '', open, null],
    ['/lock', '', open, '/login'],
    ['/lock', 'tok', open, '/'],
    ['/no/such/page', '', open, null],
    ['/basicFacts/dashboard', '', { isAuth: true }, '/login'],
    ['/station/inverter', '', { menuCatchAll: true }, '/404'],
    ['/station/inverter', 'tok', { menuCatchAll: true }, null],
  ] as const)('%s with token %j → %j', (path, token, meta, expected) => {
    expect(guardRedirect({ path, token, meta })).toBe(expected)
  })

  it.each([
    ['/basicFacts/equipmentMap', closed, '/lock'],
    ['/login', open, '/lock'],
    ['/404', open, '/lock'],
    ['/info/index', closed, '/lock'],
    ['/lock', open, null],
    ['/lock/', open, null],
  ] as const)('while locked, %s → %j', (path, meta, expected) => {
    expect(guardRedirect({ path, token: 'tok', meta, locked: true })).toBe(expected)
  })

  it('after the server ended the session (401), a menu page leads to /login, not /404', () => {
    const meta = { menuCatchAll: true }
    expect(guardRedirect({ path: '/system/param', token: '', meta, expired: true })).toBe('/login')
    expect(guardRedirect({ path: '/system/param', token: 'tok', meta, expired: true })).toBeNull()
  })

  it('a lock flag without a session does not trap the user', () => {
    expect(guardRedirect({ path: '/login', token: '', meta: open, locked: true })).toBeNull()
  })
})
