import { App, Modal, Spin } from 'antd'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { grantTopTree, topTreeKeys } from '../../../api/system/menuAdmin'
import { grantTopMenu } from '../../../api/system/topmenu'
import type { TreeNode } from '../../../api/tree'
import CheckTree, { type CheckState } from '../../../components/crud/CheckTree'
import { checkedLeaves, conduct } from '../../../utils/tree'
import { menuIdsOf } from '../../authority/role/grant'

interface Props {
  topMenuIds: string[]
  onClose: () => void
  onDone: () => void
}

/** Which menus the selected top menus lead to (`topmenu/grant`), pre-checked from what they hold. */
export default function TopMenuSettingDialog({ topMenuIds, onClose, onDone }: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [tree, setTree] = useState<TreeNode[] | null>(null)
  const [checks, setChecks] = useState<CheckState>({ checked: [], halfChecked: [] })
  const [saving, setSaving] = useState(false)

  useEffect(() => {
    let live = true
    Promise.all([grantTopTree(), topTreeKeys(topMenuIds)]).then(
      ([nodes, keys]) => {
        if (!live) return
        setTree(nodes)
        setChecks(conduct(nodes, checkedLeaves(nodes, keys)))
      },
      () => live && onClose(),
    )
    return () => {
      live = false
    }
  }, [topMenuIds, onClose])

  const save = async () => {
    setSaving(true)
    try {
      await grantTopMenu(topMenuIds, menuIdsOf(checks))
      void message.success(t('crud.success'))
      onDone()
    } catch {
      // shown by the request client
    } finally {
      setSaving(false)
    }
  }

  return (
    <Modal
      open
      title={t('topmenu.settingTitle')}
      onCancel={onClose}
      onOk={() => void save()}
      okButtonProps={{ disabled: !tree, 'data-testid': 'topmenu-setting-ok' }}
      confirmLoading={saving}
      destroyOnHidden
    >
      <div data-testid="topmenu-setting-dialog">
        {tree ? (
          <CheckTree testId="topmenu-tree" nodes={tree} value={checks} onChange={setChecks} />
        ) : (
          <Spin />
        )}
      </div>
    </Modal>
  )
}
