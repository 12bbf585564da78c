import { App, Modal, Spin, Tabs } from 'antd'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  grantTree,
  grantTreeApp,
  roleTreeKeys,
  roleTreeKeysApp,
  type GrantTree,
} from '../../../api/system/menuAdmin'
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
  const [loaded, setLoaded] = useState<Loaded | null>(null)
  const [saving, setSaving] = useState(false)

  useEffect(() => {
    let live = true
    const web = Promise.all([grantTree(), roleTreeKeys(roleIds)])
    const app = Promise.all([grantTreeApp(), roleTreeKeysApp(roleIds)])
    web.then(
      async ([trees, keys]) => {
        let appPart: Loaded['app']
        try {
          const [tree, appKeys] = await app
          appPart = { tree, checks: initialAppChecks(tree, appKeys) }
        } catch {
          appPart = undefined // shown by the request client; the web grant still works
        }
        if (live) setLoaded({ trees, checks: initialChecks(trees, keys), app: appPart })
      },
      () => live && onClose(),
    )
    return () => {
      live = false
    }
  }, [roleIds, onClose])

  const setCheck = (part: keyof GrantChecks) => (value: CheckState) =>
    setLoaded((prev) => (prev ? { ...prev, checks: { ...prev.checks, [part]: value } } : prev))

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
                    onChange={(checks) =>
                      setLoaded((prev) =>
                        prev?.app ? { ...prev, app: { ...prev.app, checks } } : prev,
                      )
                    }
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
