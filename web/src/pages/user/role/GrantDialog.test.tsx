import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { TreeNode } from '../../../api/tree'
import i18n from '../../../locales/i18n'
import { useSessionStore } from '../../../stores/session'
import { mockHttp, ok, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import RolePage from '.'

const n = (key: string, children?: TreeNode[]): TreeNode => ({
  id: key,
  key,
  value: key,
  title: `node-${key}`,
  children,
})

// Menus: system(m1) → user page(m11) → buttons m111, m112; dept page m12.
// Scopes hang under the user page, keyed by the menu id; the scopes themselves are leaves.
const grantTree = {
  menu: [n('m1', [n('m11', [n('m111'), n('m112')]), n('m12')])],
  dataScope: [n('m11', [n('ds1'), n('ds2')])],
  apiScope: [n('m11', [n('as1')])],
}

let calls: Call[] = []
beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path) => {
    switch (path) {
      case '/blade-system/role/list':
        return ok([{ id: 'r1', roleName: '运维', roleAlias: 'maintenance', sort: 1 }])
      case '/blade-system/menu/grant-tree':
        return ok(grantTree)
      case '/blade-system/menu/role-tree-keys':
        // Stored with the parents: pre-checking them must not check m112.
        return ok({ menu: ['m1', 'm11', 'm111'], dataScope: ['ds2'], apiScope: [] })
      case '/blade-system/menu/grant-tree-app':
        return ok({ menu: [n('a1', [n('a11')])] })
      case '/blade-system/menu/role-tree-keys-app':
        return ok({ menu: ['a11'] })
      default:
        return ok(null)
    }
  })
  act(() => useSessionStore.getState().setPermission({ role_grant: true }))
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

/** The check box of the node titled `title` in the tree of tab `tree`. */
const checkbox = (title: string, tree = 'grant-tree-menu') =>
  within(screen.getByTestId(tree))
    .getByText(title)
    .closest('.ant-tree-treenode')!
    .querySelector('.ant-tree-checkbox')!

async function openGrant() {
  renderInApp(<RolePage />)
  await screen.findByText('运维')
  fireEvent.click(
    screen.getByTestId('crud-table').querySelector('tr[data-row-key="r1"] input[type="checkbox"]')!,
  )
  fireEvent.click(screen.getByTestId('crud-action-grant'))
  await screen.findByTestId('grant-tree-menu')
}

describe('role grant dialog', () => {
  it('loads the trees and keys of the selected roles and pre-checks leaves only', async () => {
    await openGrant()
    const keys = calls.find((c) => c.path === '/blade-system/menu/role-tree-keys')!
    expect(keys.params.get('roleIds')).toBe('r1')
    expect(checkbox('node-m111').className).toContain('ant-tree-checkbox-checked')
    expect(checkbox('node-m112').className).not.toContain('ant-tree-checkbox-checked')
    expect(checkbox('node-m11').className).toContain('ant-tree-checkbox-indeterminate')
  })

  it('sends {roleIds, menuIds, dataScopeIds, apiScopeIds} with menus and their parents, scope ids only', async () => {
    await openGrant()
    fireEvent.click(checkbox('node-m12'))
    fireEvent.click(screen.getByText('接口权限'))
    // Checking the menu node checks its scope; the menu id itself is no scope id.
    fireEvent.click(await waitFor(() => checkbox('node-m11', 'grant-tree-apiScope')))
    fireEvent.click(screen.getByTestId('grant-ok'))
    expect(await screen.findByText('操作成功')).toBeTruthy()

    const grant = calls.find((c) => c.path === '/blade-system/role/grant')!
    expect(grant.method).toBe('post')
    const body = grant.body as Record<string, string[]>
    expect(body.roleIds).toEqual(['r1'])
    expect([...body.menuIds].sort()).toEqual(['m1', 'm11', 'm111', 'm12'])
    expect(body.dataScopeIds).toEqual(['ds2'])
    expect(body.apiScopeIds).toEqual(['as1'])

    const app = calls.find((c) => c.path === '/blade-system/role/grant-app')!
    expect(app.body).toEqual({
      roleIds: ['r1'],
      menuIds: expect.arrayContaining(['a1', 'a11']) as unknown,
      dataScopeIds: [],
      apiScopeIds: [],
    })
    expect((app.body as { menuIds: string[] }).menuIds).toHaveLength(2)
  })

  it('asks for a selection first and hides the button without role_grant', async () => {
    renderInApp(<RolePage />)
    await screen.findByText('运维')
    fireEvent.click(screen.getByTestId('crud-action-grant'))
    expect(await screen.findByText('请选择至少一条数据')).toBeTruthy()
    expect(calls.some((c) => c.path.includes('grant-tree'))).toBe(false)
    cleanup()
    act(() => useSessionStore.getState().setPermission({ role_add: true }))
    renderInApp(<RolePage />)
    await screen.findByText('运维')
    expect(screen.queryByTestId('crud-action-grant')).toBeNull()
  })
})
