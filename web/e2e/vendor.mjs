/**
 * Vendor clouds in the browser (issue 30): a FusionSolar account is added on 第三方逆变器 with the
 * address of `pv-mock-vendors` (the real mock clouds, spawned here on a free port; its JSON line
 * gives the URLs and demo credentials), its plant is mapped to a station in 电站映射, the hub's
 * poller backfills the plant's day, the station's devices appear in 设备总览 with source 厂商云,
 * and the station's generation report shows their energy. The mock serves one inverter so the
 * first round fits FusionSolar's documented budget in seconds.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { join, resolve } from 'node:path'

const repo = resolve(import.meta.dirname, '..', '..')
const target = process.env.CARGO_TARGET_DIR || join(repo, 'target')
const mockBinary = process.env.PV_MOCK_VENDORS || join(target, 'debug', 'pv-mock-vendors')

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Starts the mock clouds; resolves with their description once the JSON line is out. */
function startMock() {
  return new Promise((ok, fail) => {
    if (!existsSync(mockBinary)) {
      fail(new Error(`${mockBinary} missing: cargo build -p pv-mock-vendors`))
      return
    }
    const child = spawn(mockBinary, ['--port', '0', '--plants', '1', '--inverters', '1'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const lines = createInterface({ input: child.stdout })
    lines.once('line', (line) => {
      try {
        ok({ child, info: JSON.parse(line) })
      } catch (error) {
        child.kill()
        fail(error)
      }
    })
    child.once('exit', (code) => fail(new Error(`pv-mock-vendors exited (${code})`)))
  })
}

export async function vendorChecks(t) {
  const { page, baseUrl, check, assert, signIn, storedToken, nextCall, toast, crudRows } = t
  const { crudDialog, timeout } = t
  const stamp = Date.now().toString(36)
  const stationName = `厂商云电站${stamp}`
  const live = { mock: null, station: '', account: '', plant: '', serial: '' }

  const api = async (method, path, body) => {
    const r = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        'Blade-Auth': `bearer ${await storedToken()}`,
        'Content-Type': 'application/json',
      },
      body: body ? JSON.stringify(body) : undefined,
    })
    const text = await r.text()
    const json = r.ok ? JSON.parse(text) : null
    if (json?.code !== 200)
      throw new Error(`${method} ${path}: HTTP ${r.status} ${text.slice(0, 300)}`)
    return json.data
  }
  /** Retries `probe` until it answers something truthy (the poller works on its own clock). */
  const eventually = async (what, probe, ms = 45_000) => {
    const until = Date.now() + ms
    for (;;) {
      const got = await probe().catch(() => null)
      if (got) return got
      if (Date.now() > until) throw new Error(`${what}: not within ${ms / 1000} s`)
      await sleep(500)
    }
  }
  /** Picks `label` in the antd select inside `testId`. */
  async function pick(testId, label) {
    const select = page.getByTestId(testId)
    const option = page
      .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
      .filter({ hasText: label })
      .first()
    for (let attempt = 1; ; attempt++) {
      if (!(await option.isVisible())) await select.locator('.ant-select').first().click()
      try {
        await option.click({ timeout: 4000 })
        return
      } catch (error) {
        if (attempt >= 3) throw error
      }
    }
  }

  try {
    live.mock = await startMock()
    const fusion = live.mock.info.platforms.huawei
    assert(fusion?.baseUrl, `no FusionSolar in ${JSON.stringify(live.mock.info)}`)
    await signIn('admin', 'admin')
    live.station = String(
      await api('POST', '/api/station', { name: stationName, stationType: '2' }),
    )

    await check(
      'vendor: a FusionSolar account is added on 第三方逆变器 with the mock address',
      async () => {
        const listed = nextCall('/api/inverterThird/page')
        await page.goto(`${baseUrl}/station/inverterThird`)
        await page.locator('[data-testid="crud-page"][data-menu-code="inverterThird"]').waitFor()
        await listed
        await page.getByTestId('crud-add').click()
        await crudDialog().waitFor()
        await pick('field-platform', '华为')
        await page.getByTestId('field-account').fill(fusion.account)
        await page.getByTestId('field-password').fill(fusion.secret)
        await page.getByTestId('field-apiUrl').fill(fusion.baseUrl)
        const saved = nextCall('/api/inverterThird')
        await crudDialog().getByTestId('crud-submit').click()
        const body = await (await saved).json()
        assert(body.code === 200, JSON.stringify(body))
        live.account = String(body.data)
        await toast('新增成功').waitFor()
        await crudRows().filter({ hasText: fusion.account }).first().waitFor()
      },
    )

    await check('vendor: 电站映射 lists the mock plant and maps it to the station', async () => {
      const row = crudRows().filter({ hasText: fusion.account }).first()
      const plants = nextCall('/api/inverterThird/plants')
      await row.getByTestId('crud-row-map').click()
      await page.getByTestId('vendor-map-dialog').waitFor({ timeout })
      const listed = await (await plants).json()
      assert(listed.code === 200 && listed.data.length === 1, JSON.stringify(listed))
      live.plant = listed.data[0].plantId
      assert(listed.data[0].deviceCount >= 1, 'the plant has its inverter')
      const mapped = nextCall('/api/inverterThird/map')
      await pick(`vendor-plant-station-${live.plant}`, stationName)
      const answer = await (await mapped).json()
      assert(answer.code === 200, JSON.stringify(answer))
      await page.getByTestId(`vendor-plant-backfill-${live.plant}`).waitFor({ timeout })
      const inverters = await api('GET', `/api/inverter/page?stationId=${live.station}`)
      assert(inverters.total >= 1, 'the station has the vendor inverter')
      live.serial = inverters.records[0].sn
    })

    await check('vendor: the poller backfills the plant and the tag says ok', async () => {
      await eventually('backfill done', async () => {
        const p = await api('GET', `/api/inverterThird/plants?id=${live.account}&cached=true`)
        return p[0]?.backfillPercent === 100
      })
      const status = await eventually('poll state ok', async () => {
        const s = await api('GET', `/api/inverterThird/status?id=${live.account}`)
        return s.state === 'ok' ? s : null
      })
      assert(status.requestsToday > 0, JSON.stringify(status))
      await page.keyboard.press('Escape')
      await page.reload()
      await page.getByTestId(`poll-state-${live.account}`).waitFor({ timeout })
      const state = await page.getByTestId(`poll-state-${live.account}`).getAttribute('data-state')
      assert(state === 'ok', `poll state tag ${state}`)
    })

    await check('vendor: 设备总览 lists the vendor devices with source 厂商云', async () => {
      await page.goto(`${baseUrl}/equipment`)
      await page.getByTestId('equipment-page').waitFor({ timeout })
      const row = page
        .getByTestId('equipment-table')
        .locator('tr')
        .filter({ hasText: live.serial })
        .filter({ hasText: '厂商云' })
      await row.first().waitFor({ timeout })
    })

    await check("vendor: the station's generation report shows the vendor energy", async () => {
      const gen = await eventually(
        'energy in the report',
        async () => {
          const g = await api(
            'GET',
            `/api/report/station/electricity?stationId=${live.station}&type=day`,
          )
          return g.total?.energyKwh > 0 ? g : null
        },
        60_000,
      )
      await page.goto(`${baseUrl}/report/stationElectricity?stationId=${live.station}`)
      const total = page.getByTestId('report-station-total-energy')
      await total.waitFor({ timeout })
      await eventually('the page shows it', async () => {
        const text = (await total.textContent()) ?? ''
        return Number.parseFloat(text.replace(/[^0-9.]/g, '')) > 0
      })
      assert(gen.total.energyKwh > 0, JSON.stringify(gen.total))
    })
  } finally {
    // The account and station stay unmapped for a rerun; the mock stops with the run.
    if (live.account && live.plant)
      await api('POST', '/api/inverterThird/map', {
        id: live.account,
        plantId: live.plant,
        stationId: null,
      }).catch(() => {})
    live.mock?.child.kill()
  }
}
