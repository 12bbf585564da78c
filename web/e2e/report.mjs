/**
 * Reports end to end: a station with an inverter, a grid meter and a weather station simulated
 * over Modbus TCP (`pv-edge simulate --spec`, realistic physics around the simulated solar noon),
 * a real edge agent publishing to the hub, a peak/valley tariff; once the first 5-minute rollups
 * are closed, each report page must show the numbers the API answers for the same query, and its
 * Export button must download a workbook whose header row is human-readable.
 *
 * The station's clock is set half an hour off the hub's whole hours, so even the day reports read
 * 5-minute rollups (hourly ones would need an hour to close), and at 11:00-ish local time.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import readExcelFile from 'read-excel-file/node'
import { offsetForLocalHour, simulatorNoonOffset } from './dispersion.mjs'
import { writeAgentFiles } from './agent-config.mjs'

const repo = resolve(import.meta.dirname, '..', '..')
// The agent the Rust layer builds; PV_EDGE points elsewhere (a shared target directory).
const edgeBinary = process.env.PV_EDGE || join(repo, 'target', 'debug', 'pv-edge')
const maps = join(repo, 'firmware-configs')

const freePort = () =>
  new Promise((ok, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => ok(port))
    })
  })

const apiOf = (baseUrl, storedToken) => async (method, path, body) => {
  const token = await storedToken()
  const r = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      'Blade-Auth': `bearer ${token}`,
      'Content-Type': 'application/json',
      'Accept-Language': 'zh-CN',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await r.text()
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`)
  return path.includes('/gateway/config') ? text : JSON.parse(text)
}

/** What the console shows for a figure: "—" for no data, else the number with `digits`. */
const shown = (v, digits) => (v === null || v === undefined ? '—' : v.toFixed(digits))

/** Minutes east of UTC near local 11:00 whose difference from the hub's clock is not whole hours. */
function stationOffset(now) {
  const hubEast = -new Date(now).getTimezoneOffset()
  let offset = offsetForLocalHour(now, 11)
  if ((((offset - hubEast) % 60) + 60) % 60 === 0) offset += 30
  return offset
}

/**
 * Starts the report station (inverter, grid meter, weather station behind a real simulator and
 * edge agent) early in the run: its first closed 5-minute rollup then comes while other groups
 * run instead of being waited for. [`reportChecks`] checks it and stops it.
 */
