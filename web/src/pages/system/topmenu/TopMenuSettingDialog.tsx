import { App, Modal, Spin } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { formSeed } from '../../../api/queryClient'
import { topMenuGrantQuery } from '../../../api/system/queries'
import { grantTopMenu } from '../../../api/system/topmenu'
import CheckTree, { type CheckState } from '../../../components/crud/CheckTree'
import { checkedLeaves, conduct } from '../../../utils/tree'
import { menuIdsOf } from '../../user/role/grant'

interface Props {
  topMenuIds: string[]
  onClose: () => void
  onDone: () => void
}

/** Which menus the selected top menus lead to (`topmenu/grant`), pre-checked from what they hold. */
export default function TopMenuSettingDialog({ topMenuIds, onClose, onDone }: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [saving, setSaving] = useState(false)
  const grant = useQuery({ ...topMenuGrantQuery(topMenuIds), ...formSeed })
  const tree = grant.data?.[0] ?? null
  const initial = useMemo<CheckState>(() => {
    if (!grant.data) return { checked: [], halfChecked: [] }
    const [nodes, keys] = grant.data
    return conduct(nodes, checkedLeaves(nodes, keys))
  }, [grant.data])
  /** What the user checked; until then what the top menus hold. */
  const [edited, setChecks] = useState<CheckState | null>(null)
  const checks = edited ?? initial

  // Without the tree there is nothing to set (the request client has said why).
  useEffect(() => {
    if (grant.isError) onClose()
  }, [grant.isError, onClose])

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
