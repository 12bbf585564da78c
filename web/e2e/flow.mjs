// Workflow in the browser (issue 27), lean: the admin opens the seeded repair approval in the
// modeler (bpmn-js, its watermark visible), names themself among the approvers in the properties
// panel and deploys it; a critical repair order then waits in 我的事务, is approved there, and
// 流程跟踪 lists the instance whose diagram shows the finished nodes green.

export async function flowChecks(t) {
  const { page, baseUrl, check, assert, signIn, storedToken, timeout } = t
  const stamp = Date.now().toString(36)
  const live = { station: '', order: '', instance: '', adminId: '' }

  const api = async (method, path, body) => {
    const r = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        'Blade-Auth': `bearer ${await storedToken()}`,
        'Content-Type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const json = await r.json().catch(() => null)
    if (!r.ok || json?.code !== 200)
      throw new Error(`${method} ${path}: HTTP ${r.status} ${JSON.stringify(json)}`)
    return json
  }

  await check(
    '流程模型 lists the seeded processes; the modeler opens one with its watermark',
    async () => {
      if (!(await storedToken().catch(() => null))) await signIn('admin', 'admin')
      live.adminId = String((await api('GET', '/api/blade-auth/oauth/user-info')).data.userId ?? '')
      await page.goto(`${baseUrl}/flow/model`)
      const row = page.locator('[data-testid="flow-models"] tr', { hasText: 'repair_approval' })
      await row.waitFor({ timeout })
      await row.getByRole('button', { name: '设计' }).click()
      await page.locator('[data-testid="flow-modeler"] .djs-container').waitFor({ timeout })
      assert(await page.locator('.bjs-powered-by').isVisible(), 'the bpmn-js watermark is hidden')
    },
  )

  await check('the properties panel edits the approvers and the model deploys', async () => {
    await page.locator('[data-element-id="manager_approval"]').first().click()
    const users = page.getByTestId('prop-candidateUsers')
    await users.waitFor({ timeout })
    await users.fill(`\${managers},${live.adminId}`)
    await page.getByTestId('flow-props').locator('.ant-typography').first().click()
    await page.getByRole('button', { name: '保存并部署' }).click()
    await page.getByText('部署成功').waitFor({ timeout })
    const defs = (await api('GET', '/api/blade-flow/manager/list?keyword=repair_approval')).data
    assert(defs.total >= 1, 'not deployed')
    const view = (
      await api(
        'GET',
        `/api/blade-flow/process/model-view?processDefinitionId=${defs.records[0].id}`,
      )
    ).data
    assert(view.xml.includes(`,${live.adminId}`), 'the approver was not saved')
  })

  await check('a critical order waits in 我的事务 and is approved there', async () => {
    live.station = String(
      (
        await api('POST', '/api/station', {
          name: `流程电站${stamp}`,
          latitude: 30.5,
          longitude: 114.3,
        })
      ).data,
    )
    const order = (
      await api('POST', '/api/repair', {
        title: `审批${stamp}`,
        description: 'e2e',
        stationId: live.station,
        level: 4,
      })
    ).data
    assert(order.approval === 1, `approval ${order.approval}`)
    live.order = order.id
    live.instance = order.approvalInstance
    await page.goto(`${baseUrl}/work`)
    await page.getByRole('tab', { name: '待签事务' }).click()
    const row = page.locator('[data-testid="work-claim"] tr', { hasText: `审批${stamp}` })
    await row.waitFor({ timeout })
    await row.getByRole('button', { name: '办理' }).click()
    await page.getByPlaceholder('审批意见').fill('同意派工')
    await page.getByRole('button', { name: '同意' }).click()
    await row.waitFor({ state: 'detached', timeout })
    const after = (await api('GET', `/api/repair/${live.order}`)).data
    assert(after.approval === 2, `approval ${after.approval}`)
  })

  await check(
    '流程跟踪 lists the instance; its diagram marks the finished nodes green',
    async () => {
      await page.goto(`${baseUrl}/flow/follow`)
      const row = page.locator('[data-testid="flow-instances"] tr', { hasText: `审批${stamp}` })
      await row.waitFor({ timeout })
      await row.getByRole('button', { name: '流程图' }).click()
      await page.locator('[data-testid="flow-chart"] .flow-done').first().waitFor({ timeout })
      for (const id of ['start', 'manager_approval', 'approved']) {
        const marked = await page
          .locator(`[data-testid="flow-chart"] [data-element-id="${id}"].flow-done`)
          .count()
        assert(marked === 1, `${id} not marked finished`)
      }
      assert(
        (await page.locator('[data-testid="flow-chart"] .flow-taken').count()) > 0,
        'no taken flow drawn',
      )
      await page.keyboard.press('Escape')
    },
  )
}
