import { describe, expect, it } from 'vitest'
import { closeAllTabs, closeOtherTabs, closeTab, homeTab, openTab, type Tab } from './tabs'

const tab = (value: string): Tab => ({ ...homeTab, label: value, value, meta: {} })

describe('tab actions', () => {
  it('the only tab cannot be closed; with others every tab can', () => {
    const alone = closeAllTabs()
    expect(alone).toHaveLength(1)
    expect(alone[0].close).toBe(false)
    expect(closeTab(alone, homeTab.value, homeTab.value).list).toEqual(alone)

    const two = openTab(alone, tab('/a'))
    expect(two.map((t) => t.close)).toEqual([true, true])
  })

  it('opening an already open page updates it instead of adding a tab', () => {
    const list = openTab(openTab(closeAllTabs(), tab('/a')), { ...tab('/a'), query: { id: '1' } })
    expect(list.map((t) => t.value)).toEqual([homeTab.value, '/a'])
    expect(list[1].query).toEqual({ id: '1' })
  })

  it('closing the active tab shows its right neighbour, else its left one', () => {
    const list = [tab('/a'), tab('/b'), tab('/c')].reduce(openTab, closeAllTabs())
    expect(closeTab(list, '/b', '/b').next).toBe('/c')
    expect(closeTab(list, '/c', '/c').next).toBe('/b')
    const other = closeTab(list, '/a', '/c')
    expect(other.next).toBe('/c')
    expect(other.list.map((t) => t.value)).toEqual([homeTab.value, '/b', '/c'])
  })

  it('closing the last closable tab leaves the home tab alone and unclosable', () => {
    const list = openTab(closeAllTabs(), tab('/a'))
    const afterHome = closeTab(list, homeTab.value, '/a')
    expect(afterHome.list.map((t) => [t.value, t.close])).toEqual([['/a', false]])
    const afterA = closeTab(closeAllTabs().concat(), homeTab.value, homeTab.value)
    expect(afterA.list).toHaveLength(1)
  })

  it('close others keeps home and the chosen tab; close all keeps home only', () => {
    const list = [tab('/a'), tab('/b'), tab('/c')].reduce(openTab, closeAllTabs())
    expect(closeOtherTabs(list, '/b').map((t) => t.value)).toEqual([homeTab.value, '/b'])
    expect(closeOtherTabs(list, homeTab.value).map((t) => [t.value, t.close])).toEqual([
      [homeTab.value, false],
    ])
    expect(closeAllTabs().map((t) => t.value)).toEqual([homeTab.value])
  })
})
