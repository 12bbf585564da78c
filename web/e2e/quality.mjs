/**
 * Data quality shown for real: a station's gateway (a real `pv-edge run`) polls two SunSpec
 * inverters of the simulator (`pv-edge simulate`, Modbus TCP). Through the simulator's control
 * file, inverter 1 restarts with another model layout (models 160 and 103, no common model:
 * the agent cannot confirm the unit, so it withholds its values) and inverter 2 serves a power
 * factor of 2070 (PF_SF 0: impossible as ratio and as percent, so the agent marks it suspect).
 * The console must show inverter 1 as "数据暂停" with the gateway's reason on the gateway tab,
 * on its device page, in the inverter list, the station overview and the inverter registry (its
 * last values struck through, never as current), and inverter 2's power factor only in the
 * warning style with its tooltip, never among its good values.
 *
 *   PV_EDGE        the pv-edge binary (default target/debug/pv-edge of the repository)
 *   E2E_SIM_PORT   the simulator's TCP port (default: a free one)
 */
import { spawn } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const repo = resolve(import.meta.dirname, '..', '..')
const edgeBinary = process.env.PV_EDGE || join(repo, 'target', 'debug', 'pv-edge')

// The simulated SunSpec inverter's canonical chain: SunS at 40000, model 1 (66 registers) at
// 40002, model 103 at 40070; its PF is at offset 22 of the model, PF_SF at 23.
const PF = 40092
const PF_SF = 40093

const freePort = () =>
  new Promise((ok, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => ok(port))
    })
  })

