/** What the role grant dialog sends, from what its trees show (pure, so it is tested alone). */
import type { GrantKeys, GrantTree } from '../../../api/system/menuAdmin'
import type { RoleGrant } from '../../../api/system/role'
import type { TreeNode } from '../../../api/tree'
import type { CheckState } from '../../../components/crud/CheckTree'
import { checkedLeaves, conduct, flattenTree, leafKeys } from '../../../utils/tree'

export interface GrantChecks {
  menu: CheckState
  dataScope: CheckState
  apiScope: CheckState
}

const unique = (ids: readonly string[]) => [...new Set(ids)]

/**
 * Menu ids: the checked menus and the half-checked parents they hang under (a granted button needs
 * its page, a page its group, to show).
 */
export const menuIdsOf = (state: CheckState): string[] =>
  unique([...state.checked, ...state.halfChecked])

/**
 * Scope ids: only the checked leaves that are scopes. The scope trees hang the scopes under their
 * menus, whose keys are menu ids: those are never sent as scope ids.
 */
export function scopeIdsOf(
  tree: readonly TreeNode[],
  menuKeys: ReadonlySet<string>,
  state: CheckState,
) {
  const leaves = leafKeys(tree)
  return unique(state.checked.filter((key) => leaves.has(key) && !menuKeys.has(key)))
}

/** The keys of every menu node of the grant trees (the menu tree and the scope trees' parents). */
export function menuKeysOf(trees: GrantTree): Set<string> {
  const keys = new Set(flattenTree(trees.menu).map((node) => node.key))
  for (const tree of [trees.dataScope, trees.apiScope]) {
    for (const node of flattenTree(tree)) {
      if ((node.children ?? []).length > 0) keys.add(node.key)
    }
  }
  return keys
}

/** `POST role/grant` body of the dialog's state. */
export function grantBody(
  roleIds: readonly string[],
  trees: GrantTree,
  checks: GrantChecks,
): RoleGrant {
  const menus = menuKeysOf(trees)
  return {
    roleIds: [...roleIds],
    menuIds: menuIdsOf(checks.menu),
    dataScopeIds: scopeIdsOf(trees.dataScope, menus, checks.dataScope),
    apiScopeIds: scopeIdsOf(trees.apiScope, menus, checks.apiScope),
  }
}

/** Leaves only (see `checkedLeaves`), with the parents' state the tree derives from them. */
const preset = (tree: readonly TreeNode[], keys: readonly string[]): CheckState =>
  conduct(tree, checkedLeaves(tree, keys))

/** The dialog's starting state from the roles' granted keys. */
export const initialChecks = (trees: GrantTree, keys: GrantKeys): GrantChecks => ({
  menu: preset(trees.menu, keys.menu),
  dataScope: preset(trees.dataScope, keys.dataScope),
  apiScope: preset(trees.apiScope, keys.apiScope),
})

export const initialAppChecks = (tree: readonly TreeNode[], keys: readonly string[]): CheckState =>
  preset(tree, keys)
