import { describe, expect, it } from 'vitest'
import {
  buildMenu,
  defaultIcon,
  findMenuByPath,
  flattenPermissions,
  searchMenu,
  type ServerMenu,
} from './menu'

const tree: ServerMenu[] = [
  {
    id: '2',
    code: 'stationMonitor',
    name: '电站监控',
    path: '/station',
    source: 'ThunderboltOutlined',
    sort: 3,
    children: [
      { id: '21', code: 'inverter', name: '逆变器', path: '/station/inverter', sort: 2 },
      {
        id: '20',
        code: 'station',
        name: 'Station list',
        path: '/station/station',
        source: 'BankOutlined',
        sort: 1,
      },
      { id: '22', code: 'docs', name: 'Docs', path: 'https://example.com/docs', sort: 3 },
      { id: '23', code: 'help', name: 'Help', path: '/static/help.html', sort: 4 },
    ],
  },
  { id: '1', code: 'home', name: '首页', path: '/basicFacts/equipmentMap', source: '', sort: 1 },
  { id: '3', code: 'big', name: '大屏', path: '/bigScreen/index', sort: 6, isOpen: 2 },
  { id: '4', code: 'secret', name: 'Admins only', path: '/secret', meta: { roles: ['admin'] } },
  { id: '5', code: 'open', name: 'Everyone', path: '/open', meta: { roles: [] }, sort: 9 },
]

describe('buildMenu', () => {
  const nodes = buildMenu(tree, 'guest')

  it('sorts by sort and drops items whose roles exclude the current role', () => {
    expect(nodes.map((n) => n.code)).toEqual(['home', 'stationMonitor', 'big', 'open'])
    expect(buildMenu(tree, 'admin').map((n) => n.code)).toContain('secret')
  })

  it('appends /index to internal leaves only', () => {
    const station = nodes[1]
    expect(station.routePath).toBe('/station')
    expect(station.children.map((n) => n.routePath)).toEqual([
      '/station/station/index',
      '/station/inverter/index',
      '/myiframe/docs',
      '/myiframe/help',
    ])
    expect(nodes[2].routePath).toBe('/bigScreen/index')
  })

  it('sends external links and html pages through /myiframe', () => {
    const [, , docs, help] = nodes[1].children
    expect(docs.src).toBe('https://example.com/docs')
    expect(docs.path).toBe('/myiframe/docs')
    expect(help.src).toBe('/static/help.html')
    expect(nodes[1].children[0].src).toBeUndefined()
  })

  it('gives a default icon to items without one', () => {
    expect(nodes[0].icon).toBe(defaultIcon)
    expect(nodes[1].children[1].icon).toBe(defaultIcon)
    expect(nodes[1].children[0].icon).toBe('BankOutlined')
  })

  it('marks isOpen 2 as a new window', () => {
    expect(nodes[2].newWindow).toBe(true)
    expect(nodes[0].newWindow).toBe(false)
  })

  it('finds a page by its own path or by its /index route path', () => {
    expect(findMenuByPath(nodes, '/station/inverter')?.code).toBe('inverter')
    expect(findMenuByPath(nodes, '/station/inverter/index')?.code).toBe('inverter')
    expect(findMenuByPath(nodes, '/station/inverter/')?.code).toBe('inverter')
    expect(findMenuByPath(nodes, '/station')).toBeUndefined()
    expect(findMenuByPath(nodes, '/station/nothing')).toBeUndefined()
  })
})

describe('searchMenu', () => {
  const nodes = buildMenu(tree, 'guest')
  it('matches a case-insensitive prefix of the name', () => {
    expect(searchMenu(nodes, 'station').map((n) => n.code)).toEqual(['station'])
    expect(searchMenu(nodes, 'STA').map((n) => n.code)).toEqual(['station'])
    expect(searchMenu(nodes, '逆').map((n) => n.code)).toEqual(['inverter'])
  })
  it('does not match in the middle of a name, nor an empty query', () => {
    expect(searchMenu(nodes, 'list')).toEqual([])
    expect(searchMenu(nodes, '  ')).toEqual([])
  })
})

describe('flattenPermissions', () => {
  it('maps every button code to true, however deep', () => {
    expect(
      flattenPermissions([
        {
          code: 'station',
          category: 1,
          children: [
            { code: 'station_add', category: 2 },
            { code: 'sub', category: 1, children: [{ code: 'sub_delete', category: 2 }] },
          ],
        },
      ]),
    ).toEqual({ station_add: true, sub_delete: true })
  })
})
