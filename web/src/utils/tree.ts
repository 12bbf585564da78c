/** Helpers over the trees the admin calls send (tree nodes, tree lists, lazy lists). */

interface Branch<T> {
  children?: T[]
}

/** Every node, depth first (parents before their children). */
export function flattenTree<T extends Branch<T>>(nodes: readonly T[]): T[] {
  return nodes.flatMap((node) => [node, ...flattenTree(node.children ?? [])])
}

/** Keys of the nodes without children. */
export function leafKeys<T extends Branch<T> & { key: string }>(nodes: readonly T[]): Set<string> {
  return new Set(
    flattenTree(nodes)
      .filter((node) => (node.children ?? []).length === 0)
      .map((node) => node.key),
  )
}

/**
 * The granted keys to pre-check in a conducting checkable tree. Only leaves are passed: a parent
 * key would check every child under it, granting more than was stored; the tree derives the
 * parents' full or half state from their leaves.
 */
export function checkedLeaves<T extends Branch<T> & { key: string }>(
  nodes: readonly T[],
  granted: readonly string[],
): string[] {
  const leaves = leafKeys(nodes)
  return [...new Set(granted.map(String))].filter((key) => leaves.has(key))
}

interface LazyRow {
  id?: string
  hasChildren?: boolean
  children?: LazyRow[]
}

/**
 * Rows of a lazy list as the table wants them: a row the server says has children, but sent none,
 * gets an empty `children` array (the table then draws an expand control and loads them on
 * expand); a row without children drops an empty array (no control).
 */
export function lazyRows<T extends LazyRow>(rows: readonly T[]): T[] {
  return rows.map((row) => {
    const children = row.children
    if (children && children.length > 0) return { ...row, children: lazyRows(children) }
    if (row.hasChildren === true) return { ...row, children: [] }
    const copy = { ...row }
    delete copy.children
    return copy
  })
}

/** The tree with the children of row `id` replaced (immutably). */
export function withChildren<T extends LazyRow>(
  rows: readonly T[],
  id: string,
  children: readonly T[],
): T[] {
  return rows.map((row) => {
    if (row.id === id) return { ...row, children: lazyRows(children) }
    if (row.children && row.children.length > 0) {
      return { ...row, children: withChildren(row.children as T[], id, children) }
    }
    return row
  })
}

/** Splits a comma-joined id list ("1,2") into ids; empty or missing gives []. */
export function splitIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String).filter((id) => id !== '')
  if (typeof value === 'number') return [String(value)]
  if (typeof value !== 'string') return []
  return value
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '')
}

/** Joins ids the way the wire wants multi-selections (`menuId`, `roleId`...): "1,2". */
export const joinIds = (ids: unknown): string => splitIds(ids).join(',')

/**
 * `ids` plus every ancestor of them in the tree, in tree order: a checked menu keeps the parents
 * it hangs under (a page granted without its group would not show in the menu).
 */
export function withAncestors<T extends Branch<T> & { key: string }>(
  nodes: readonly T[],
  ids: readonly string[],
): string[] {
  const wanted = new Set(ids.map(String))
  const out = new Set<string>()
  const walk = (items: readonly T[], path: readonly string[]): void => {
    for (const node of items) {
      if (wanted.has(node.key)) [...path, node.key].forEach((key) => out.add(key))
      walk(node.children ?? [], [...path, node.key])
    }
  }
  walk(nodes, [])
  const inTree = flattenTree(nodes).map((node) => node.key)
  // Ids the tree does not know (removed menus...) are kept as they were.
  const unknown = [...wanted].filter((id) => !inTree.includes(id))
  return [...inTree.filter((key) => out.has(key)), ...unknown]
}

/**
 * The check state a conducting tree shows for these checked leaves: a parent is checked when all
 * its leaves are, half-checked when some are. What the dialogs send before anyone clicks.
 */
export function conduct<T extends Branch<T> & { key: string }>(
  nodes: readonly T[],
  leaves: readonly string[],
): { checked: string[]; halfChecked: string[] } {
  const on = new Set(leaves)
  const checked: string[] = []
  const halfChecked: string[] = []
  /** Visits a node; answers how many of its leaves are checked, and how many it has. */
  const visit = (node: T): [number, number] => {
    const children = node.children ?? []
    if (children.length === 0) {
      const hit = on.has(node.key) ? 1 : 0
      if (hit) checked.push(node.key)
      return [hit, 1]
    }
    let hits = 0
    let total = 0
    for (const child of children) {
      const [h, n] = visit(child)
      hits += h
      total += n
    }
    if (hits === total) checked.push(node.key)
    else if (hits > 0) halfChecked.push(node.key)
    return [hits, total]
  }
  nodes.forEach(visit)
  return { checked, halfChecked }
}
