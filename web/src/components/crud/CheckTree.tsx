import { Empty, Tree } from 'antd'
import { useTranslation } from 'react-i18next'
import type { TreeNode } from '../../api/tree'

/** What a conducting checkable tree reports: fully checked keys and half-checked parents. */
export interface CheckState {
  checked: string[]
  halfChecked: string[]
}

interface Props {
  nodes: TreeNode[]
  value: CheckState
  onChange: (value: CheckState) => void
  testId: string
}

/** A checkable tree, all expanded, for the grant dialogs. */
export default function CheckTree({ nodes, value, onChange, testId }: Props) {
  const { t } = useTranslation()
  if (nodes.length === 0) return <Empty description={t('common.empty')} data-testid={testId} />
  return (
    <div data-testid={testId} style={{ maxHeight: 420, overflow: 'auto' }}>
      <Tree
        checkable
        defaultExpandAll
        selectable={false}
        treeData={nodes}
        checkedKeys={value.checked}
        onCheck={(checked, info) =>
          onChange({
            checked: (Array.isArray(checked) ? checked : checked.checked).map(String),
            halfChecked: (info.halfCheckedKeys ?? []).map(String),
          })
        }
      />
    </div>
  )
}
