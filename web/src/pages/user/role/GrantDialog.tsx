import { App, Modal, Spin, Tabs } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { formSeed } from '../../../api/queryClient'
import type { GrantTree } from '../../../api/system/menuAdmin'
import { roleGrantAppQuery, roleGrantQuery } from '../../../api/system/queries'
import { grantRoles, grantRolesApp } from '../../../api/system/role'
import type { TreeNode } from '../../../api/tree'
import CheckTree, { type CheckState } from '../../../components/crud/CheckTree'
import { grantBody, initialAppChecks, initialChecks, menuIdsOf, type GrantChecks } from './grant'

interface Props {
  roleIds: string[]
  onClose: () => void
  onDone: () => void
}

interface Loaded {
  trees: GrantTree
  checks: GrantChecks
  /** The app tab, when its calls answered. */
  app?: { tree: TreeNode[]; checks: CheckState }
}

/**
 * Grants the selected roles their web menus, data scopes and API scopes (`role/grant`) and their
 * app menus (`role/grant-app`), each tab pre-checked from what the roles hold.
 */
export default function GrantDialog({ roleIds, onClose, onDone }: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [saving, setSaving] = useState(false)
  const web = useQuery({ ...roleGrantQuery(roleIds), ...formSeed })
  // Shown by the request client when it fails; the web grant still works.
  const app = useQuery({ ...roleGrantAppQuery(roleIds), ...formSeed })
  /** What the user changed; the rest is pre-checked from what the roles hold. */
  const [edits, setEdits] = useState<{ checks?: GrantChecks; app?: CheckState }>({})

  // Without the trees there is nothing to grant (the request client has said why).
  useEffect(() => {
    if (web.isError) onClose()
  }, [web.isError, onClose])

  const initial = useMemo(() => {
    if (!web.data || app.isPending) return null
    const [trees, keys] = web.data
    const appInitial = app.data && { tree: app.data[0], checks: initialAppChecks(...app.data) }
    return { trees, checks: initialChecks(trees, keys), app: appInitial }
  }, [web.data, app.data, app.isPending])
  const loaded: Loaded | null = initial && {
    trees: initial.trees,
    checks: edits.checks ?? initial.checks,
    app: initial.app && { tree: initial.app.tree, checks: edits.app ?? initial.app.checks },
  }

  const setCheck = (part: keyof GrantChecks) => (value: CheckState) =>
    setEdits((prev) => (loaded ? { ...prev, checks: { ...loaded.checks, [part]: value } } : prev))

  const save = async () => {
    if (!loaded) return
    setSaving(true)
    try {
      await grantRoles(grantBody(roleIds, loaded.trees, loaded.checks))
      if (loaded.app) await grantRolesApp(roleIds, menuIdsOf(loaded.app.checks))
      void message.success(t('crud.success'))
      onDone()
    } catch {
      // shown by the request client
    } finally {
      setSaving(false)
    }
  }

  const tabs = loaded
    ? [
        {
          key: 'menu',
          label: t('role.tabMenu'),
          children: (
            <CheckTree
              testId="grant-tree-menu"
              nodes={loaded.trees.menu}
              value={loaded.checks.menu}
              onChange={setCheck('menu')}
            />
          ),
        },
        {
          key: 'dataScope',
          label: t('role.tabDataScope'),
          children: (
            <CheckTree
              testId="grant-tree-dataScope"
              nodes={loaded.trees.dataScope}
              value={loaded.checks.dataScope}
              onChange={setCheck('dataScope')}
            />
          ),
        },
        {
          key: 'apiScope',
          label: t('role.tabApiScope'),
          children: (
            <CheckTree
              testId="grant-tree-apiScope"
              nodes={loaded.trees.apiScope}
              value={loaded.checks.apiScope}
              onChange={setCheck('apiScope')}
            />
          ),
        },
        ...(loaded.app
          ? [
              {
                key: 'app',
                label: t('role.tabApp'),
                children: (
                  <CheckTree
                    testId="grant-tree-app"
                    nodes={loaded.app.tree}
                    value={loaded.app.checks}
                    onChange={(checks) => setEdits((prev) => ({ ...prev, app: checks }))}
                  />
                ),
              },
            ]
          : []),
      ]
    : []

  return (
    <Modal
      open
      title={t('role.grantTitle')}
      width={640}
      onCancel={onClose}
      onOk={() => void save()}
      okButtonProps={{ disabled: !loaded, 'data-testid': 'grant-ok' }}
      confirmLoading={saving}
      destroyOnHidden
    >
      <div data-testid="grant-dialog">{loaded ? <Tabs items={tabs} /> : <Spin />}</div>
    </Modal>
  )
}
