// System administration through the console, end to end: the platform admin makes a tenant
// package and a tenant on it; the tenant's admin signs in (sees only the package's menus), adds a
// role granted just the user list's view button and a user holding it; that user signs in and
// can only look (no add/delete in the console, 403 from the server on a change).
//
// Run from run.mjs after its own checks, with its page and helpers.
import { join } from 'node:path'

/**
 * @param {object} t the runner's page, settings and helpers (see run.mjs)
 */
export async function adminChecks(t) {
  const { page, screenshotDir, check, assert, waitForPath, timeout } = t
  const { signIn, signOutByMenu, sideMenu, nextCall, toast, crudRows, crudDialog, storedToken } = t

  /** API calls of the console that failed (each toasts an error), since the last look. */
  let refusedCalls = []
  page.on('response', (r) => {
    const url = new URL(r.url())
    // The user form's post choice is optional and quietly empty without the post menu.
    const quiet = url.pathname === '/api/blade-system/post/list' && r.status() === 403
    if (url.pathname.startsWith('/api/') && r.status() >= 400 && !quiet)
      refusedCalls.push(`${r.status()} ${r.request().method()} ${url.pathname}${url.search}`)
  })
  const noRefusedCalls = () => {
    const seen = refusedCalls
    refusedCalls = []
    assert(seen.length === 0, `calls that failed: ${seen.join('; ')}`)
  }
  const stamp = Date.now().toString(36)
  const pkgName = `e2e产品包${stamp}`
  const tenantName = `e2e租户${stamp}`
  const role = { name: '巡检员', alias: `inspector${stamp}` }
  const inspector = { account: `insp${stamp}`.slice(0, 16), password: 'Insp-e2e-1', name: '巡检甲' }
  /** What the story learns on the way (the generated tenant id). */
  const story = { tenantId: '' }

  const shot = (name, fullPage = false) =>
    page.screenshot({ path: join(screenshotDir, name), fullPage })

  /** Calls the API from the page with the signed-in token, as the console does. */
  const apiFromPage = (method, path, body = {}) =>
    page.evaluate(
      async ({ method, path, body }) => {
        const raw = localStorage.getItem('pv-token')
        const token = raw ? JSON.parse(raw).content : ''
        const res = await fetch(path, {
          method,
          headers: {
            Accept: 'application/json',
            'Content-Type': 'application/json',
            Authorization: `Basic ${btoa('saber:saber_secret')}`,
            'Blade-Auth': `bearer ${token}`,
          },
          body: method === 'GET' ? undefined : JSON.stringify(body),
        })
        const text = await res.text()
        let json = null
        try {
          json = JSON.parse(text)
        } catch {
          // not JSON
        }
        return { status: res.status, text, json }
      },
      { method, path, body },
    )

  /**
   * Opens a CRUD page of the sidebar through its groups (opening only the closed ones), waiting
   * for that page's own list: the page left stays shown until the new one's chunk has loaded.
   */
  async function openFromMenu(groups, name, path, menuCode) {
    const item = () => sideMenu().getByText(name, { exact: true })
    if (!(await item().isVisible())) {
      for (const group of groups) {
        const next = groups[groups.indexOf(group) + 1] ?? name
        if (!(await sideMenu().getByText(next, { exact: true }).isVisible())) {
          await sideMenu().getByText(group, { exact: true }).click()
        }
      }
    }
    await item().click()
    await waitForPath(page, path)
    await page.locator(`[data-testid="crud-page"][data-menu-code="${menuCode}"]`).waitFor()
  }

  /** The titles of the sidebar's items, opening every group (submenus render once opened). */
  async function sidebarTitles() {
    for (let round = 0; round < 4; round++) {
      const closed = sideMenu().locator('.ant-menu-submenu:not(.ant-menu-submenu-open)')
      const count = await closed.count()
      if (count === 0) break
      for (let i = count - 1; i >= 0; i--) {
        await closed.nth(i).locator('> .ant-menu-submenu-title').click()
      }
      await page.waitForTimeout(300)
    }
    return sideMenu().evaluate((menu) => {
      const titleOf = (el) =>
        el.querySelector(':scope > .ant-menu-title-content')?.textContent ?? ''
      const walk = (list, trail) =>
        [...list.querySelectorAll(':scope > li')].flatMap((li) => {
          if (li.classList.contains('ant-menu-submenu')) {
            const title = titleOf(li.querySelector(':scope > .ant-menu-submenu-title'))
            const sub = li.querySelector(':scope > ul')
            return [[...trail, title].join('/'), ...(sub ? walk(sub, [...trail, title]) : [])]
          }
          if (li.classList.contains('ant-menu-item')) return [[...trail, titleOf(li)].join('/')]
          return []
        })
      return walk(menu, [])
    })
  }

  /**
   * Checks the node titled `title` in a tree select's dropdown, found by typing it, until the
   * select shows it as chosen (a click while the filtered list re-renders can land on nothing).
   */
  async function pickInTreeSelect(testId, title) {
    const select = page.getByTestId(testId)
    const exact = new RegExp(`^${title}$`)
    const chosen = select.locator('.ant-select-selection-item').filter({ hasText: exact })
    const dropdown = page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)')
    const node = dropdown
      .locator('.ant-select-tree-treenode')
      .filter({ has: page.locator('.ant-select-tree-title', { hasText: exact }) })
    for (let attempt = 1; ; attempt++) {
      if ((await chosen.count()) > 0) return
      if (!(await dropdown.first().isVisible())) await select.click()
      await select.locator('input').fill(title)
      const box = node.locator('.ant-select-tree-checkbox')
      if ((await box.count()) > 0) await box.click()
      else await node.locator('.ant-select-tree-title').click()
      try {
        await chosen.waitFor({ timeout: 3000 })
        return
      } catch (error) {
        if (attempt === 3) throw error
      }
    }
  }

  /** Chooses the option labelled `label` of a select. */
  async function pickInSelect(testId, label) {
    const select = page.getByTestId(testId)
    const chosen = select.getByText(label, { exact: true })
    const option = page
      .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
      .filter({ hasText: label })
      .first()
    // As with the tree select: a click while the list opens can land on nothing.
    for (let attempt = 1; ; attempt++) {
      if ((await chosen.count()) > 0) return
      if (!(await option.isVisible())) await select.click()
      await option.click()
      try {
        await chosen.waitFor({ timeout: 3000 })
        return
      } catch (error) {
        if (attempt === 3) throw error
      }
    }
  }

  /** Closes an open select dropdown without closing the dialog (a click on its title). */
  const closeDropdown = () => crudDialog().locator('.ant-modal-title').click()

  const columnIndex = (header) =>
    page.getByTestId('crud-table').evaluate((table, text) => {
      const cells = [...table.querySelectorAll('thead th')]
      return cells.findIndex((th) => th.textContent?.trim() === text)
    }, header)

  await check(
    'as platform admin, a tenant package needs a name and menus, then saves the chosen menus',
    async () => {
      await signIn('admin', 'admin')
      const list = nextCall('/blade-system/tenant-package/list')
      await openFromMenu(['系统管理'], '租户产品包', '/system/tenantPackage', 'tenantPackage')
      assert((await (await list).json()).code === 200, 'package list failed')
      await page.getByTestId('crud-add').click()
      await crudDialog().waitFor()
      await crudDialog().getByTestId('crud-submit').click()
      for (const text of ['请输入产品包名称', '请选择菜单']) {
        await crudDialog().getByText(text, { exact: true }).waitFor()
      }
      await page.getByTestId('field-packageName').fill(pkgName)
      for (const title of ['首页', '用户管理', '角色管理']) {
        await pickInTreeSelect('field-menuId', title)
      }
      await closeDropdown()
      await crudDialog().getByText('请选择菜单', { exact: true }).waitFor({ state: 'detached' })
      const submit = nextCall('/blade-system/tenant-package/submit')
      await crudDialog().getByTestId('crud-submit').click()
      const response = await submit
      const body = await response.json()
      assert(body.code === 200, `submit: ${JSON.stringify(body)}`)
      const sent = JSON.parse(response.request().postData() ?? '{}')
      const ids = String(sent.menuId ?? '').split(',')
      // Three pages and their groups (总览, 系统管理, 权限管理).
      assert(ids.length === 6, `menuId sent: ${sent.menuId}`)
      await toast('新增成功').waitFor()
      await crudDialog().waitFor({ state: 'hidden' })
      await crudRows().filter({ hasText: pkgName }).waitFor()
    },
  )

  await check(
    'as platform admin, a tenant added on that package is listed with it and a generated id',
    async () => {
      await openFromMenu(['系统管理'], '租户管理', '/system/tenant', 'tenant')
      await page.getByTestId('crud-add').click()
      await crudDialog().waitFor()
      await crudDialog().getByTestId('crud-submit').click()
      await crudDialog().getByText('请输入租户名称', { exact: true }).waitFor()
      await page.getByTestId('field-tenantName').fill(tenantName)
      await page.getByTestId('field-linkman').fill('张工')
      await page.getByTestId('field-contactNumber').fill('1380013')
      await page.getByTestId('field-contactNumber').blur()
      await crudDialog().getByText('请输入正确的11位手机号码', { exact: true }).waitFor()
      await page.getByTestId('field-contactNumber').fill('13800138000')
      await pickInSelect('field-packageId', pkgName)
      const submit = nextCall('/blade-system/tenant/submit')
      const list = nextCall('/blade-system/tenant/list')
      await crudDialog().getByTestId('crud-submit').click()
      const response = await submit
      const body = await response.json()
      assert(body.code === 200, `submit: ${JSON.stringify(body)}`)
      const sent = JSON.parse(response.request().postData() ?? '{}')
      assert(
        typeof sent.packageId === 'string' && sent.packageId !== '',
        `sent ${JSON.stringify(sent)}`,
      )
      await toast('新增成功').waitFor()
      await list
      const row = crudRows().filter({ hasText: tenantName })
      await row.waitFor()
      await row.getByText(pkgName, { exact: true }).waitFor()
      const column = await columnIndex('租户ID')
      assert(column >= 0, 'no 租户ID column')
      const tenantId = (await row.locator('td').nth(column).textContent())?.trim() ?? ''
      assert(/^\d{6}$/.test(tenantId), `tenant id in the list: "${tenantId}"`)
      story.tenantId = tenantId
      await shot('admin-tenant-list.png', true)
    },
  )

  await check('the tenant page headings read in English after the language switch', async () => {
    await Promise.all([
      page.waitForEvent('load', { timeout }),
      page.getByTestId('language-switch').getByText('English', { exact: true }).click(),
    ])
    await page.getByTestId('crud-table').waitFor()
    for (const heading of ['Tenant ID', 'Tenant name', 'Contact', 'Package']) {
      await page
        .getByTestId('crud-table')
        .locator('thead th')
        .getByText(heading, { exact: true })
        .waitFor()
    }
    await sideMenu().getByText('Tenants', { exact: true }).waitFor()
    await shot('admin-tenant-list-en.png')
    await Promise.all([
      page.waitForEvent('load', { timeout }),
      page.getByTestId('language-switch').getByText('中文', { exact: true }).click(),
    ])
    await page.getByTestId('crud-table').locator('thead th').getByText('租户ID').waitFor()
  })

  await check(
    "the new tenant's admin (initial password) sees only the package's menus",
    async () => {
      assert(story.tenantId !== '', 'no tenant id from the list')
      await signOutByMenu()
      await signIn('admin', '123456', story.tenantId)
      refusedCalls = []
      const titles = await sidebarTitles()
      const expected = [
        '总览',
        '总览/首页',
        '系统管理',
        '系统管理/用户管理',
        '系统管理/权限管理',
        '系统管理/权限管理/角色管理',
      ]
      assert(JSON.stringify(titles) === JSON.stringify(expected), `sidebar: ${titles.join(', ')}`)
      for (const absent of ['租户管理', '电站监控', '租户产品包', '机构管理']) {
        assert(!titles.some((title) => title.split('/').includes(absent)), `${absent} shown`)
      }
      await shot('admin-tenant-admin-menu.png')
    },
  )

  await check(
    'the tenant admin adds a role and grants it only the user list with its view button',
    async () => {
      await openFromMenu(['系统管理', '权限管理'], '角色管理', '/authority/role', 'role')
      await crudRows().filter({ hasText: 'administrator' }).first().waitFor()
      await page.getByTestId('crud-add').click()
      await crudDialog().waitFor()
      await page.getByTestId('field-roleName').fill(role.name)
      await page.getByTestId('field-roleAlias').fill(role.alias)
      const submit = nextCall('/blade-system/role/submit')
      await crudDialog().getByTestId('crud-submit').click()
      const body = await (await submit).json()
      assert(body.code === 200, `role submit: ${JSON.stringify(body)}`)
      await toast('新增成功').waitFor()
      await crudDialog().waitFor({ state: 'hidden' })
      const row = crudRows().filter({ hasText: role.alias })
      await row.waitFor()
      await row.locator('.ant-checkbox-input').check()
      await page.getByTestId('crud-action-grant').click()
      const tree = page.getByTestId('grant-tree-menu')
      await tree.waitFor()
      const nodes = tree.locator('.ant-tree-treenode')
      const titles = await nodes.evaluateAll((list) =>
        list.map((node) => node.querySelector('.ant-tree-title')?.textContent ?? ''),
      )
      const userAt = titles.indexOf('用户管理')
      assert(userAt >= 0, `grant tree: ${titles.join(', ')}`)
      for (const absent of ['租户管理', '电站监控']) {
        assert(!titles.includes(absent), `${absent} in the grant tree`)
      }
      const viewAt = titles.indexOf('查看', userAt)
      const nextPage = titles.indexOf('角色管理', userAt)
      assert(viewAt > userAt && (nextPage < 0 || viewAt < nextPage), `tree: ${titles.join(', ')}`)
      assert(
        (await tree.locator('.ant-tree-checkbox-checked').count()) === 0,
        'a new role starts with checks',
      )
      await nodes.nth(viewAt).locator('.ant-tree-checkbox').click()
      await nodes.nth(userAt).locator('.ant-tree-checkbox-indeterminate').waitFor()
      await shot('admin-role-grant.png')
      const grant = nextCall('/blade-system/role/grant')
      await page.getByTestId('grant-ok').click()
      const response = await grant
      const granted = await response.json()
      assert(granted.code === 200, `grant: ${JSON.stringify(granted)}`)
      const sent = JSON.parse(response.request().postData() ?? '{}')
      // The view button, its page 用户管理 and the group 系统管理.
      assert(sent.menuIds?.length === 3, `menuIds sent: ${JSON.stringify(sent)}`)
      await toast('操作成功').waitFor()
      await page.getByTestId('grant-dialog').waitFor({ state: 'detached' })
      noRefusedCalls()
    },
  )

  await check(
    'the tenant admin adds a user holding that role (passwords must match) → 新增成功',
    async () => {
      await openFromMenu(['系统管理'], '用户管理', '/system/user', 'user')
      await page.getByTestId('user-dept-tree').getByText(tenantName).first().waitFor()
      await page.getByTestId('crud-add').click()
      await crudDialog().waitFor()
      await page.getByTestId('field-account').fill(inspector.account)
      await page.getByTestId('field-password').fill(inspector.password)
      await page.getByTestId('field-password2').fill(`${inspector.password}x`)
      await crudDialog().getByText('两次密码输入不一致', { exact: true }).waitFor()
      await page.getByTestId('field-password2').fill(inspector.password)
      await crudDialog()
        .getByText('两次密码输入不一致', { exact: true })
        .waitFor({ state: 'detached' })
      await page.getByTestId('field-realName').fill(inspector.name)
      await page.getByTestId('field-phone').fill('2380013800')
      await page.getByTestId('field-phone').blur()
      await crudDialog().getByText('请输入正确的11位手机号码', { exact: true }).waitFor()
      await page.getByTestId('field-phone').fill('13900139000')
      await pickInTreeSelect('field-roleId', role.name)
      await closeDropdown()
      await pickInTreeSelect('field-deptId', tenantName)
      await closeDropdown()
      const submit = nextCall('/blade-user/submit')
      await crudDialog().getByTestId('crud-submit').click()
      const response = await submit
      const body = await response.json()
      assert(body.code === 200, `user submit: ${JSON.stringify(body)}`)
      const sent = JSON.parse(response.request().postData() ?? '{}')
      assert(sent.roleId && !String(sent.roleId).includes(','), `roleId sent: ${sent.roleId}`)
      await toast('新增成功').waitFor()
      await crudDialog().waitFor({ state: 'hidden' })
      const row = crudRows().filter({ hasText: inspector.account })
      await row.waitFor()
      await row.getByText(role.name).waitFor()
      await shot('admin-user-list.png')
      noRefusedCalls()
    },
  )

  await check(
    'the new user sees only 用户管理, can list but not add or delete; the server refuses too',
    async () => {
      await signOutByMenu()
      await signIn(inspector.account, inspector.password, story.tenantId)
      refusedCalls = []
      const titles = await sidebarTitles()
      assert(
        JSON.stringify(titles) === JSON.stringify(['系统管理', '系统管理/用户管理']),
        `sidebar: ${titles.join(', ')}`,
      )
      const list = nextCall('/blade-user/page')
      await openFromMenu(['系统管理'], '用户管理', '/system/user', 'user')
      const listed = await (await list).json()
      assert(listed.code === 200, `user page: ${JSON.stringify(listed).slice(0, 200)}`)
      const row = crudRows().filter({ hasText: inspector.account })
      await row.waitFor()
      const detail = nextCall('/blade-user/detail')
      await row.getByTestId('crud-row-view').click()
      assert((await (await detail).json()).code === 200, 'user detail refused')
      await crudDialog().waitFor()
      await page.waitForFunction(
        (account) => document.querySelector('[data-testid="field-account"]')?.value === account,
        inspector.account,
        { timeout },
      )
      assert((await crudDialog().getByTestId('crud-submit').count()) === 0, 'view can save')
      await crudDialog().getByTestId('crud-close').click()
      await crudDialog().waitFor({ state: 'hidden' })
      for (const id of ['crud-add', 'crud-bulk-delete', 'crud-row-edit', 'crud-row-delete']) {
        assert((await page.getByTestId(id).count()) === 0, `${id} shown`)
      }
      assert((await page.locator('[data-testid^="crud-action-"]').count()) === 0, 'actions shown')
      await shot('admin-limited-user.png')
      noRefusedCalls()
      assert(await storedToken(), 'not signed in')
      // A complete, valid new user: only the missing permission can refuse it.
      const self = listed.data.records.find((user) => user.account === inspector.account)
      const refused = await apiFromPage('POST', '/api/blade-user/submit', {
        account: `sneak${stamp}`.slice(0, 16),
        password: inspector.password,
        password2: inspector.password,
        realName: '越权',
        roleId: self.roleId,
        deptId: self.deptId,
      })
      assert(
        refused.status === 403 && refused.json?.code === 403,
        `POST /api/blade-user/submit answered HTTP ${refused.status} ${refused.text.slice(0, 200)}`,
      )
      const removed = await apiFromPage('POST', '/api/blade-user/remove?ids=1')
      assert(removed.status === 403, `remove answered HTTP ${removed.status}`)
      await signOutByMenu()
    },
  )

  await check(
    "a tenant without a package (as the demo's): its admin's menu has none of the platform's own pages",
    async () => {
      await signIn('admin', 'admin')
      const name = `e2e全菜单${stamp}`
      const made = await apiFromPage('POST', '/api/blade-system/tenant/submit', {
        tenantName: name,
        linkman: '李工',
      })
      assert(made.json?.code === 200, `tenant submit: ${made.text.slice(0, 200)}`)
      const listed = await apiFromPage(
        'GET',
        `/api/blade-system/tenant/list?tenantName=${encodeURIComponent(name)}`,
      )
      const tenantId = listed.json?.data?.records?.[0]?.tenantId ?? ''
      assert(/^\d{6}$/.test(tenantId), `tenant list: ${listed.text.slice(0, 200)}`)
      await signOutByMenu()
      await signIn('admin', '123456', tenantId)
      refusedCalls = []
      const titles = await sidebarTitles()
      assert(titles.includes('系统管理/用户管理'), `sidebar: ${titles.join(', ')}`)
      for (const absent of ['参数管理', '租户管理', '租户产品包', '应用管理']) {
        assert(!titles.some((title) => title.split('/').includes(absent)), `${absent} shown`)
      }
      await shot('admin-unpackaged-tenant-menu.png')
      noRefusedCalls()
      await signOutByMenu()
    },
  )
}