export async function startReportSite(t) {
  const { check, assert, signIn, storedToken, baseUrl } = t
  const api = apiOf(baseUrl, storedToken)
  const stamp = Date.now().toString(36)
  const dir = mkdtempSync(join(tmpdir(), 'pv-e2e-report-'))
  const children = []
  const ids = { station: '', inverter: '', started: 0 }
  const longitude = 116.4
  await check(
    'a station with inverter, grid meter and weather station starts feeding',
    async () => {
      assert(existsSync(edgeBinary), `${edgeBinary} missing (cargo build -p pv-edge, or PV_EDGE)`)
      if (!(await storedToken().catch(() => null))) await signIn('admin', 'admin')
      const port = await freePort()
      const now = Date.now()
      ids.station = (
        await api('POST', '/api/station', {
          name: `报表电站${stamp}`,
          gatewayId: `gw-report-${stamp}`,
          latitude: 39.9,
          longitude,
          utcOffsetMinutes: stationOffset(now),
          componentCapacity: 50,
          componentCount: 100,
          capacity: 50,
          connectedType: '2',
          contributionWay: '1',
          feedInTariff: 0.39,
        })
      ).data
      const device = (path, body) =>
        api('POST', path, {
          stationId: ids.station,
          gatewayId: `gw-report-${stamp}`,
          modbusAddress: `tcp://127.0.0.1:${port}`,
          ...body,
        })
      await device('/api/inverter', {
        name: 'INV-R1',
        sn: `REPINV${stamp}`.toUpperCase(),
        mapModel: 'sungrow-sg-cx',
        unitId: 1,
        stringsCount: 12,
        ratedPower: 50,
        deviceType: '1',
      })
      await device('/api/meter', {
        name: 'GRID-R1',
        sn: `REPMTR${stamp}`.toUpperCase(),
        mapModel: 'sunspec-meter',
        unitId: 2,
        meterRole: '1',
        ctRatio: 1,
        ptRatio: 1,
      })
      await device('/api/weather', {
        name: 'MET-R1',
        sn: `REPMET${stamp}`.toUpperCase(),
        mapModel: 'sunspec-met-station',
        unitId: 3,
      })
      const segments = [
        { startTime: '00:00', endTime: '08:00', type: '4', price: 0.3 },
        { startTime: '08:00', endTime: '22:00', type: '2', price: 1.0 },
        { startTime: '22:00', endTime: '24:00', type: '4', price: 0.3 },
      ]
      await api('PUT', '/api/electricPrice', {
        stationId: ids.station,
        priceType: '2',
        schedules: [{ effectiveDate: '2020-01-01', segments }],
      })
      writeFileSync(
        join(dir, 'simulator.toml'),
        [
          `maps_dir = ${JSON.stringify(maps)}`,
          '[site]',
          'latitude = 39.9',
          `longitude = ${longitude}`,
          'tilt = 20.0',
          'azimuth = 180.0',
          `clock_offset_h = ${simulatorNoonOffset(now, longitude)}.0`,
          'cloudiness = 0.0',
          '[[bus]]',
          `tcp = "127.0.0.1:${port}"`,
          'capacity_kw = 50.0',
          '[[bus.device]]',
          'unit = 1',
          'map = "sungrow-sg-cx"',
          '[[bus.device]]',
          'unit = 2',
          'map = "sunspec-meter"',
          '[[bus.device]]',
          'unit = 3',
          'map = "sunspec-met-station"',
          '',
        ].join('\n'),
      )
      const issued = await api(
        'POST',
        `/api/station/gateway/credentials?stationId=${ids.station}`,
        {},
      )
      writeAgentFiles(
        dir,
        await api('GET', `/api/station/gateway/config?stationId=${ids.station}`),
        issued.data.password,
        maps,
      )
      children.push(
        spawn(edgeBinary, ['simulate', '--spec', join(dir, 'simulator.toml')], {
          stdio: 'ignore',
        }),
      )
      children.push(
        spawn(edgeBinary, ['run', '--config', join(dir, 'pv-edge.toml')], { stdio: 'ignore' }),
      )
      ids.started = Date.now()
    },
  )
  return { stamp, dir, children, ids }
}

