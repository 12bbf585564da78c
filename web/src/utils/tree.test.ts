import { describe, expect, it } from 'vitest'
import type { TreeNode } from '../api/tree'
import {
  checkedLeaves,
  conduct,
  flattenTree,
  joinIds,
  lazyRows,
  leafKeys,
  splitIds,
  withAncestors,
  withChildren,
} from './tree'

const node = (key: string, children?: TreeNode[]): TreeNode => ({
  id: key,
  key,
  value: key,
  title: key,
  children,
})

// system(1) → user(11) → [user_add(111), user_edit(112)], dept(12); station(2)
const tree = [node('1', [node('11', [node('111'), node('112')]), node('12')]), node('2', [])]

describe('tree helpers', () => {
  it('flattens depth first, parents before children', () => {
    expect(flattenTree(tree).map((n) => n.key)).toEqual(['1', '11', '111', '112', '12', '2'])
  })

  it('finds the leaves (an empty children array is a leaf)', () => {
    expect([...leafKeys(tree)].sort()).toEqual(['111', '112', '12', '2'])
  })

  it('pre-checks only granted leaves, so a granted parent does not check all its children', () => {
    expect(checkedLeaves(tree, ['1', '11', '111', '2', '999'])).toEqual(['111', '2'])
  })

  it('derives the parents of checked leaves: all leaves → checked, some → half-checked', () => {
    expect(conduct(tree, ['111'])).toEqual({ checked: ['111'], halfChecked: ['11', '1'] })
    expect(conduct(tree, ['111', '112', '12', '2'])).toEqual({
      checked: ['111', '112', '11', '12', '1', '2'],
      halfChecked: [],
    })
  })

  it('adds the ancestors of checked ids, in tree order, keeping unknown ids', () => {
    expect(withAncestors(tree, ['112', '12'])).toEqual(['1', '11', '112', '12'])
    expect(withAncestors(tree, ['gone', '2'])).toEqual(['2', 'gone'])
  })

  it('gives lazy rows with children an empty list to expand, and drops empty lists otherwise', () => {
    const rows = lazyRows([
      { id: 'a', hasChildren: true },
      { id: 'b', hasChildren: false, children: [] },
      { id: 'c', children: [{ id: 'c1', hasChildren: true }] },
    ])
    expect(rows).toEqual([
      { id: 'a', hasChildren: true, children: [] },
      { id: 'b', hasChildren: false },
      { id: 'c', children: [{ id: 'c1', hasChildren: true, children: [] }] },
    ])
  })

  it('puts loaded children under their row, deep in the tree, without touching the input', () => {
    interface Row {
      id: string
      hasChildren?: boolean
      children?: Row[]
    }
    const rows = lazyRows<Row>([{ id: 'c', children: [{ id: 'c1', hasChildren: true }] }])
    const next = withChildren(rows, 'c1', [{ id: 'c11', hasChildren: false }])
    expect(next[0].children?.[0].children).toEqual([{ id: 'c11', hasChildren: false }])
    expect(rows[0].children?.[0].children).toEqual([])
  })

  it('splits and joins comma-joined ids', () => {
    expect(splitIds('1, 2,,3')).toEqual(['1', '2', '3'])
    expect(splitIds(['4', 5])).toEqual(['4', '5'])
    expect(splitIds(undefined)).toEqual([])
    expect(splitIds('')).toEqual([])
    expect(joinIds(['1', '2'])).toBe('1,2')
    expect(joinIds(undefined)).toBe('')
  })
})
