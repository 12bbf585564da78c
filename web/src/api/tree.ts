/** Tree shapes of the admin calls (contract "Shapes used everywhere"). */

/** A node of the selector, grant and lazy trees. Lazy endpoints leave `children` out. */
export interface TreeNode {
  id: string
  parentId?: string
  title: string
  key: string
  value: string
  hasChildren?: boolean
  children?: TreeNode[]
}
