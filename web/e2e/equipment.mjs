/**
 * 设备总览 (`/equipment`) in the real console: the administrator opens it from the menu and sees
 * the devices of a station made for this group (an inverter and a meter, through the API) with
 * their station; none has reported in this hub, so both read 从未上报. Filtering by kind sends the
 * filter and lists only inverters; the Excel export downloads an .xlsx with as many rows as the
 * page's total under the same filter; a row's name opens the inverter's live page searched for its
 * SN; at 390×844 the page shows cards and nothing scrolls sideways.
 */
import { readFileSync } from 'node:fs'
import { inflateRawSync } from 'node:zlib'
import { join } from 'node:path'

/** The text of `name` inside a zip (an .xlsx), read through its central directory. */
export function zipEntry(bytes, name) {
  let end = bytes.length - 22
  while (end >= 0 && bytes.readUInt32LE(end) !== 0x06054b50) end--
  if (end < 0) throw new Error('not a zip: no end of central directory')
  const count = bytes.readUInt16LE(end + 10)
  let at = bytes.readUInt32LE(end + 16)
  for (let i = 0; i < count; i++) {
    if (bytes.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory')
    const method = bytes.readUInt16LE(at + 10)
    const size = bytes.readUInt32LE(at + 20)
    const nameLength = bytes.readUInt16LE(at + 28)
    const extra = bytes.readUInt16LE(at + 30)
    const comment = bytes.readUInt16LE(at + 32)
    const local = bytes.readUInt32LE(at + 42)
    const entry = bytes.toString('utf8', at + 46, at + 46 + nameLength)
    if (entry === name) {
      const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28)
      const data = bytes.subarray(start, start + size)
      return (method === 8 ? inflateRawSync(data) : data).toString('utf8')
    }
    at += 46 + nameLength + extra + comment
  }
  throw new Error(`${name} not in the zip`)
}

const apiOf = (baseUrl, token) => async (method, path, body) => {
  const r = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Basic ${btoa('saber:saber_secret')}`,
      'Blade-Auth': `bearer ${await token()}`,
      'Content-Type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = await r.json()
  if (json.code !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(json).slice(0, 300)}`)
  return json.data
}

