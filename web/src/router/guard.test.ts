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
    ['/lock', '', open, null],
    ['/no/such/page', '', open, null],
    ['/basicFacts/dashboard', '', { isAuth: true }, '/login'],
  ] as const)('%s with token %j → %j', (path, token, meta, expected) => {
    expect(guardRedirect({ path, token, meta })).toBe(expected)
  })
})
