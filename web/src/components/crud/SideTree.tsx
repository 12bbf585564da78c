import { Card, Tree } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { identityKey } from '../../api/queryClient'
import type { TreeNode } from '../../api/tree'

interface Props {
  title: string
  load: () => Promise<TreeNode[]>
  /** The picked node's key, or undefined when the pick is cleared. */
  onSelect: (key: string | undefined) => void
  testId: string
}

/** A tree beside a list that narrows it to the picked node (depts of users, menus of scopes). */
export default function SideTree({ title, load, onSelect, testId }: Props) {
  // Failures leave the tree empty (shown by the request client).
  const nodes = useQuery({ queryKey: ['sideTree', testId, identityKey(load)], queryFn: load }).data
  return (
    <Card size="small" title={title} data-testid={testId} style={{ height: '100%' }}>
      <Tree
        blockNode
        defaultExpandAll
        treeData={nodes ?? []}
        onSelect={(keys) => onSelect(keys.length > 0 ? String(keys[0]) : undefined)}
      />
    </Card>
  )
}
