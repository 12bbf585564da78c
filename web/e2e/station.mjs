// The station registry through the console, end to end: the platform admin adds a station with
// two images (a sixth image and a non-image are refused), picks its region and location, opens
// its archive, adds an inverter and a meter there (the device screens embedded in the archive),
// sets a peak/valley price schedule (an overlap is refused), switches the station to running,
// issues its gateway credentials (password shown once) and downloads the generated gateway
// config; then the Excel calls, the assignment screen, and the two-step delete of a station that
// still has devices.
//
// Run from run.mjs after the admin checks (which end signed out), with its page and helpers.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// A 1×1 PNG.
const pngBytes = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)

/**
 * @param {object} t the runner's page, settings and helpers (see run.mjs)
 */
export async function stationChecks(t) {
  const { page, baseUrl, screenshotDir, check, assert, waitForPath, timeout } = t
  const { signIn, openMenu, nextCall, toast, crudRows, crudDialog } = t

  const stamp = Date.now().toString(36)
  const station = { name: `e2e电站${stamp}`, gatewayId: `gw-e2e-${stamp}` }
  const inverterSn = `INV${stamp}`.toUpperCase()
  const meterSn = `MTR${stamp}`.toUpperCase()
  const story = { id: '' }
  const files = mkdtempSync(join(tmpdir(), 'pv-e2e-station-'))
  const png = (name) => {
    const path = join(files, name)
    writeFileSync(path, pngBytes)
    return path
  }
  const shot = (name, fullPage = false) =>
    page.screenshot({ path: join(screenshotDir, name), fullPage })
  const stationDialog = () => page.locator('.station-dialog .ant-modal')
  /** The one of several embedded screens that is on the visible tab. */
  const visible = (testId) => page.getByTestId(testId).filter({ visible: true })
  const archiveTab = (name) =>
    page.getByTestId('archive-tabs').getByRole('tab', { name, exact: true }).first()
  const okMessage = (text) => page.locator('.ant-message').getByText(text).first()

  /** Calls that failed (each toasts an error), since the last look; expected refusals excepted. */
  let refusedCalls = []
  const expected = new Set()
  const onResponse = (r) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith('/api/') && r.status() >= 400 && !expected.has(url.pathname))
      refusedCalls.push(`${r.status()} ${r.request().method()} ${url.pathname}${url.search}`)
  }
  page.on('response', onResponse)
  const noRefusedCalls = () => {
    const seen = refusedCalls
    refusedCalls = []
    assert(seen.length === 0, `calls that failed: ${seen.join('; ')}`)
  }

  try {
    await check(
      'as admin, /station/station opens from the menu with the station list',
      async () => {
        await signIn('admin', 'admin')
        refusedCalls = []
        const list = nextCall('/station/page')
        await openMenu(['电站监控'], '电站管理', '/station/station')
        const body = await (await list).json()
        assert(body.code === 200, `station page: ${JSON.stringify(body).slice(0, 200)}`)
        await page.getByTestId('station-page').waitFor()
        for (const id of ['crud-add', 'crud-action-import', 'crud-action-export', 'search-name']) {
          await page.getByTestId(id).waitFor()
        }
        noRefusedCalls()
      },
    )

    await check(
      'adding a station: 2 images upload, a 6th and a non-image are refused, region and map location saved',
      async () => {
        await page.getByTestId('crud-add').click()
        await stationDialog().waitFor()
        await stationDialog().getByTestId('crud-submit').click()
        await stationDialog().getByText('请输入电站名称', { exact: true }).waitFor()
        await page.getByTestId('field-name').fill(station.name)
        await page.getByTestId('field-gatewayId').fill(station.gatewayId)
        await page.getByTestId('field-gatewaySn').fill(`SN-${stamp}`)
        await page.getByTestId('field-capacity').fill('60')

        // Two images: both uploaded to the file storage and shown.
        const input = page.getByTestId('station-images-input')
        let uploads = 0
        const countUploads = (r) => {
          if (r.url().includes('/api/blade-resource/oss/endpoint/put-file')) uploads++
        }
        page.on('request', countUploads)
        await input.setInputFiles([png('roof-1.png'), png('roof-2.png')])
        await page.waitForFunction(
          () => document.querySelectorAll('[data-testid="station-image"]').length === 2,
        )
        assert(uploads === 2, `${uploads} uploads for 2 images`)
        // Four more would make six: refused whole, nothing uploaded.
        await input.setInputFiles(['a', 'b', 'c', 'd'].map((n) => png(`more-${n}.png`)))
        await page
          .getByTestId('station-images-hint')
          .getByText('电站图片最多5张', { exact: true })
          .waitFor()
        // Not an image.
        const text = join(files, 'notes.txt')
        writeFileSync(text, 'not an image')
        await input.setInputFiles([text])
        await page
          .getByTestId('station-images-hint')
          .getByText('图片只能是jpg或png格式', { exact: true })
          .waitFor()
        page.off('request', countUploads)
        assert(uploads === 2, `${uploads} uploads after the refused selections`)
        assert((await page.getByTestId('station-image').count()) === 2, 'refused files were added')

        // Region from the region API: province 北京市.
        await page.getByTestId('field-region').click()
        await page.locator('.ant-cascader-menu-item').filter({ hasText: '北京市' }).first().click()
        await page.locator('.ant-cascader-menu-item').filter({ hasText: '市辖区' }).first().click()
        await page.locator('.ant-cascader-menu-item').filter({ hasText: '东城区' }).first().click()
        await page.keyboard.press('Escape')

        // The location: a typed latitude out of range is refused, then a click on the map.
        const picker = stationDialog().getByTestId('map-picker')
        await picker.scrollIntoViewIfNeeded()
        await picker.getByTestId('map-latitude').fill('95')
        await picker.getByTestId('map-longitude').fill('116.4')
        await stationDialog()
          .getByText('纬度须在-90到90之间，最多6位小数', { exact: true })
          .waitFor()
        // Offline, the map settles for the bundled outlines (drawn as SVG paths), no error.
        await page.waitForFunction(
          () =>
            document.querySelector('[data-testid="map-picker"]')?.getAttribute('data-base') !==
            'loading',
          null,
          { timeout },
        )
        await page.waitForFunction(
          () => document.querySelectorAll('[data-testid="map-canvas"] path').length > 30,
          null,
          { timeout },
        )
        const canvas = picker.getByTestId('map-canvas')
        const box = await canvas.boundingBox()
        assert(box, 'the map has no box')
        await canvas.click({ position: { x: box.width * 0.55, y: box.height * 0.5 } })
        await page.waitForFunction(() => {
          const el = document.querySelector('[data-testid="map-latitude"]')
          const v = (el?.tagName === 'INPUT' ? el : el?.querySelector('input'))?.value
          return v && Number(v) > 15 && Number(v) < 55
        })
        await stationDialog()
          .getByText('纬度须在-90到90之间，最多6位小数', { exact: true })
          .waitFor({ state: 'detached' })
        await shot('station-form.png')

        const create = nextCall('/station')
        const list = nextCall('/station/page')
        await stationDialog().getByTestId('crud-submit').click()
        const response = await create
        const sent = JSON.parse(response.request().postData() ?? '{}')
        const body = await response.json()
        assert(body.code === 200, `POST /api/station: ${JSON.stringify(body)}`)
        story.id = String(body.data)
        assert(sent.images?.length === 2, `images sent: ${JSON.stringify(sent.images)}`)
        assert(
          sent.provinceCode === '110000' && sent.districtCode === '110101',
          `region sent: ${sent.provinceCode}/${sent.cityCode}/${sent.districtCode}`,
        )
        assert(
          typeof sent.latitude === 'number' && typeof sent.longitude === 'number',
          `location sent: ${sent.latitude}, ${sent.longitude}`,
        )
        await toast('新增成功').waitFor()
        await stationDialog().waitFor({ state: 'hidden' })
        await list
        const row = crudRows().filter({ hasText: station.name })
        await row.waitFor()
        await row.getByText('调试中').waitFor()
        noRefusedCalls()
      },
    )

    await check('the archive shows the station with its images and location', async () => {
      const detail = nextCall(`/station/${story.id}`)
      await crudRows().filter({ hasText: station.name }).getByTestId('crud-row-archive').click()
      await waitForPath(page, '/archives')
      await detail
      await page.getByTestId('archive-title').getByText(station.name).waitFor()
      await page.getByTestId('archive-station-list').locator(`[data-id="${story.id}"]`).waitFor()
      await page.getByTestId('archive-basic').getByText('东城区').waitFor()
      await page.waitForFunction(
        () => document.querySelectorAll('[data-testid="archive-basic"] img').length === 2,
      )
      await page.waitForTimeout(500)
      await shot('archive-basic.png')
      noRefusedCalls()
      // At 1440 px the details' labels stay on one line (they went one character per line) and
      // the station's name in the list is whole.
      const size = page.viewportSize()
      await page.setViewportSize({ width: 1440, height: 900 })
      try {
        await page.waitForTimeout(300)
        const labels = await page.evaluate(() =>
          [
            ...document.querySelectorAll(
              '[data-testid="archive-basic-info"] .ant-descriptions-item-label',
            ),
          ].map((el) => {
            // One rectangle per line of the label's text.
            const range = document.createRange()
            range.selectNodeContents(el)
            const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)))
            return { text: el.textContent, lines: tops.size }
          }),
        )
        assert(labels.length > 5, `${labels.length} labels`)
        const wrapped = labels.filter((l) => l.lines > 1)
        assert(wrapped.length === 0, `labels on more than one line: ${JSON.stringify(wrapped)}`)
        const listed = await page
          .getByTestId('archive-station-list')
          .locator(`[data-id="${story.id}"] [data-testid="archive-station-name"]`)
          .textContent()
        assert(listed === station.name, `the list names it "${listed}"`)
      } finally {
        if (size) await page.setViewportSize(size)
      }
    })

    await check('in the archive, an inverter and a meter are added to the station', async () => {
      await archiveTab('设备').click()
      const deviceTabs = page.getByTestId('archive-device-tabs')
      // What each device form needs (B's forms): text and number fields by value, selects by label.
      const devices = [
        {
          tab: '逆变器',
          path: '/inverter',
          sn: inverterSn,
          fields: { name: `e2e逆变器${stamp}`, sn: inverterSn, stringsCount: '8', unitId: '1' },
          selects: {},
        },
        {
          tab: '电表',
          path: '/meter',
          sn: meterSn,
          fields: { name: `e2e电表${stamp}`, sn: meterSn, ctRatio: '1', ptRatio: '1', unitId: '2' },
          selects: { meterRole: '并网表' },
        },
      ]
      for (const { tab, path, sn, fields, selects } of devices) {
        await deviceTabs.getByRole('tab', { name: tab, exact: true }).click()
        await visible('crud-add').click()
        await crudDialog().waitFor()
        for (const [name, value] of Object.entries(fields)) {
          const field = crudDialog().getByTestId(`field-${name}`)
          if ((await field.count()) === 0) continue
          const tag = await field.evaluate((el) => el.tagName)
          await (
            tag === 'INPUT' || tag === 'TEXTAREA' ? field : field.locator('input').first()
          ).fill(value)
        }
        for (const [name, label] of Object.entries(selects)) {
          await crudDialog().getByTestId(`field-${name}`).click()
          // The newest dropdown is the last in the page; one just closed may still be fading.
          await page
            .locator('.ant-select-dropdown:visible .ant-select-item-option')
            .filter({ hasText: label })
            .last()
            .click()
        }
        const create = page.waitForResponse(
          (r) => new URL(r.url()).pathname === `/api${path}` && r.request().method() === 'POST',
        )
        await crudDialog().getByTestId('crud-submit').click()
        const body = await (await create).json()
        assert(body.code === 200, `POST /api${path}: ${JSON.stringify(body)}`)
        await toast('新增成功').waitFor()
        await crudDialog().waitFor({ state: 'hidden' })
        await visible('crud-table')
          .locator('tbody tr.ant-table-row')
          .filter({ hasText: sn })
          .waitFor()
      }
      await shot('archive-devices.png')
      noRefusedCalls()
    })

    await check(
      'a peak/valley schedule with two segments is saved; an overlap is refused',
      async () => {
        await archiveTab('电价').click()
        const editor = visible('price-type')
        await editor.waitFor()
        await editor.getByText('峰谷电价').click()
        if ((await page.getByTestId('price-date-0').count()) === 0) {
          await page.getByTestId('price-date-add').click()
        }
        await page.getByTestId('price-date-0').waitFor()
        while (
          (await page.locator('[data-testid^="price-seg-0-"][data-testid$="-start"]').count()) < 2
        ) {
          await page.getByTestId('price-seg-add-0').click()
        }
        const inputOf = async (testId) => {
          const field = page.getByTestId(testId)
          const tag = await field.evaluate((el) => el.tagName)
          return tag === 'INPUT' ? field : field.locator('input').first()
        }
        const fill = async (testId, value) => {
          const input = await inputOf(testId)
          await input.fill(value)
          await input.press('Tab')
        }
        const choose = async (testId, label) => {
          await page.getByTestId(testId).click()
          // The newest dropdown is the last in the page; the previous segment's may still be
          // fading out (two visible lists).
          await page
            .locator('.ant-select-dropdown:visible .ant-select-item-option')
            .filter({ hasText: new RegExp(`^${label}$`) })
            .last()
            .click()
        }
        const picker = await inputOf('price-date-0-picker')
        await picker.click()
        await picker.fill('2026-01-01')
        await picker.press('Enter')
        // Peak 00:00–14:00 and valley 12:00–24:00 overlap.
        await fill('price-seg-0-0-start', '00:00')
        await fill('price-seg-0-0-end', '14:00')
        await choose('price-seg-0-0-type', '峰')
        await fill('price-seg-0-0-price', '1.2')
        await fill('price-seg-0-1-start', '12:00')
        await fill('price-seg-0-1-end', '24:00')
        await choose('price-seg-0-1-type', '谷')
        await fill('price-seg-0-1-price', '0.4')
        let saves = 0
        const countSaves = (r) => {
          if (new URL(r.url()).pathname === '/api/electricPrice' && r.method() === 'PUT') saves++
        }
        page.on('request', countSaves)
        await page.getByTestId('price-save').click()
        await page
          .getByText(/时段重叠/)
          .first()
          .waitFor()
        await page.waitForTimeout(300)
        page.off('request', countSaves)
        assert(saves === 0, 'an overlapping schedule was sent')
        // Fixed: the peak ends where the valley starts.
        await fill('price-seg-0-0-end', '12:00')
        const save = page.waitForResponse(
          (r) =>
            new URL(r.url()).pathname === '/api/electricPrice' && r.request().method() === 'PUT',
        )
        await page.getByTestId('price-save').click()
        const body = await (await save).json()
        assert(body.code === 200, `PUT /api/electricPrice: ${JSON.stringify(body)}`)
        const sent = JSON.parse((await save).request().postData() ?? '{}')
        assert(
          JSON.stringify(sent).includes('12:00'),
          `schedule sent: ${JSON.stringify(sent).slice(0, 300)}`,
        )
        await shot('archive-prices.png')
        noRefusedCalls()
      },
    )

    await check('switching the station to running shows the spec message', async () => {
      await archiveTab('基本信息').click()
      await page.getByTestId('archive-switch').click()
      const call = nextCall(`/station/switchStation/${story.id}`)
      await page.getByTestId('station-switch-ok').click()
      const body = await (await call).json()
      assert(body.code === 200, `switchStation: ${JSON.stringify(body)}`)
      await okMessage('调试完成后电站变为运行状态').waitFor()
      await page
        .getByTestId('archive-detail')
        .locator('[data-testid="installation-status"][data-status="2"]')
        .first()
        .waitFor()
      assert((await page.getByTestId('archive-switch').count()) === 0, 'switch still offered')
      noRefusedCalls()
    })

    await check(
      'gateway: credentials issued once (password shown once), config names the gateway and the inverter',
      async () => {
        await archiveTab('网关').click()
        await page.getByTestId('gateway-id').getByText(station.gatewayId).waitFor()
        await page.locator('[data-testid="gateway-status"][data-issued="false"]').waitFor()
        const issue = nextCall('/station/gateway/credentials')
        await page.getByTestId('gateway-issue').click()
        const issued = await (await issue).json()
        assert(issued.code === 200, `credentials: ${JSON.stringify(issued)}`)
        const dialog = page.locator('.gateway-password-dialog .ant-modal')
        await dialog.waitFor()
        const password = await dialog.getByTestId('gateway-password').inputValue()
        assert(
          password === issued.data.password && password.length >= 24,
          `password shown: "${password}"`,
        )
        await dialog
          .getByTestId('gateway-password-notice')
          .getByText(/只显示这一次/)
          .waitFor()
        await page.waitForTimeout(1000) // the dialog's opening animation (slow machines)
        await shot('archive-gateway-password.png')
        await dialog.getByTestId('gateway-password-close').click()
        await dialog.waitFor({ state: 'hidden' })
        await page.locator('[data-testid="gateway-status"][data-issued="true"]').waitFor()
        const html = await page.content()
        assert(!html.includes(password), 'the password is still in the page after closing')
        const info = await page.evaluate(async (id) => {
          const raw = localStorage.getItem('pv-token')
          const token = raw ? JSON.parse(raw).content : ''
          const res = await fetch(`/api/station/gateway?stationId=${id}`, {
            headers: {
              Authorization: `Basic ${btoa('saber:saber_secret')}`,
              'Blade-Auth': `bearer ${token}`,
            },
          })
          return res.text()
        }, story.id)
        assert(!info.includes(password), 'GET /api/station/gateway answers the password')

        const [download] = await Promise.all([
          page.waitForEvent('download', { timeout }),
          page.getByTestId('gateway-config').click(),
        ])
        const path = await download.path()
        const config = readFileSync(path, 'utf8')
        assert(
          download.suggestedFilename().endsWith('.toml'),
          `file: ${download.suggestedFilename()}`,
        )
        assert(config.includes(station.gatewayId), 'the config does not name the gateway id')
        assert(config.includes(inverterSn), `the config does not name the inverter ${inverterSn}`)
        assert(!config.includes(password), 'the config holds the password')
        await shot('archive-gateway.png')
        noRefusedCalls()
      },
    )

    await check(
      'Excel: template and export download; a bad import shows the server message',
      async () => {
        await page.goto(`${baseUrl}/station/station`)
        await page.getByTestId('station-page').waitFor()
        await page.getByTestId('search-name').fill(station.name)
        const filtered = nextCall('/station/page', `name=${station.name}`)
        await page.getByTestId('crud-search').click()
        await filtered
        const [exported] = await Promise.all([
          page.waitForEvent('download', { timeout }),
          page.getByTestId('crud-action-export').click(),
        ])
        const exportedPath = await exported.path()
        assert(statSync(exportedPath).size > 0, 'empty export')
        assert(
          decodeURIComponent(new URL(exported.url()).search).includes(`name=${station.name}`) ||
            exported.suggestedFilename().endsWith('.xlsx'),
          `export: ${exported.suggestedFilename()}`,
        )

        await page.getByTestId('crud-action-import').click()
        const dialog = page.locator('.station-import-dialog .ant-modal')
        await dialog.waitFor()
        const [template] = await Promise.all([
          page.waitForEvent('download', { timeout }),
          dialog.getByTestId('import-template').click(),
        ])
        const templatePath = await template.path()
        assert(statSync(templatePath).size > 0, 'empty template')
        // The template itself has no rows: refused, nothing imported.
        expected.add('/api/station/import')
        const bad = join(files, 'empty.xlsx')
        writeFileSync(bad, readFileSync(templatePath))
        const imported = nextCall('/station/import')
        await dialog.locator('input[type="file"]').setInputFiles([bad])
        const body = await (await imported).json()
        assert(body.code === 400, `import of an empty template: ${JSON.stringify(body)}`)
        await dialog.getByTestId('import-failure').getByText(body.msg).waitFor()
        await shot('station-import-refused.png')
        await dialog.getByTestId('import-close').click()
        expected.delete('/api/station/import')
        noRefusedCalls()
      },
    )

    await check('the assignment screen lists users with their stations', async () => {
      // From a page of this story's own (not the home map, which other work is changing).
      await page.goto(`${baseUrl}/station/station`)
      await page.getByTestId('station-page').waitFor()
      const list = nextCall('/station/pageAssignment')
      await openMenu(['综合管理'], '电站分配', '/integrated/stationAssignment')
      const body = await (await list).json()
      assert(body.code === 200, `pageAssignment: ${JSON.stringify(body).slice(0, 200)}`)
      await page.getByTestId('assignment-page').waitFor()
      const first = body.data.records[0]
      assert(first, 'no users listed')
      const row = crudRows().filter({ hasText: first.account }).first()
      await row.getByTestId('crud-row-assign').click()
      const dialog = page.locator('.assignment-dialog .ant-modal')
      await dialog.waitFor()
      await dialog.getByText(station.name).first().click()
      await dialog.locator('.ant-transfer-actions button').first().click()
      const save = nextCall('/station/updateUserStation')
      await dialog.getByTestId('crud-submit').click()
      const saved = await (await save).json()
      assert(saved.code === 200, `updateUserStation: ${JSON.stringify(saved)}`)
      await row.getByText(station.name).waitFor()
      await shot('station-assignment.png')
      noRefusedCalls()
    })

    await check(
      'deleting a station with devices asks twice, the second time with the server message',
      async () => {
        await page.goto(`${baseUrl}/station/station`)
        await page.getByTestId('search-name').fill(station.name)
        const filtered = nextCall('/station/page', `name=${station.name}`)
        await page.getByTestId('crud-search').click()
        await filtered
        const row = crudRows().filter({ hasText: station.name })
        await row.getByTestId('crud-row-delete').click()
        expected.add(`/api/station/${story.id}`)
        const first = nextCall(`/station/${story.id}`)
        await page.getByTestId('crud-delete-ok').click()
        const refused = await (await first).json()
        assert(refused.code === 400, `first delete: ${JSON.stringify(refused)}`)
        const cascade = page.locator('.ant-modal-confirm').filter({ hasText: refused.msg })
        await cascade.waitFor()
        await cascade.getByText(/设备、电价设置和网关凭证/).waitFor()
        await shot('station-delete-cascade.png')
        const second = nextCall(`/station/${story.id}`, 'confirm=true')
        await page.getByTestId('station-delete-cascade-ok').click()
        const done = await (await second).json()
        assert(done.code === 200, `confirmed delete: ${JSON.stringify(done)}`)
        await toast('删除成功').waitFor()
        await row.waitFor({ state: 'detached' })
        expected.delete(`/api/station/${story.id}`)
        noRefusedCalls()
      },
    )
  } finally {
    page.off('response', onResponse)
    rmSync(files, { recursive: true, force: true })
  }
}