export async function reportChecks(t, site) {
  const { page, baseUrl, screenshotDir, check, assert, timeout, storedToken } = t
  const { stamp, dir, children, ids } = site
  const api = apiOf(baseUrl, storedToken)
  const get = async (path) => (await api('GET', path)).data

  /** Opens a report page of the station and waits for its figures. */
  async function openReport(menuPath, testId, query = `?stationId=${ids.station}`) {
    await page.goto(`${baseUrl}${menuPath}${query}`)
    await page.getByTestId(testId).waitFor({ timeout })
  }

  const text = async (testId) =>
    ((await page.getByTestId(testId).first().textContent()) ?? '').trim()

  async function expectText(testId, expected, what) {
    const deadline = Date.now() + timeout
    let got = ''
    while (Date.now() < deadline) {
      got = await text(testId).catch(() => '')
      if (got === expected) return
      await page.waitForTimeout(200)
    }
    throw new Error(`${what}: page shows "${got}", the API answers "${expected}"`)
  }

  /** Clicks Export and reads the workbook back: its first sheet's header row. */
  async function exportHeader(testId, expectedPath) {
    const button = page.getByTestId(testId)
    await button.waitFor({ timeout })
    const asked = page.waitForRequest((r) => new URL(r.url()).pathname === expectedPath)
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()])
    const request = await asked
    const file = join(dir, download.suggestedFilename() || 'report.xlsx')
    await download.saveAs(file)
    assert(file.endsWith('.xlsx'), `downloaded ${file}`)
    const sheets = await readExcelFile(file)
    const header = (sheets[0]?.data?.[0] ?? []).map((c) => String(c ?? ''))
    assert(header.length > 1, `header row: ${JSON.stringify(header)}`)
    // Human labels: no wire names (camelCase) and units in the headers.
    assert(
      !header.some((h) => /^[a-z]+[A-Z][A-Za-z]*$/.test(h)),
      `wire names in the header: ${header.join(' | ')}`,
    )
    assert(
      header.some((h) => /\(.+\)/.test(h)),
      `no unit in the header: ${header.join(' | ')}`,
    )
    return { header, query: new URL(request.url()).searchParams, sheets }
  }

  /**
   * The page at 390×844: the report (pickers, cards, charts, tables) fits the phone's width, its
   * tables scrolling sideways inside themselves. (The console's top bar is the shell's, not the
   * page's, so the report's own box is what is measured.)
   */
  async function phoneShot(name, testId) {
    const before = page.viewportSize()
    await page.setViewportSize({ width: 390, height: 844 })
    await page.waitForTimeout(800) // the charts resize to the new width
    const box = await page.getByTestId(testId).evaluate((el) => {
      const r = el.getBoundingClientRect()
      const charts = [...el.querySelectorAll('canvas')].map((c) => c.getBoundingClientRect().right)
      return {
        right: r.right,
        width: window.innerWidth,
        charts,
        height: document.body.scrollHeight,
      }
    })
    await page.screenshot({
      path: join(screenshotDir, `${name}-phone.png`),
      clip: { x: 0, y: 0, width: 390, height: Math.max(844, box.height) },
      fullPage: true,
    })
    await page.setViewportSize(before ?? { width: 1280, height: 800 })
    assert(box.right <= box.width + 1, `the report is ${box.right}px wide on a 390px phone`)
    assert(
      box.charts.every((right) => right <= box.width + 1),
      `a chart did not shrink to the phone: right edges ${box.charts.join(', ')}`,
    )
  }

  try {
    await check(
      'closed 5-minute rollups give the day report generation, meter and irradiance',
      async () => {
        assert(ids.started > 0, 'the site did not start')
        const deadline = ids.started + 8 * 60_000
        for (;;) {
          const gen = await get(`/api/report/station/electricity?stationId=${ids.station}&type=day`)
          const irr = await get(`/api/report/irradiance/list?stationId=${ids.station}&type=day`)
          const met = await get(`/api/meterReport/reportDaily?stationId=${ids.station}`)
          const meterHas = met.meters.some((m) =>
            m.points.some((p) => p.energyExport?.endReading != null),
          )
          if (gen.total.energyKwh !== null && irr.total.poaKwhM2 !== null && meterHas) break
          assert(
            Date.now() < deadline,
            `no figures after 8 min: energy ${gen.total.energyKwh}, POA ${irr.total.poaKwhM2}, meter ${meterHas}`,
          )
          await page.waitForTimeout(5000)
        }
        const inverters = (await get(`/api/inverter/page?stationId=${ids.station}&size=10`)).records
        ids.inverter = String(inverters[0].id)
      },
    )

    await check(
      'station generation shows the API figures, which PR, and exports the same query',
      async () => {
        const q = `stationId=${ids.station}&type=day`
        const gen = await get(`/api/report/station/electricity?${q}`)
        const rate = await get(`/api/report/station/electricity/rate?${q}`)
        await openReport('/report/stationElectricity', 'report-station-total-energy')
        await expectText(
          'report-station-total-energy',
          shown(gen.total.energyKwh, 3),
          'total energy',
        )
        await expectText('report-station-total-hours', shown(gen.total.equivalentHours, 2), 'hours')
        await expectText(
          'report-station-table-total-energy',
          shown(gen.total.energyKwh, 3),
          'table total',
        )
        await expectText(
          'report-station-table-total-export',
          shown(gen.total.exportKwh, 3),
          'export',
        )
        await expectText('report-station-title', gen.title, 'period')
        const pr = await text('report-station-total-pr')
        const expected = rate.total.pr === null ? '—' : (rate.total.pr * 100).toFixed(1)
        assert(
          pr === expected || Math.abs(Number(pr) - Number(expected)) <= 0.051,
          `PR shows ${pr}, API ${expected}`,
        )
        const kind = await text('report-station-pr-kind')
        assert(kind.includes(rate.prKind), `PR kind not stated: ${kind}`)
        assert(
          kind.includes(rate.planeOfArray ? '组件平面' : '水平面'),
          `plane of array (${rate.planeOfArray}) not stated: ${kind}`,
        )
        // Every slot of the table matches the API (no data as "—").
        for (const p of gen.points) {
          const row = page.locator(`[data-testid="report-station-table"] tr[data-row="${p.label}"]`)
          const cells = await row.locator('td').allTextContents()
          assert(
            cells[1] === shown(p.energyKwh, 3),
            `${p.label}: table ${cells[1]}, API ${p.energyKwh}`,
          )
        }
        await page.waitForTimeout(1000)
        await page.screenshot({ path: join(screenshotDir, 'report-station.png'), fullPage: true })
        const { header, query } = await exportHeader(
          'report-station-export',
          '/api/report/station/electricity/export',
        )
        assert(query.get('stationId') === ids.station, `export station ${query.get('stationId')}`)
        assert(query.get('type') === 'day' && query.get('date') === gen.title, `export ${query}`)
        assert(
          header.some((h) => h.includes('kWh')),
          `header ${header.join(' | ')}`,
        )
        await phoneShot('report-station', 'report-station')
      },
    )

    await check('switching the period asks for the station calendar dates as typed', async () => {
      const day = (await get(`/api/report/station/electricity?stationId=${ids.station}&type=day`))
        .title
      await openReport('/report/stationElectricity', 'report-station-total-energy')
      await expectText('report-station-title', day, 'period')
      /** Picks a period type; resolves with the params of the report call it makes. */
      const pick = async (label, type) => {
        const asked = page.waitForRequest((r) => {
          const u = new URL(r.url())
          return (
            u.pathname === '/api/report/station/electricity' && u.searchParams.get('type') === type
          )
        })
        await page.getByTestId('report-station-period-type').click()
        await page.locator('.ant-select-dropdown:visible').getByText(label, { exact: true }).click()
        return new URL((await asked).url()).searchParams
      }
      const range = await pick('时间段', 'range')
      // The month up to the day on screen, as calendar strings (no time zone in between).
      assert(
        range.get('start') === `${day.slice(0, 8)}01` && range.get('end') === day,
        `range asked ${range}`,
      )
      const byRange = await get(`/api/report/station/electricity?${range}`)
      await expectText('report-station-title', byRange.title, 'range title')
      await expectText(
        'report-station-total-energy',
        shown(byRange.total.energyKwh, 3),
        'range energy',
      )
      const year = await pick('年', 'year')
      assert(year.get('date') === day.slice(0, 4), `year asked ${year}`)
      const byYear = await get(`/api/report/station/electricity?${year}`)
      await expectText(
        'report-station-table-total-energy',
        shown(byYear.total.energyKwh, 3),
        'year energy',
      )
      const month = byYear.points.find((p) => p.label === day.slice(0, 7))
      const row = page.locator(`[data-testid="report-station-table"] tr[data-row="${month.label}"]`)
      const cells = await row.locator('td').allTextContents()
      assert(
        cells[1] === shown(month.energyKwh, 3),
        `${month.label}: ${cells[1]} vs ${month.energyKwh}`,
      )
    })

    await check('inverter generation shows each inverter as the API does', async () => {
      const list = await get(
        `/api/report/inverter/multiple/electricity?stationId=${ids.station}&type=day`,
      )
      await openReport('/report/inverterElectricity', 'report-inverter-summary-total-energy')
      const total = list.reduce(
        (a, i) => (i.total.energyKwh === null ? a : (a ?? 0) + i.total.energyKwh),
        null,
      )
      await expectText('report-inverter-summary-total-energy', shown(total, 3), 'inverters total')
      const row = page.locator(
        `[data-testid="report-inverter-summary"] tr[data-row="${list[0].inverterId}"]`,
      )
      const cells = await row.locator('td').allTextContents()
      assert(cells[2] === shown(list[0].total.energyKwh, 3), `row ${cells.join(' | ')}`)
      assert(cells[4] === shown(list[0].total.sharePct, 2), `share ${cells.join(' | ')}`)
      await page.screenshot({ path: join(screenshotDir, 'report-inverter.png'), fullPage: true })
      await exportHeader(
        'report-inverter-export',
        '/api/report/inverter/multiple/electricity/export',
      )
      await phoneShot('report-inverter', 'report-inverter')
    })

    await check('irradiance shows the weather station figures as the API does', async () => {
      const irr = await get(`/api/report/irradiance/list?stationId=${ids.station}&type=day`)
      await openReport('/report/irradiance', 'report-irradiance-total-poa')
      await expectText('report-irradiance-total-poa', shown(irr.total.poaKwhM2, 3), 'POA')
      await expectText('report-irradiance-total-peak', shown(irr.total.peakIrradiance, 1), 'peak')
      await expectText(
        'report-irradiance-table-total-temp',
        shown(irr.total.ambientTemperature, 1),
        'temperature',
      )
      await page.screenshot({ path: join(screenshotDir, 'report-irradiance.png'), fullPage: true })
      await exportHeader('report-irradiance-export', '/api/report/irradiance/list/export')
      await phoneShot('report-irradiance', 'report-irradiance')
    })

    await check('the meter report shows the grid meter counters as the API does', async () => {
      // Compared with the page's own answer: the site's live meter can tick between two calls
      // (CI saw 5003.49 on the page against 5003.48 from a call made just before).
      const answered = page.waitForResponse(
        (r) => new URL(r.url()).pathname === '/api/meterReport/reportDaily',
        { timeout },
      )
      await openReport('/report/meterReport', 'report-meter-table')
      const met = (await (await answered).json()).data
      const grid = met.meters.find((m) => m.meterRole === '1') ?? met.meters[0]
      for (const c of ['energyImport', 'energyExport']) {
        if (!grid.total[c]) continue
        await expectText(`report-meter-table-total-${c}-energy`, shown(grid.total[c].energy, 3), c)
        await expectText(
          `report-meter-table-total-${c}-end`,
          shown(grid.total[c].endReading, 2),
          `${c} end`,
        )
      }
      await page.screenshot({ path: join(screenshotDir, 'report-meter.png'), fullPage: true })
      await exportHeader('report-meter-export', '/api/meterReport/reportDaily/export')
      await phoneShot('report-meter', 'report-meter')
    })

    await check(
      'the bill shows the API amounts by segment, and the settings form shows refusals',
      async () => {
        const q = `stationId=${ids.station}&type=month`
        const bill = await get(`/api/stationMeterReport/electricityBillSettlement?${q}`)
        await openReport('/report/electricityBill', 'report-bill-total-amount')
        await expectText('report-bill-total-amount', shown(bill.total.amount, 2), 'amount')
        await expectText(
          'report-bill-table-total-generation',
          shown(bill.total.generationKwh, 3),
          'generation',
        )
        await expectText(
          'report-bill-table-total-exportedAmount',
          shown(bill.total.exportedAmount, 2),
          'export value',
        )
        if (bill.unpricedDays.length > 0) {
          const warning = await text('report-bill-unpriced')
          assert(warning.includes(bill.unpricedDays[0]), `unpriced days not named: ${warning}`)
        }
        await page.waitForTimeout(1000)
        await page.screenshot({ path: join(screenshotDir, 'report-bill.png'), fullPage: true })
        await exportHeader(
          'report-bill-export',
          '/api/stationMeterReport/electricityBillSettlement/export',
        )
        await phoneShot('report-bill', 'report-bill')
        await page.getByTestId('report-bill-setting').click()
        const currency = page.getByTestId('report-setting-currency')
        await currency.waitFor()
        await page.waitForFunction(
          () => document.querySelector('[data-testid="report-setting-currency"]')?.value !== '',
        )
        await page.getByTestId('report-setting-temperatureCoefficientPct').fill('5')
        await page.getByTestId('report-setting-save').click()
        const refused = page.getByTestId('report-setting-error')
        await refused.waitFor({ timeout })
        const message = (await refused.textContent()) ?? ''
        assert(message.includes('温度系数'), `the hub's message is not shown: ${message}`)
        await page.screenshot({ path: join(screenshotDir, 'report-bill-setting.png') })
        await page.keyboard.press('Escape')
      },
    )

    await check('energy conservation shows the API savings and the coefficients used', async () => {
      const q = `stationIds=${ids.station}&type=year`
      const saving = await get(`/api/stationMeterReport/energyConservation?${q}`)
      const all = await get(`/api/stationMeterReport/energyConservation?type=year`)
      await openReport('/report/energyConservation', 'report-saving-total-co2T', '')
      await expectText('report-saving-total-co2T', shown(all.total.co2T, 3), 'CO2 of all stations')
      await expectText(
        'report-saving-coef-co2KgPerKwh',
        String(all.factors.co2KgPerKwh),
        'coefficient',
      )
      // One station picked: its figures.
      await page.getByTestId('report-saving-stations').click()
      await page.locator('.ant-select-dropdown').getByText(`报表电站${stamp}`).click()
      await page.keyboard.press('Escape')
      await expectText(
        'report-saving-total-energyKwh',
        shown(saving.total.energyKwh, 3),
        'energy of the station',
      )
      await page.screenshot({ path: join(screenshotDir, 'report-saving.png'), fullPage: true })
      const { query } = await exportHeader(
        'report-saving-export',
        '/api/stationMeterReport/energyConservation/export',
      )
      assert(query.get('stationIds') === ids.station, `export stations ${query.get('stationIds')}`)
      await phoneShot('report-saving', 'report-saving')
    })

    await check(
      'report files: generate a station month, list it, download a valid workbook',
      async () => {
        await page.goto(`${baseUrl}/tool/report`)
        await page.getByTestId('report-file-table').waitFor({ timeout })
        await page.getByTestId('report-file-station').click()
        await page.locator('.ant-select-dropdown').getByText(`报表电站${stamp}`).click()
        await page.keyboard.press('Escape')
        const generated = page.waitForResponse(
          (r) => new URL(r.url()).pathname === '/api/blade-report/report/rest/generate',
        )
        await page.getByTestId('report-file-generate').click()
        const made = (await (await generated).json()).data
        assert(made?.id && made.stationId === ids.station, `generated ${JSON.stringify(made)}`)
        // The list as the API answers it has the file, and the page shows it.
        const listed = await get(
          `/api/blade-report/report/rest/list?current=1&size=10&stationId=${ids.station}`,
        )
        const file = listed.records.find((f) => f.id === made.id)
        assert(file, `the API lists ${made.id}: ${JSON.stringify(listed.records)}`)
        const row = page.getByTestId(`report-file-download-${made.id}`)
        await row.waitFor({ timeout })
        const tr = page.locator('tr', { has: row })
        const rowText = (await tr.textContent()) ?? ''
        for (const part of [file.stationName, file.period, file.name, file.createTime]) {
          assert(rowText.includes(part), `the row shows ${part}: ${rowText}`)
        }
        await page.screenshot({ path: join(screenshotDir, 'report-files.png'), fullPage: true })
        const [download] = await Promise.all([page.waitForEvent('download'), row.click()])
        const saved = join(dir, download.suggestedFilename() || 'report-file.xlsx')
        await download.saveAs(saved)
        assert(saved.endsWith('.xlsx'), `downloaded ${saved}`)
        const size = statSync(saved).size
        assert(size === file.fileSize, `downloaded ${size} bytes, listed ${file.fileSize}`)
        const sheets = await readExcelFile(saved)
        assert(sheets.length >= 1, `sheets: ${sheets.length}`)
        const header = (sheets[0]?.data?.[0] ?? []).map((c) => String(c ?? ''))
        assert(
          header.some((h) => h.trim().length > 0),
          `first row of the monthly report: ${JSON.stringify(header)}`,
        )
      },
    )
  } finally {
    for (const c of children) c.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
}
