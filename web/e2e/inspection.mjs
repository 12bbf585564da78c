/**
 * Inspections end to end: an administrator creates an item (three checks) and a plan in the
 * console for a new station with a maintenance user (role `maintenance`, the station assigned,
 * provisioned through the API); a pass of the task job generates today's task; that user signs in
 * on a 390×844 phone viewport, opens the task from the task list, fills it with one abnormal check
 * (note and a real PNG photo through the camera file input) and submits; the record shows run
 * situation abnormal; one tap on the abnormal result opens a repair order linked to the record.
 * Screenshots of the phone steps: inspection-phone-*.png.
 */
import { deflateSync } from 'node:zlib'
import { join } from 'node:path'
import { chromium } from 'playwright-core'

const executablePath = process.env.CHROMIUM || '/usr/bin/chromium'

/** CRC-32 of PNG chunks. */
function crc32(bytes) {
  let c = ~0
  for (const b of bytes) {
    c ^= b
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1))
  }
  return ~c >>> 0
}

/** A real `size`×`size` RGB PNG (a red square with a white diagonal). */
export function smallPng(size = 16) {
  const chunk = (type, data) => {
    const out = Buffer.alloc(12 + data.length)
    out.writeUInt32BE(data.length, 0)
    out.write(type, 4, 'latin1')
    data.copy(out, 8)
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
    return out
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(size, 0)
  header.writeUInt32BE(size, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // RGB
  const raw = Buffer.alloc(size * (1 + size * 3))
  for (let y = 0; y < size; y++) {
    const row = y * (1 + size * 3)
    for (let x = 0; x < size; x++) {
      const white = x === y
      raw[row + 1 + x * 3] = 255
      raw[row + 2 + x * 3] = white ? 255 : 40
      raw[row + 3 + x * 3] = white ? 255 : 40
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

const apiOf = (baseUrl, token) => async (method, path, body) => {
  const r = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Basic ${btoa('saber:saber_secret')}`,
      'Blade-Auth': `bearer ${await token()}`,
      'Content-Type': 'application/json',
      'Accept-Language': 'zh-CN',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await r.text()
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`)
  const json = JSON.parse(text)
  if (json.code !== undefined && json.code !== 200) {
    throw new Error(`${method} ${path}: code ${json.code} ${text.slice(0, 300)}`)
  }
  return json
}

/** Menus (and their buttons) the maintenance role is given, by code. */
const maintenanceMenus = [
  'basicFacts',
  'intelligentOperation',
  'inspectionTask',
  'inspectionTask_view',
  'inspectionTask_fill',
  'inspectionRecord',
  'inspectionRecord_view',
  'repair',
  'repair_view',
  'repair_add',
  'repair_accept',
  'repair_start',
  'repair_finish',
]

const flatten = (nodes) => nodes.flatMap((n) => [n, ...flatten(n.children ?? [])])

export async function inspectionChecks(t) {
  const { page, baseUrl, screenshotDir, check, assert, timeout, signIn, storedToken, waitForPath } =
    t
  const admin = apiOf(baseUrl, storedToken)
  const stamp = Date.now().toString(36)
  const names = {
    station: `巡检电站${stamp}`,
    item: `逆变器巡检${stamp}`,
    plan: `日常巡检${stamp}`,
    account: `ins${stamp}`.slice(0, 16),
    password: 'Insp-e2e-1',
    realName: `巡检员${stamp}`,
  }
  const checks = ['外观无破损', '散热风扇运转正常', '接线端子无发热']
  const ids = { station: '', user: '', item: '', plan: '', task: '', record: '', order: '' }
  const get = async (path) => (await admin('GET', path)).data
  /** Waits for the next call to an /api path with `method`. */
  const nextCall = (p, path, method = 'GET') =>
    p.waitForResponse(
      (r) => new URL(r.url()).pathname === `/api${path}` && r.request().method() === method,
    )
  /** Picks `label` in the antd select `testId` (typing to filter first). */
  async function pick(p, testId, label) {
    const select = p.getByTestId(testId)
    const option = p
      .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
      .filter({ hasText: label })
      .first()
    for (let attempt = 1; ; attempt++) {
      if (!(await option.isVisible())) await select.click()
      const input = select.locator('input').first()
      if ((await input.count()) > 0 && (await input.isEditable().catch(() => false))) {
        await input.fill(label).catch(() => {})
      }
      try {
        await option.click({ timeout: 4000 })
        await select.getByText(label).first().waitFor({ timeout: 3000 })
        await p.keyboard.press('Escape')
        return
      } catch (error) {
        if (attempt >= 3) throw error
      }
    }
  }

  /** The page (and its own box) fit a 390 px screen: nothing scrolls sideways. */
  async function assertFits(p, testId) {
    const m = await p
      .getByTestId(testId)
      .first()
      .evaluate((el) => {
        const r = el.getBoundingClientRect()
        return {
          right: Math.round(r.right),
          left: Math.round(r.left),
          own: el.scrollWidth - el.clientWidth,
          doc: document.documentElement.scrollWidth,
          width: window.innerWidth,
        }
      })
    assert(m.left >= 0 && m.right <= m.width, `${testId} box ${m.left}..${m.right} of ${m.width}`)
    assert(m.own <= 1, `${testId} content overflows its box by ${m.own} px`)
    assert(m.doc <= m.width, `the page is ${m.doc} px wide at ${m.width} px`)
  }

  await check('inspection: a station and a maintenance user assigned to it (API)', async () => {
    // The group before may have left the admin signed in (the login page then redirects home).
    if (!(await storedToken().catch(() => null))) await signIn('admin', 'admin')
    ids.station = String(
      (
        await admin('POST', '/api/station', {
          name: names.station,
          gatewayId: `gw-insp-${stamp}`,
          latitude: 31.23,
          longitude: 121.47,
        })
      ).data,
    )
    // The platform administrator sees every tenant's roles and departments: keep to 000000.
    const ours = (r) => (r.tenantId ?? '000000') === '000000'
    const roles = flatten((await get('/api/blade-system/role/list?tenantId=000000')) ?? [])
    let role = roles.find((r) => r.roleAlias === 'maintenance' && ours(r))
    if (!role) {
      await admin('POST', '/api/blade-system/role/submit', {
        roleName: '运维人员',
        roleAlias: 'maintenance',
        tenantId: '000000',
        sort: 9,
      })
      role = flatten(await get('/api/blade-system/role/list?tenantId=000000')).find(
        (r) => r.roleAlias === 'maintenance' && ours(r),
      )
    }
    assert(role, 'no maintenance role')
    const menus = flatten(await get('/api/blade-system/menu/list'))
    const menuIds = maintenanceMenus
      .map((code) => menus.find((m) => m.code === code)?.id)
      .filter(Boolean)
      .map(String)
    assert(menuIds.length >= 8, `menus found: ${menuIds.length}`)
    // Added to what the role holds (other groups grant it their menus too).
    const held = await get(`/api/blade-system/menu/role-tree-keys?roleIds=${role.id}`)
    await admin('POST', '/api/blade-system/role/grant', {
      roleIds: [String(role.id)],
      menuIds: [...new Set([...(held?.menu ?? []), ...menuIds].map(String))],
    })
    const depts = flatten((await get('/api/blade-system/dept/list')) ?? []).filter(ours)
    assert(depts.length > 0, 'no department')
    await admin('POST', '/api/blade-user/submit', {
      account: names.account,
      password: names.password,
      password2: names.password,
      realName: names.realName,
      name: names.realName,
      roleId: String(role.id),
      deptId: String(depts[0].id),
    })
    const users = await get(`/api/blade-user/page?current=1&size=10&account=${names.account}`)
    const user = users.records.find((u) => u.account === names.account)
    assert(user, `user ${names.account} not listed`)
    ids.user = String(user.id)
    await admin('POST', '/api/station/updateUserStation', {
      userId: ids.user,
      stationIds: [ids.station],
    })
    const staff = await get(`/api/inspectPlan/maintenanceList?stationIds=${ids.station}`)
    assert(
      staff.some((u) => String(u.id) === ids.user),
      `maintenanceList: ${JSON.stringify(staff).slice(0, 300)}`,
    )
  })

  await check(
    'inspection: the admin adds an item with three checks (title and one check required)',
    async () => {
      await page.goto(`${baseUrl}/intelligentOperation/inspectionItem`)
      await page.getByTestId('inspection-item-page').waitFor()
      await page.getByTestId('item-add').click()
      const dialog = page.locator('.ant-modal').filter({ has: page.getByTestId('item-form') })
      await dialog.waitFor()
      await page.getByTestId('item-submit').click()
      await dialog.getByText('请输入巡检项标题', { exact: true }).waitFor()
      await dialog.getByText('请至少添加一个检查项', { exact: true }).waitFor()
      await page.getByTestId('item-title').fill(names.item)
      for (const [i, text] of checks.entries()) {
        if (i > 0) await page.getByTestId('item-check-add').click()
        await page.getByTestId(`item-check-${i}`).fill(text)
      }
      const saved = nextCall(page, '/inspectItem', 'POST')
      await page.getByTestId('item-submit').click()
      const body = await (await saved).json()
      assert(body.code === 200, `POST /inspectItem: ${JSON.stringify(body).slice(0, 300)}`)
      assert(
        JSON.stringify(body.data.checkItems) === JSON.stringify(checks),
        `checks saved: ${JSON.stringify(body.data.checkItems)}`,
      )
      ids.item = String(body.data.id)
      await dialog.waitFor({ state: 'hidden' })
      await page.getByTestId('item-table').getByText(names.item).waitFor()
      await page.screenshot({ path: join(screenshotDir, 'inspection-items.png') })
    },
  )

  await check(
    'inspection: the admin adds a daily plan for the station with that user',
    async () => {
      await page.goto(`${baseUrl}/intelligentOperation/inspectionPlan`)
      await page.getByTestId('inspection-plan-page').waitFor()
      await page.getByTestId('plan-add').click()
      await waitForPath(page, '/intelligentOperation/edit-inspectionPlan')
      await page.getByTestId('plan-form').waitFor()
      await page.getByTestId('plan-name').fill(names.plan)
      const staff = nextCall(page, '/inspectPlan/maintenanceList')
      await pick(page, 'plan-stations', names.station)
      await staff
      await pick(page, 'plan-items', names.item)
      await pick(page, 'plan-maintenance', names.realName)
      await pick(page, 'plan-cycle', '每日')
      const saved = nextCall(page, '/inspectPlan', 'POST')
      await page.getByTestId('plan-submit').click()
      const body = await (await saved).json()
      assert(body.code === 200, `POST /inspectPlan: ${JSON.stringify(body).slice(0, 300)}`)
      ids.plan = String(body.data.id)
      const sent = JSON.parse((await saved).request().postData() ?? '{}')
      assert(
        sent.stationIds?.join() === ids.station &&
          sent.itemIds?.join() === ids.item &&
          sent.maintenanceIds?.join() === ids.user &&
          sent.cyclePeriod === '1',
        `plan sent: ${JSON.stringify(sent)}`,
      )
      await waitForPath(page, '/intelligentOperation/inspectionPlan-detail')
      await page.getByTestId('inspection-plan-detail').getByText(names.realName).waitFor()
      await page.screenshot({ path: join(screenshotDir, 'inspection-plan.png'), fullPage: true })
    },
  )

  await check("inspection: a pass of the task job generates today's task", async () => {
    const generated = await admin('POST', '/api/inspectTask/generate')
    assert(generated.code === 200, `generate: ${JSON.stringify(generated)}`)
    const tasks = await get(`/api/inspectTask/page?current=1&size=10&planId=${ids.plan}`)
    assert(tasks.records.length >= 1, `tasks of the plan: ${JSON.stringify(tasks).slice(0, 300)}`)
    const task = tasks.records.find((r) => String(r.status) === '0')
    assert(task, 'no unfilled task')
    ids.task = String(task.id)
  })

  // ---- The maintenance user, on a phone ----
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
  })
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: 'zh-CN',
  })
  const mobile = await phone.newPage()
  mobile.setDefaultTimeout(timeout)
  const mobileErrors = []
  mobile.on('pageerror', (error) => mobileErrors.push(error.message))
  const shot = (name, fullPage = true) =>
    mobile.screenshot({ path: join(screenshotDir, name), fullPage })

  try {
    await check('inspection: the maintenance user signs in on a 390×844 phone', async () => {
      await mobile.goto(`${baseUrl}/login`)
      const captcha = mobile.waitForResponse((r) =>
        r.url().includes('/api/blade-auth/oauth/captcha'),
      )
      await mobile.reload()
      const answer = (await (await captcha).json()).answer
      assert(typeof answer === 'string', 'the hub does not expose the captcha answer')
      await mobile.getByTestId('login-submit').waitFor()
      await mobile.waitForFunction(
        () => !document.querySelector('[data-testid="login-submit"]')?.hasAttribute('disabled'),
      )
      const tenant = mobile.getByTestId('login-tenant')
      if (await tenant.isVisible()) await tenant.fill('000000')
      await mobile.getByTestId('login-account').fill(names.account)
      await mobile.getByTestId('login-password').fill(names.password)
      await mobile.getByTestId('login-captcha').fill(answer)
      const token = mobile.waitForResponse((r) => r.url().includes('/api/blade-auth/oauth/token'))
      await mobile.getByTestId('login-submit').tap()
      const response = await token
      assert(response.status() === 200, `sign-in: HTTP ${response.status()}`)
      await mobile.waitForURL((url) => url.pathname !== '/login', { timeout })
    })

    await check(
      'inspection: the task list opens the task on the phone (no sideways scroll)',
      async () => {
        const list = nextCall(mobile, '/inspectTask/page')
        await mobile.goto(`${baseUrl}/intelligentOperation/inspectionTask`)
        await list
        const card = mobile.locator(`[data-testid="task-card"][data-task-id="${ids.task}"]`)
        await card.waitFor()
        await assertFits(mobile, 'inspection-task-page')
        await shot('inspection-phone-tasks.png')
        await card.tap()
        await mobile.waitForURL(
          (url) => url.pathname === '/intelligentOperation/inspectionTask-detail',
        )
        assert(new URL(mobile.url()).searchParams.get('id') === ids.task, `opened ${mobile.url()}`)
        await mobile.getByTestId('fill-form').waitFor()
        assert((await mobile.getByTestId('fill-check').count()) === checks.length, 'check cards')
      },
    )

    await check(
      'inspection: filled with one abnormal check (note, PNG photo), submitted',
      async () => {
        const cards = mobile.getByTestId('fill-check')
        // Touch targets: the toggles and the submit button are at least 44 px high.
        for (const id of ['fill-normal', 'fill-abnormal']) {
          const box = await cards.first().getByTestId(id).boundingBox()
          assert(box && box.height >= 44 && box.width >= 44, `${id}: ${JSON.stringify(box)}`)
        }
        await cards.nth(0).getByTestId('fill-normal').tap()
        await cards.nth(1).getByTestId('fill-normal').tap()
        await cards.nth(2).getByTestId('fill-abnormal').tap()
        // Abnormal without a note is refused before anything is sent.
        await mobile.getByTestId('fill-submit').tap()
        await mobile.getByTestId('fill-note-error').getByText('请填写异常说明').waitFor()
        await cards.nth(2).getByTestId('fill-note').fill('端子温度偏高，有焦痕')
        const upload = nextCall(mobile, '/blade-resource/oss/endpoint/put-image', 'POST')
        const input = cards.nth(2).getByTestId('fill-photo-input')
        assert((await input.getAttribute('capture')) === 'environment', 'no camera capture')
        await input.setInputFiles({
          name: 'terminal.png',
          mimeType: 'image/png',
          buffer: smallPng(),
        })
        const uploaded = await (await upload).json()
        assert(uploaded.code === 200, `put-image: ${JSON.stringify(uploaded).slice(0, 300)}`)
        await cards.nth(2).getByTestId('fill-thumb').first().waitFor()
        const run = await mobile.getByTestId('fill-run').getAttribute('data-value')
        assert(run === '2', `run situation shown: ${run}`)
        // The submit bar stays at the bottom of the screen while the form scrolls.
        await cards.first().scrollIntoViewIfNeeded()
        const bar = await mobile.getByTestId('fill-submit-bar').boundingBox()
        assert(
          bar && bar.y + bar.height <= 844 + 1 && bar.y > 600,
          `submit bar at ${JSON.stringify(bar)}`,
        )
        const submitBox = await mobile.getByTestId('fill-submit').boundingBox()
        assert(submitBox && submitBox.height >= 44, `submit: ${JSON.stringify(submitBox)}`)
        await assertFits(mobile, 'inspection-task-fill')
        await shot('inspection-phone-fill.png', false)
        await shot('inspection-phone-fill-full.png')
        await mobile.getByTestId('fill-remark').fill('e2e 巡检')
        const saved = nextCall(mobile, '/inspectRecord', 'POST')
        await mobile.getByTestId('fill-submit').tap()
        const response = await saved
        const body = await response.json()
        assert(body.code === 200, `POST /inspectRecord: ${JSON.stringify(body).slice(0, 300)}`)
        const sent = JSON.parse(response.request().postData() ?? '{}')
        assert(sent.runSituation === '2', `sent ${JSON.stringify(sent)}`)
        assert(
          sent.results.length === 3 &&
            sent.results[2].result === '2' &&
            sent.results[2].photos?.[0] === uploaded.data.link,
          `results sent: ${JSON.stringify(sent.results)}`,
        )
        ids.record = String(body.data.id)
      },
    )

    await check(
      'inspection: the record shows run situation abnormal with the note and photo',
      async () => {
        await mobile.waitForURL(
          (url) => url.pathname === '/intelligentOperation/inspectionRecord-detail',
        )
        await mobile.getByTestId('record-run').waitFor()
        assert(
          (await mobile.getByTestId('record-run').getAttribute('data-value')) === '2',
          'run situation is not abnormal',
        )
        const abnormal = mobile.locator('[data-testid="record-result"][data-result="2"]')
        assert((await abnormal.count()) === 1, `${await abnormal.count()} abnormal results`)
        await abnormal.getByText('端子温度偏高，有焦痕').waitFor()
        await abnormal.getByTestId('inspection-photo').first().waitFor()
        const record = await get(`/api/inspectRecord/${ids.record}`)
        assert(
          String(record.runSituation) === '2',
          `record: ${JSON.stringify(record).slice(0, 200)}`,
        )
        const task = await get(`/api/inspectTask/${ids.task}`)
        assert(String(task.status) === '1', `task status ${task.status}`)
        await assertFits(mobile, 'inspection-record-results')
        await shot('inspection-phone-record.png')
      },
    )

    await check('inspection: one tap on the abnormal result opens a repair order', async () => {
      const abnormal = mobile.locator('[data-testid="record-result"][data-result="2"]')
      const index = Number(await abnormal.getAttribute('data-index'))
      const created = nextCall(mobile, '/repair', 'POST')
      await abnormal.getByTestId('record-result-repair').tap()
      const response = await created
      const body = await response.json()
      assert(body.code === 200, `POST /repair: ${JSON.stringify(body).slice(0, 300)}`)
      const sent = JSON.parse(response.request().postData() ?? '{}')
      assert(
        sent.inspectRecordId === ids.record && sent.inspectResultIndex === index,
        `sent ${JSON.stringify(sent)}`,
      )
      ids.order = String(typeof body.data === 'object' ? body.data.id : body.data)
      // (Checked on the navigation itself: the order page is the repair console's.)
      let opened = null
      await mobile.waitForURL((url) => {
        if (url.pathname === '/intelligentOperation/repair-detail') opened = url
        return opened !== null
      })
      assert(opened.searchParams.get('id') === ids.order, `opened ${opened}`)
      const order = await get(`/api/repair/${ids.order}`)
      assert(
        String(order.inspectRecordId) === ids.record && String(order.source) === '3',
        `order: ${JSON.stringify(order).slice(0, 300)}`,
      )
      assert(String(order.stationId) === ids.station, `order station ${order.stationId}`)
      // The order page is the repair console's (branch repair-web): shot once it is there.
      await mobile
        .getByTestId('repair-detail-page')
        .waitFor({ timeout: 5000 })
        .catch(() => {})
      await shot('inspection-phone-repair.png')
    })

    await check(
      'inspection: the result then shows its order, linked instead of offered',
      async () => {
        const record = await get(`/api/inspectRecord/${ids.record}`)
        const index = record.results.findIndex((r) => String(r.result) === '2')
        assert(
          String(record.results[index].repairId) === ids.order,
          `result repairId: ${record.results[index].repairId} (order ${ids.order})`,
        )
        await mobile.goto(
          `${baseUrl}/intelligentOperation/inspectionRecord-detail?id=${ids.record}`,
        )
        await mobile.getByTestId('record-result-repair-link').waitFor()
        assert((await mobile.getByTestId('record-result-repair').count()) === 0, 'still offered')
      },
    )

    await check('inspection: no script errors on the phone', async () => {
      assert(mobileErrors.length === 0, mobileErrors.join('\n'))
    })
  } finally {
    await phone.close()
    await browser.close()
  }

  await check(
    'inspection: the admin lists the record (abnormal) and exports the records',
    async () => {
      const list = nextCall(page, '/inspectRecord/page')
      await page.goto(`${baseUrl}/intelligentOperation/inspectionRecord`)
      await list
      const row = page.locator(`tr[data-record-id="${ids.record}"]`)
      await row.waitFor()
      assert(
        (await row.getByTestId('record-row-run').getAttribute('data-value')) === '2',
        'record row not abnormal',
      )
      const asked = page.waitForRequest(
        (r) => new URL(r.url()).pathname === '/api/inspectRecord/export-data',
      )
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByTestId('record-export').click(),
      ])
      await asked
      assert(
        (download.suggestedFilename() || '').endsWith('.xlsx'),
        `download ${download.suggestedFilename()}`,
      )
      await page.screenshot({ path: join(screenshotDir, 'inspection-records.png') })
    },
  )
}