export async function equipmentChecks(t) {
  const { page, baseUrl, screenshotDir, check, assert, waitForPath, signIn, storedToken, timeout } =
    t
  const { openMenu } = t
  const stamp = Date.now().toString(36).toUpperCase()
  const site = { name: `EQ站-${stamp}`, inverter: `EQ-INV-${stamp}`, meter: `EQ-MET-${stamp}` }
  const api = apiOf(baseUrl, storedToken)
  const pageAnswer = (match) =>
    page.waitForResponse((r) => {
      const u = new URL(r.url())
      return u.pathname === '/api/equipment/page' && match(u.searchParams)
    })

  await check(
    'equipment: the administrator opens 设备总览 from the menu and sees the devices',
    async () => {
      await signIn('admin', 'admin')
      const station = await api('POST', '/api/station', { name: site.name, stationType: '2' })
      await api('POST', '/api/inverter', {
        stationId: station,
        name: 'EQ-INV',
        sn: site.inverter,
        stringsCount: 1,
      })
      await api('POST', '/api/meter', {
        stationId: station,
        name: 'EQ-MET',
        sn: site.meter,
        meterRole: '1',
        ctRatio: 1,
        ptRatio: 1,
      })
      const first = pageAnswer(() => true)
      await openMenu(['总览'], '设备总览', '/equipment')
      await page.getByTestId('equipment-page').waitFor()
      const all = (await (await first).json()).data.total
      // The summary row counts what the list holds (whatever other groups left in this hub).
      const allCard = page.locator('[data-testid="equipment-summary-kind"][data-kind="all"]')
      await allCard.waitFor()
      const counted = Number(await allCard.getAttribute('data-total'))
      assert(counted === all, `the summary counts ${counted}, the list ${all}`)
      const searched = pageAnswer((q) => q.get('keyword') === stamp)
      await page.getByTestId('equipment-search-keyword').fill(stamp)
      await page.getByTestId('equipment-search').click()
      const body = await (await searched).json()
      assert(body.data.total === 2, `page: ${JSON.stringify(body.data).slice(0, 300)}`)
      const table = page.getByTestId('equipment-table')
      for (const sn of [site.inverter, site.meter]) {
        const row = table.locator(`tr[data-sn="${sn}"]`)
        await row.waitFor()
        const text = await row.textContent()
        assert(text.includes(site.name), `${sn} row lacks its station: ${text}`)
        const status = await row.getByTestId('equipment-status').getAttribute('data-value')
        assert(status === 'never', `${sn}: ${status} in a hub where it never reported`)
      }
      await page.screenshot({ path: join(screenshotDir, 'equipment.png') })
    },
  )

  await check(
    'equipment: a kind filter lists only that kind; the export holds the same rows',
    async () => {
      await page.getByTestId('equipment-search-keyword').fill('')
      await page.getByTestId('equipment-search-kind').click()
      const filtered = pageAnswer((q) => q.get('kind') === 'inverter' && !q.get('keyword'))
      await page.locator('.ant-select-item-option').filter({ hasText: '逆变器' }).click()
      await page.getByTestId('equipment-search').click()
      const body = await (await filtered).json()
      const total = body.data.total
      assert(total >= 1, `inverters: ${total}`)
      await page.locator(`tr[data-sn="${site.inverter}"]`).waitFor()
      const kinds = await page
        .getByTestId('equipment-table')
        .getByTestId('equipment-kind')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-value')))
      assert(kinds.length > 0 && kinds.every((k) => k === 'inverter'), `kinds shown: ${kinds}`)
      const asked = page.waitForRequest((r) => {
        const u = new URL(r.url())
        return u.pathname === '/api/equipment/export' && u.searchParams.get('kind') === 'inverter'
      })
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout }),
        page.getByTestId('equipment-export').click(),
      ])
      await asked
      assert(download.suggestedFilename().endsWith('.xlsx'), download.suggestedFilename())
      const book = readFileSync(await download.path())
      const sheet = zipEntry(book, 'xl/worksheets/sheet1.xml')
      const rows = (sheet.match(/<row /g) ?? []).length - 1
      assert(rows === total, `the workbook has ${rows} rows, the page ${total}`)
      const strings = zipEntry(book, 'xl/sharedStrings.xml')
      assert(strings.includes(site.inverter), 'the workbook lacks the inverter')
      assert(!strings.includes(site.meter), 'the workbook holds the meter, filtered out')
    },
  )

  await check("equipment: a row's name opens the device's live page", async () => {
    const row = page.locator(`tr[data-sn="${site.inverter}"]`)
    await row.getByTestId('equipment-live-link').click()
    await waitForPath(page, '/station/inverterReal')
    await page.getByTestId('inverter-real-page').waitFor()
    const url = new URL(page.url())
    assert(url.searchParams.get('keyword') === site.inverter, `opened ${page.url()}`)
    const searched = await page
      .locator(
        'input[data-testid="inverter-real-keyword"], [data-testid="inverter-real-keyword"] input',
      )
      .first()
      .inputValue()
    assert(searched === site.inverter, `the live page searches "${searched}"`)
  })

  await check(
    'equipment: at 390×844 the devices are cards and nothing scrolls sideways',
    async () => {
      await page.setViewportSize({ width: 390, height: 844 })
      try {
        await page.goto(`${baseUrl}/equipment`)
        await page.getByTestId('equipment-page').waitFor()
        await page.getByTestId('equipment-card').first().waitFor()
        await page.getByTestId('equipment-filters-toggle').waitFor()
        const m = await page.getByTestId('equipment-page').evaluate((el) => ({
          right: Math.round(el.getBoundingClientRect().right),
          own: el.scrollWidth - el.clientWidth,
          doc: document.documentElement.scrollWidth,
          width: window.innerWidth,
        }))
        assert(m.right <= m.width, `the page box ends at ${m.right} of ${m.width}`)
        assert(m.own <= 1, `the page's content overflows by ${m.own} px`)
        assert(m.doc <= m.width, `the document is ${m.doc} px wide at ${m.width}`)
        await page.screenshot({ path: join(screenshotDir, 'equipment-phone.png'), fullPage: true })
      } finally {
        await page.setViewportSize({ width: 1280, height: 800 })
      }
    },
  )
}
