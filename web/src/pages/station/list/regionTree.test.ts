import { describe, expect, it } from 'vitest'
import { optionOf, withChildrenAt } from './regionTree'

describe('region tree', () => {
  it('puts children under the node at the path without touching the others', () => {
    const tree = [
      { value: '11', label: 'A', isLeaf: false },
      {
        value: '12',
        label: 'B',
        isLeaf: false,
        children: [{ value: '1201', label: 'B1', isLeaf: false }],
      },
    ]
    const next = withChildrenAt(
      tree,
      ['12', '1201'],
      [{ value: '120101', label: 'x', isLeaf: true }],
    )
    expect(next[0]).toBe(tree[0])
    expect(next[1].children?.[0].children).toEqual([{ value: '120101', label: 'x', isLeaf: true }])
    expect(tree[1].children?.[0]).not.toHaveProperty('children')
  })

  it('makes districts (and regions without children) leaves', () => {
    expect(optionOf({ code: '110101', name: 'd', level: 3 }).isLeaf).toBe(true)
    expect(optionOf({ code: '110100', name: 'c', level: 2, hasChildren: true }).isLeaf).toBe(false)
    expect(optionOf({ code: '810000', name: 'HK', level: 1, hasChildren: false }).isLeaf).toBe(true)
  })
})
