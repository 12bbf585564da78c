/**
 * Commissioning from the console: a new station whose gateway (a real `pv-edge run`, installed
 * with its bus declared and no device) is online, and a simulated field bus (`pv-edge simulate`:
 * an inverter at unit 1, a meter at unit 2). In the station's gateway tab the installer reads the
 * buses, scans, probes each unit with its map, sees the live values and adds it; the clock runs
 * from "gateway online" to "every device live" (live values through the hub's realtime API) and
 * must stay under 10 minutes. The elapsed time is printed.
 *
 *   PV_EDGE        the pv-edge binary (default target/debug/pv-edge of the repository)
 *   E2E_SIM_PORT   the simulator's TCP port (default: a free one)
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const repo = resolve(import.meta.dirname, '..', '..')
const edgeBinary = process.env.PV_EDGE || join(repo, 'target', 'debug', 'pv-edge')
const LIMIT_MS = 10 * 60 * 1000

const freePort = () =>
  new Promise((ok, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => ok(port))
    })
  })

export async function commissionChecks(t) {
  const { page, baseUrl, screenshotDir, check, assert, timeout, signIn, storedToken } = t
  const stamp = Date.now().toString(36).toUpperCase()
  const dir = mkdtempSync(join(tmpdir(), 'pv-e2e-commission-'))
  const children = []
  const site = { station: '', online: 0 }

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

  const devices = [
    { unit: 1, map: 'huawei-sun2000-ktl', sn: `COM-INV-${stamp}`, name: 'INV-1' },
    { unit: 2, map: 'eastron-sdm630', sn: `COM-MET-${stamp}`, name: 'MET-1' },
  ]

  try {
    await check('commissioning: a new station gateway comes online with an empty bus', async () => {
      assert(existsSync(edgeBinary), `${edgeBinary} missing (cargo build -p pv-edge, or PV_EDGE)`)
      if (!page.url().startsWith(baseUrl)) await page.goto(`${baseUrl}/login`)
      if (!(await storedToken())) await signIn('admin', 'admin')
      const simPort = Number(process.env.E2E_SIM_PORT || (await freePort()))
      const created = await api('POST', '/api/station', {
        name: `调试电站${stamp}`,
        gatewayId: `gw-com-${stamp}`,
        latitude: 30.5,
        longitude: 114.3,
      })
      site.station = created.data
      const issued = await api(
        'POST',
        `/api/station/gateway/credentials?stationId=${site.station}`,
        {},
      )
      // The hub's generated config (broker, identity) plus the bus the installer wired.
      const config =
        (await api('GET', `/api/station/gateway/config?stationId=${site.station}`))
          .split('\n')
          .map((l) =>
            l.startsWith('data_dir = ')
              ? `data_dir = ${JSON.stringify(join(dir, 'state'))}`
              : l.startsWith('maps_dir = ')
                ? `maps_dir = ${JSON.stringify(join(repo, 'firmware-configs'))}`
                : l.startsWith('password_file = ')
                  ? `password_file = ${JSON.stringify(join(dir, 'mqtt-password'))}`
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
            ...devices.flatMap((d) => ['--device', `${d.unit}=${d.map}`]),
            '--tcp',
            `127.0.0.1:${simPort}`,
          ],
          { stdio: 'ignore' },
        ),
      )
      children.push(
        spawn(edgeBinary, ['run', '--config', join(dir, 'pv-edge.toml')], { stdio: 'ignore' }),
      )
      const deadline = Date.now() + 60_000
      for (;;) {
        const token = await storedToken()
        const r = await fetch(
          `${baseUrl}/api/station/gateway/commission/buses?stationId=${site.station}`,
          { headers: { 'Blade-Auth': `bearer ${token}` } },
        )
        if (r.ok) break
        assert(Date.now() < deadline, `the gateway never answered: ${r.status}`)
        await page.waitForTimeout(500)
      }
      site.online = Date.now()
    })

    await check('commissioning: scan, probe and add every unit from the gateway tab', async () => {
      assert(site.online, 'no online gateway')
      await page.goto(`${baseUrl}/archives?id=${site.station}`)
      await page.getByTestId('archive-tabs').getByRole('tab', { name: '网关', exact: true }).click()
      const panel = page.getByTestId('commission-panel')
      await panel.getByTestId('commission-load').click()
      await panel.getByTestId('commission-scan').waitFor({ timeout })
      await panel.getByTestId('commission-to').fill('5')
      await panel.getByTestId('commission-scan').click()
      for (const d of devices)
        await panel.getByTestId(`commission-unit-${d.unit}`).waitFor({ timeout: 60_000 })
      // Units 3–5 have no device: counted silent or reported absent, never listed.
      const counts = panel.getByTestId('commission-scan-counts')
      const count = async (key) =>
        Number(await counts.getByTestId(`commission-count-${key}`).getAttribute('data-count'))
      assert((await count('found')) === devices.length, `found ${await count('found')}`)
      const missing = (await count('silent')) + (await count('absent'))
      assert(missing === 5 - devices.length, `silent + absent = ${missing}`)
      await page.screenshot({ path: join(screenshotDir, 'commission-scan.png') })
      for (const d of devices) {
        await panel.getByTestId(`commission-pick-${d.unit}`).click()
        await panel.getByTestId('commission-map').click()
        await page.keyboard.type(d.map)
        await page.keyboard.press('Enter')
        await panel.getByTestId('commission-probe').click()
        await panel.getByTestId('commission-fits').waitFor({ timeout: 30_000 })
        const values = await panel.getByTestId('commission-probe-result').innerText()
        assert(values.includes(d.unit === 1 ? 'ac_power' : 'grid_frequency'), values)
        if (d.unit === 1)
          await page.screenshot({ path: join(screenshotDir, 'commission-probe.png') })
        await panel.getByTestId('commission-name').fill(d.name)
        await panel.getByTestId('commission-sn').fill(d.sn)
        await panel.getByTestId('commission-add').click()
        await panel
          .getByTestId('commission-configured')
          .getByText(d.sn, { exact: false })
          .waitFor({ timeout: 30_000 })
      }
    })

    await check('commissioning: every device is live in under 10 minutes', async () => {
      assert(site.online, 'no online gateway')
      const deadline = site.online + LIMIT_MS
      const live = new Set()
      for (;;) {
        const inv = await api('POST', '/api/inverterReal/list', { sn: devices[0].sn })
        if (inv.data.records[0]?.online) live.add(devices[0].sn)
        const met = await api('GET', `/api/deviceReal/list?stationId=${site.station}&kind=meter`)
        if (met.data.some((d) => d.kind === 'meter' && d.values.length > 0)) live.add(devices[1].sn)
        if (live.size === devices.length) break
        assert(Date.now() < deadline, `not live in 10 min: ${[...live].join(', ')}`)
        await page.waitForTimeout(500)
      }
      const elapsed = Date.now() - site.online
      console.log(
        `  # commissioning: gateway online → ${devices.length} devices live in ${(elapsed / 1000).toFixed(1)} s`,
      )
      assert(elapsed < LIMIT_MS, `took ${elapsed} ms`)
    })

    await check('commissioning: the data quality panel shows every device online', async () => {
      assert(site.online, 'no online gateway')
      await page.goto(`${baseUrl}/archives?id=${site.station}`)
      await page.getByTestId('archive-tabs').getByRole('tab', { name: '网关', exact: true }).click()
      const quality = page.getByTestId('device-quality')
      const online = quality.locator('[data-testid^="quality-state-"][data-state="online"]')
      const deadline = Date.now() + 60_000
      while ((await online.count()) < devices.length) {
        assert(
          Date.now() < deadline,
          `online: ${await online.count()}: ${await quality.innerText()}`,
        )
        await page.waitForTimeout(1000)
      }
      assert((await quality.getByText('在线').count()) >= devices.length, await quality.innerText())
      await page.screenshot({
        path: join(screenshotDir, 'quality-gateway-tab.png'),
        fullPage: true,
      })
    })

    await check('commissioning: the panel fits a 390×844 screen', async () => {
      assert(site.station, 'no station')
      await page.setViewportSize({ width: 390, height: 844 })
      await page.goto(`${baseUrl}/archives?id=${site.station}`)
      await page.getByTestId('archive-tabs').getByRole('tab', { name: '网关', exact: true }).click()
      const panel = page.getByTestId('commission-panel')
      await panel.getByTestId('commission-load').click()
      await panel.getByTestId('commission-scan').waitFor({ timeout })
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      )
      await page.screenshot({ path: join(screenshotDir, 'commission-mobile.png'), fullPage: true })
      assert(overflow <= 1, `the page scrolls sideways by ${overflow}px`)
    })
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 }).catch(() => {})
    for (const c of children) c.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
}