export async function qualityChecks(t) {
  const { page, baseUrl, screenshotDir, check, assert, timeout, signIn, storedToken } = t
  const stamp = Date.now().toString(36).toUpperCase()
  const dir = mkdtempSync(join(tmpdir(), 'pv-e2e-quality-'))
  const control = join(dir, 'sim-control')
  const children = []
  // A withheld value is shown struck through and greyed, never as a current reading.
  const assertStruck = async (value, what) => {
    assert((await value.getAttribute('data-withheld')) === 'true', `${what}: not marked`)
    assert((await value.locator('del').count()) > 0, `${what}: not struck through`)
    const style = await value.evaluate((e) => getComputedStyle(e).color)
    const cls = (await value.getAttribute('class')) ?? ''
    assert(cls.includes('ant-typography-secondary'), `${what}: not greyed (${cls}, ${style})`)
  }
  const site = { station: '', ids: {} }
  const withheld = { unit: 1, sn: `QUA-WH-${stamp}`, name: 'INV-WH' }
  const suspect = { unit: 2, sn: `QUA-SUS-${stamp}`, name: 'INV-SUS' }

  const api = async (method, path, body) => {
    const token = await storedToken()
    const r = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'Blade-Auth': `bearer ${token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await r.text()
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`)
    return path.includes('/gateway/config') ? text : JSON.parse(text)
  }
  const until = async (what, ms, done) => {
    const deadline = Date.now() + ms
    for (;;) {
      const last = await done()
      if (last === true) return
      assert(Date.now() < deadline, `${what}: ${JSON.stringify(last).slice(0, 600)}`)
      await page.waitForTimeout(500)
    }
  }
  const quality = async () =>
    (await api('GET', `/api/deviceQuality/list?stationId=${site.station}`)).data

  try {
    await check('quality: two SunSpec inverters on a real gateway send values', async () => {
      assert(existsSync(edgeBinary), `${edgeBinary} missing (cargo build -p pv-edge, or PV_EDGE)`)
      if (!page.url().startsWith(baseUrl)) await page.goto(`${baseUrl}/login`)
      // A response body can be gone once the console navigates on (a reload, the sign-in's
      // redirect): signed in is what counts, else one more try.
      if (!(await storedToken()))
        await signIn('admin', 'admin').catch(async () => {
          await page.waitForTimeout(1000)
          if (!(await storedToken())) await signIn('admin', 'admin')
        })
      const simPort = Number(process.env.E2E_SIM_PORT || (await freePort()))
      const created = await api('POST', '/api/station', {
        name: `质量电站${stamp}`,
        gatewayId: `gw-qua-${stamp}`,
        latitude: 30.5,
        longitude: 114.3,
      })
      site.station = created.data
      const issued = await api(
        'POST',
        `/api/station/gateway/credentials?stationId=${site.station}`,
        {},
      )
      // The hub's config, a status every 2 s (instead of every minute) and the wired bus.
      const config =
        (await api('GET', `/api/station/gateway/config?stationId=${site.station}`))
          .split('\n')
          .map((l) =>
            l.startsWith('data_dir = ')
              ? `data_dir = ${JSON.stringify(join(dir, 'state'))}`
              : l.startsWith('maps_dir = ')
                ? `maps_dir = ${JSON.stringify(join(repo, 'firmware-configs'))}`
                : l.startsWith('password_file = ')
                  ? `password_file = ${JSON.stringify(join(dir, 'mqtt-password'))}\nstatus_interval_s = 2`
                  : l,
          )
          .join('\n') +
        `\n[[bus]]\nname = "field"\ntransport = "tcp"\naddress = "127.0.0.1:${simPort}"\ntimeout_ms = 300\nretries = 0\n`
      writeFileSync(join(dir, 'pv-edge.toml'), config)
      writeFileSync(join(dir, 'mqtt-password'), issued.data.password)
      children.push(
        spawn(
          edgeBinary,
          [
            'simulate',
            '--maps-dir',
            join(repo, 'firmware-configs'),
            '--device',
            `${withheld.unit}=sunspec-inverter`,
            '--device',
            `${suspect.unit}=sunspec-inverter`,
            '--tcp',
            `127.0.0.1:${simPort}`,
            '--control',
            control,
          ],
          { stdio: ['ignore', 'ignore', openSync(join(screenshotDir, 'quality-sim.log'), 'w')] },
        ),
      )
      // The agent's log next to the screenshots: what it withheld and why.
      const log = openSync(join(screenshotDir, 'quality-agent.log'), 'w')
      children.push(
        spawn(edgeBinary, ['run', '--config', join(dir, 'pv-edge.toml')], {
          stdio: ['ignore', log, log],
        }),
      )
      await until('the gateway never answered', 60_000, async () => {
        const token = await storedToken()
        const r = await fetch(
          `${baseUrl}/api/station/gateway/commission/buses?stationId=${site.station}`,
          { headers: { 'Blade-Auth': `bearer ${token}` } },
        )
        return r.ok || `${r.status} ${await r.text()}`
      })
      for (const d of [withheld, suspect]) {
        const added = await api('POST', '/api/station/gateway/commission/device', {
          stationId: site.station,
          bus: 'field',
          unit: d.unit,
          map: 'sunspec-inverter',
          name: d.name,
          sn: d.sn,
          intervalMs: 1000,
        })
        site.ids[d.sn] = String(added.data.deviceId)
      }
      await until('no live values', 30_000, async () => {
        const rows = (await api('POST', '/api/inverterReal/list', { stationId: site.station })).data
          .records
        const ok = rows.filter((r) => r.online && r.acPowerKw !== null && r.withheld == null)
        return ok.length === 2 || rows
      })
    })

    await check('quality: a layout restart is withheld, an impossible PF is suspect', async () => {
      assert(site.ids[withheld.sn], 'no devices')
      appendFileSync(
        control,
        `register ${suspect.unit} 3 ${PF} 2070\nregister ${suspect.unit} 3 ${PF_SF} 0\n` +
          `restart ${withheld.unit} 160,103 40000\n`,
      )
      await until('the gateway never said so', 30_000, async () => {
        const q = await quality()
        const w = q.find((d) => d.sn === withheld.sn)
        const s = q.find((d) => d.sn === suspect.sn)
        return (
          // The reason moves on from the layout change to the identity read that follows it.
          (w?.state === 'withheld' &&
            w.lastChange?.startsWith('layout changed') &&
            String(w.withheld ?? '').includes('identity unreadable') &&
            s?.state === 'online' &&
            s.suspectValues.some((v) => v.name === 'power_factor')) ||
          q
        )
      })
    })

    await check(
      'quality: the gateway tab shows the withheld device and the suspect value',
      async () => {
        assert(site.station, 'no station')
        const wId = site.ids[withheld.sn]
        const sId = site.ids[suspect.sn]
        await page.goto(`${baseUrl}/archives?id=${site.station}`)
        await page
          .getByTestId('archive-tabs')
          .getByRole('tab', { name: '网关', exact: true })
          .click()
        const panel = page.getByTestId('device-quality')
        const state = panel.getByTestId(`quality-state-${wId}`)
        await state.waitFor({ timeout })
        assert((await state.getAttribute('data-state')) === 'withheld', await panel.innerText())
        assert((await state.innerText()).includes('数据暂停'), await state.innerText())
        const reason = await panel.getByTestId(`quality-reason-${wId}`).innerText()
        assert(reason.includes('identity unreadable'), `reason: ${reason}`)
        const last = await panel.getByTestId(`quality-last-change-${wId}`).innerText()
        assert(last.startsWith('layout changed: model 1 expected at 40002'), `last change: ${last}`)
        const pf = panel.getByTestId(`quality-suspect-value-${sId}-power_factor`)
        assert(
          (await pf.getAttribute('data-value')) === '2070',
          await pf.getAttribute('data-value'),
        )
        assert(
          ((await pf.getAttribute('class')) ?? '').includes('ant-typography-warning'),
          'the suspect value is not in the warning style',
        )
        await pf.hover()
        await page.getByRole('tooltip').getByText('超出合理范围，未计入统计').waitFor({ timeout })
        await page.screenshot({
          path: join(screenshotDir, 'quality-withheld-gateway.png'),
          fullPage: true,
        })
      },
    )

    await check(
      'quality: the inverter list and device pages show it, never as good values',
      async () => {
        assert(site.station, 'no station')
        const wId = site.ids[withheld.sn]
        const sId = site.ids[suspect.sn]
        await page.goto(`${baseUrl}/station/inverterReal?stationId=${site.station}`)
        const table = page.getByTestId('inverter-real-table')
        const wRow = table.getByTestId(`inverter-real-row-${wId}`)
        await wRow.waitFor({ timeout })
        const tag = wRow.getByTestId(`inverter-withheld-${wId}`)
        await tag.waitFor({ timeout })
        assert((await tag.innerText()).includes('数据暂停'), await wRow.innerText())
        // An open fault alarm may show beside it (the simulated unit reports events), a running
        // state may not.
        const running = wRow.locator(
          '[data-testid="run-status"][data-status="producing"], [data-testid="run-status"][data-status="standby"]',
        )
        assert((await running.count()) === 0, `shown as running: ${await wRow.innerText()}`)
        await tag.hover()
        const tip = page.getByRole('tooltip').filter({ hasText: 'identity unreadable' })
        await tip.waitFor({ timeout })
        // Its last values stay visible, struck through and greyed, the reason on hover; the
        // flowing inverter's are plain.
        const stalePower = wRow.getByTestId(`inverter-stale-power-${wId}`)
        await stalePower.waitFor({ timeout })
        await assertStruck(stalePower, 'inverter list: power')
        await assertStruck(wRow.getByTestId(`inverter-stale-total-${wId}`), 'inverter list: total')
        await stalePower.hover()
        await page
          .getByRole('tooltip')
          .filter({ hasText: '数据暂停前收到的旧值，不代表设备现状' })
          .filter({ hasText: 'identity unreadable' })
          .waitFor({ timeout })
        const plainRow = table.getByTestId(`inverter-real-row-${sId}`)
        assert(
          (await plainRow.locator('[data-withheld="true"]').count()) === 0,
          `the flowing inverter is struck: ${await plainRow.innerText()}`,
        )
        await page.screenshot({
          path: join(screenshotDir, 'quality-withheld-list.png'),
          fullPage: true,
        })
        // The device page of the withheld inverter: its quality tab.
        await wRow.locator('.ant-table-row-expand-icon').click()
        const wPanel = wRow.locator('xpath=following-sibling::tr[1]')
        await wPanel.getByRole('tab', { name: '数据质量' }).click()
        const wState = wPanel.getByTestId(`quality-state-${wId}`)
        await wState.waitFor({ timeout })
        assert(
          (await wState.getAttribute('data-state')) === 'withheld',
          'device page: not withheld',
        )
        assert(
          (await wPanel.getByTestId(`quality-reason-${wId}`).innerText()).includes(
            'identity unreadable',
          ),
          'device page: no reason',
        )
        await page.screenshot({
          path: join(screenshotDir, 'quality-withheld-device.png'),
          fullPage: true,
        })

        // The suspect inverter: its power factor is not among its values, only marked.
        const sRow = table.getByTestId(`inverter-real-row-${sId}`)
        assert(
          (await sRow.getAttribute('data-withheld')) === null,
          'the suspect one is not withheld',
        )
        await sRow.locator('.ant-table-row-expand-icon').click()
        const sPanel = sRow.locator('xpath=following-sibling::tr[1]')
        await sPanel.getByRole('tab', { name: '全部测点' }).click()
        await sPanel.locator('.ant-table-row').first().waitFor({ timeout })
        const values = await sPanel.innerText()
        assert(values.includes('kW'), `no values: ${values}`)
        assert(!values.includes('2070') && !values.includes('2,070'), `good values: ${values}`)
        await sPanel.getByRole('tab', { name: '数据质量' }).click()
        const pf = sPanel.getByTestId(`quality-suspect-value-${sId}-power_factor`)
        await pf.waitFor({ timeout })
        assert(((await pf.getAttribute('class')) ?? '').includes('ant-typography-warning'), 'style')
        await pf.scrollIntoViewIfNeeded()
        await page.screenshot({
          path: join(screenshotDir, 'quality-suspect-device.png'),
          fullPage: true,
        })
      },
    )

    await check(
      'quality: the station overview and the inverter registry mark the withheld values',
      async () => {
        assert(site.station, 'no station')
        const wId = site.ids[withheld.sn]
        const sId = site.ids[suspect.sn]
        await page.goto(`${baseUrl}/station/overview?id=${site.station}`)
        const overview = page.getByTestId('overview-devices')
        const wRow = overview.getByTestId(`overview-row-${wId}`)
        await wRow.waitFor({ timeout })
        const tag = wRow.getByTestId(`overview-withheld-${wId}`)
        await tag.waitFor({ timeout })
        assert((await tag.innerText()).includes('数据暂停'), await wRow.innerText())
        await assertStruck(wRow.getByTestId(`overview-stale-power-${wId}`), 'overview: power')
        const running = wRow.locator(
          '[data-testid="run-status"][data-status="producing"], [data-testid="run-status"][data-status="standby"]',
        )
        assert(
          (await running.count()) === 0,
          `overview shows it running: ${await wRow.innerText()}`,
        )
        const sRow = overview.getByTestId(`overview-row-${sId}`)
        assert((await sRow.getAttribute('data-withheld')) === null, 'overview: suspect withheld')
        assert(
          (await sRow.locator('[data-withheld="true"]').count()) === 0,
          `overview: the flowing inverter is struck: ${await sRow.innerText()}`,
        )
        await page.screenshot({
          path: join(screenshotDir, 'quality-withheld-overview.png'),
          fullPage: true,
        })

        // The station's inverter registry (archive → devices): live status and power columns.
        await page.goto(`${baseUrl}/archives?id=${site.station}`)
        await page
          .getByTestId('archive-tabs')
          .getByRole('tab', { name: '设备', exact: true })
          .click()
        const reg = page.locator(`tr[data-row-key="${wId}"]`)
        await reg.waitFor({ timeout })
        const regTag = reg.getByTestId('inverter-live-withheld')
        await regTag.waitFor({ timeout })
        assert((await regTag.innerText()).includes('数据暂停'), await reg.innerText())
        await assertStruck(reg.getByTestId('inverter-live-stale-power'), 'registry: power')
        const plain = page.locator(`tr[data-row-key="${sId}"]`)
        await plain.waitFor({ timeout })
        assert(
          (await plain.locator('[data-withheld="true"]').count()) === 0,
          `registry: the flowing inverter is struck: ${await plain.innerText()}`,
        )
        // The live columns are the table's last: scrolled to, so the screenshot shows them.
        await reg.getByTestId('inverter-live-stale-power').scrollIntoViewIfNeeded()
        await page.screenshot({
          path: join(screenshotDir, 'quality-withheld-registry.png'),
          fullPage: true,
        })
      },
    )

    await check('quality: withheld and suspect states fit a 390×844 screen', async () => {
      assert(site.station, 'no station')
      const wId = site.ids[withheld.sn]
      const sId = site.ids[suspect.sn]
      await page.setViewportSize({ width: 390, height: 844 })
      await page.goto(`${baseUrl}/archives?id=${site.station}`)
      await page.getByTestId('archive-tabs').getByRole('tab', { name: '网关', exact: true }).click()
      const panel = page.getByTestId('device-quality')
      await panel.getByTestId(`quality-reason-${wId}`).waitFor({ timeout })
      await panel.getByTestId(`quality-suspect-value-${sId}-power_factor`).scrollIntoViewIfNeeded()
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      )
      await page.screenshot({ path: join(screenshotDir, 'quality-mobile.png'), fullPage: true })
      assert(overflow <= 1, `the page scrolls sideways by ${overflow}px`)
      // The withheld inverter on a phone: the list and the overview still mark its values.
      await page.goto(`${baseUrl}/station/inverterReal?stationId=${site.station}`)
      const stale = page.getByTestId(`inverter-stale-power-${wId}`)
      await stale.waitFor({ timeout })
      await stale.scrollIntoViewIfNeeded()
      await assertStruck(stale, 'phone: inverter list')
      await page.screenshot({
        path: join(screenshotDir, 'quality-mobile-list.png'),
        fullPage: true,
      })
      await page.goto(`${baseUrl}/station/overview?id=${site.station}`)
      const overviewStale = page.getByTestId(`overview-stale-power-${wId}`)
      await overviewStale.waitFor({ timeout })
      await overviewStale.scrollIntoViewIfNeeded()
      await assertStruck(overviewStale, 'phone: overview')
      await page.screenshot({
        path: join(screenshotDir, 'quality-mobile-overview.png'),
        fullPage: true,
      })
    })
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 }).catch(() => {})
    for (const c of children) c.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
}
