/**
 * Live data in the console: a station provisioned through the API, its generated gateway config
 * run by a real edge agent (`target/debug/pv-edge run`) polling a simulated inverter
 * (`pv-edge simulate`) over Modbus TCP, publishing to the hub's broker. A value written into the
 * simulator's registers must show on the inverter realtime page, and the station on the home map.
 * A simulated SunSpec weather station on the same bus must show its live irradiance on the station
 * overview exactly as `/api/deviceReal/list` answers it.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const repo = resolve(import.meta.dirname, '..', '..')
const edgeBinary = join(repo, 'target', 'debug', 'pv-edge')

const freePort = () =>
  new Promise((ok, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => ok(port))
    })
  })

export async function dataPathChecks(t) {
  const { page, baseUrl, screenshotDir, check, assert, waitForPath, timeout } = t
  const { signIn, storedToken } = t
  const stamp = Date.now().toString(36)
  const sn = `LIVE${stamp}`.toUpperCase()
  const dir = mkdtempSync(join(tmpdir(), 'pv-e2e-live-'))
  const children = []
  const live = { station: '', inverter: '', weather: '' }

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

  try {
    await check('a real edge agent and simulator feed a provisioned station', async () => {
      assert(existsSync(edgeBinary), `${edgeBinary} missing (cargo build -p pv-edge)`)
      // The station checks leave the platform admin signed in; sign in only if they did not (run
      // alone, E2E_ONLY=datapath, the page is still blank: no storage to read yet).
      if (!page.url().startsWith(baseUrl)) await page.goto(`${baseUrl}/login`)
      if (!(await storedToken())) await signIn('admin', 'admin')
      const simPort = await freePort()
      const created = await api('POST', '/api/station', {
        name: `实时电站${stamp}`,
        gatewayId: `gw-live-${stamp}`,
        latitude: 31.23,
        longitude: 121.47,
      })
      live.station = created.data
      await api('POST', '/api/inverter', {
        stationId: live.station,
        name: 'INV-LIVE',
        sn,
        mapModel: 'huawei-sun2000-ktl',
        unitId: 1,
        stringsCount: 8,
        modbusAddress: `tcp://127.0.0.1:${simPort}`,
      })
      await api('POST', '/api/weather', {
        stationId: live.station,
        name: 'MET-LIVE',
        sn: `MET${sn}`,
        mapModel: 'sunspec-met-station',
        unitId: 2,
        modbusAddress: `tcp://127.0.0.1:${simPort}`,
      })
      const issued = await api(
        'POST',
        `/api/station/gateway/credentials?stationId=${live.station}`,
        {},
      )
      const config = (await api('GET', `/api/station/gateway/config?stationId=${live.station}`))
        .split('\n')
        .map((l) =>
          l.startsWith('data_dir = ')
            ? `data_dir = ${JSON.stringify(join(dir, 'state'))}`
            : l.startsWith('maps_dir = ')
              ? `maps_dir = ${JSON.stringify(join(repo, 'firmware-configs'))}`
              : l.startsWith('password_file = ')
                ? `password_file = ${JSON.stringify(join(dir, 'mqtt-password'))}`
                : l.startsWith('interval_ms = ')
                  ? 'interval_ms = 1000'
                  : l,
        )
        .join('\n')
      writeFileSync(join(dir, 'pv-edge.toml'), config)
      writeFileSync(join(dir, 'mqtt-password'), issued.data.password)
      const maps = join(repo, 'firmware-configs')
      children.push(
        spawn(
          edgeBinary,
          [
            'simulate',
            '--maps-dir',
            maps,
            '--device',
            '1=huawei-sun2000-ktl',
            '--device',
            '2=sunspec-met-station',
            '--tcp',
            `127.0.0.1:${simPort}`,
          ],
          { stdio: 'ignore' },
        ),
      )
      children.push(
        spawn(edgeBinary, ['run', '--config', join(dir, 'pv-edge.toml')], { stdio: 'ignore' }),
      )
      // 42.5 kW into ac_power (i32 at 32080, gain 1000), once the simulator listens.
      const deadline = Date.now() + timeout
      for (;;) {
        const w = spawnSync(edgeBinary, [
          'write',
          '--tcp',
          `127.0.0.1:${simPort}`,
          '--unit',
          '1',
          '--start',
          '32080',
          '--values',
          '0,42500',
        ])
        if (w.status === 0) break
        assert(Date.now() < deadline, `pv-edge write: ${String(w.stderr)}`)
        await page.waitForTimeout(300)
      }
      const shown = Date.now() + 60_000
      for (;;) {
        const list = await api('POST', '/api/inverterReal/list', { sn })
        const row = list.data.records[0]
        if (row?.acPowerKw === 42.5 && row.online) {
          live.inverter = row.id
          break
        }
        assert(Date.now() < shown, `no live value: ${JSON.stringify(row)}`)
        await page.waitForTimeout(500)
      }
    })

    await check('the inverter realtime page shows the value set in the simulator', async () => {
      assert(live.inverter, 'no live inverter')
      await page.goto(`${baseUrl}/station/inverterReal`)
      await waitForPath(page, '/station/inverterReal')
      const row = page.getByTestId(`inverter-real-row-${live.inverter}`)
      await row.waitFor({ timeout })
      await row.getByText(/42\.5/).first().waitFor({ timeout })
      await page.screenshot({ path: join(screenshotDir, 'live-inverter-real.png'), fullPage: true })
    })

    await check(
      "the station overview shows the weather station's irradiance as the API answers it",
      async () => {
        assert(live.station, 'no live station')
        const listPath = `/api/deviceReal/list?stationId=${live.station}`
        const poa = (device) => device?.values.find((v) => v.name === 'irradiance_poa')
        const reported = Date.now() + 60_000
        for (;;) {
          const list = await api('GET', `${listPath}&kind=weather`)
          const w = list.data.find((d) => d.kind === 'weather')
          if (w && poa(w)) {
            live.weather = w.id
            break
          }
          assert(Date.now() < reported, `no weather values: ${JSON.stringify(list.data)}`)
          await page.waitForTimeout(500)
        }
        // Every irradiance the page was answered (it polls; the simulator moves every second).
        const answered = []
        const listen = async (r) => {
          if (!r.url().includes('/api/deviceReal/list') || r.status() !== 200) return
          const body = await r.json().catch(() => null)
          const w = body?.data?.find((d) => d.id === live.weather)
          if (poa(w)) answered.push(poa(w).value)
        }
        page.on('response', listen)
        try {
          await page.goto(`${baseUrl}/station/overview?id=${live.station}`)
          const card = page.getByTestId(`device-live-${live.weather}`)
          const reading = card.getByTestId('reading-irradiance_poa')
          await reading.waitFor({ timeout })
          const shown = Number(await reading.getAttribute('data-value'))
          assert(answered.length > 0, 'the page made no deviceReal call')
          assert(answered.includes(shown), `shown ${shown}, API answered ${answered.join(', ')}`)
          const text = await reading.innerText()
          assert(/W\/m/.test(text), `no unit in ${JSON.stringify(text)}`)
          await card.getByTestId(`device-curve-date-${live.weather}`).waitFor({ timeout })
          await page.screenshot({
            path: join(screenshotDir, 'live-station-weather.png'),
            fullPage: true,
          })
          // A phone: the cards stack and the page does not scroll sideways.
          const size = page.viewportSize()
          await page.setViewportSize({ width: 390, height: 844 })
          await page.waitForTimeout(500)
          await reading.waitFor({ timeout })
          const box = await card.boundingBox()
          assert(box !== null && box.width <= 390, `card ${JSON.stringify(box)} wider than a phone`)
          await page.screenshot({
            path: join(screenshotDir, 'live-station-weather-phone.png'),
            fullPage: true,
          })
          if (size) await page.setViewportSize(size)
        } finally {
          page.off('response', listen)
        }
      },
    )

    await check(
      "the gateway panel shows the agent's uplink encoding and bytes per sample",
      async () => {
        assert(live.station, 'no live station')
        // Counted by ingest and flushed every few seconds: wait for the API first.
        const deadline = Date.now() + 30_000
        const figures = async () =>
          (await api('GET', `/api/station/gateway?stationId=${live.station}`)).data
        let info = await figures()
        while (!(info.uplinkEncoding && info.uplinkBytesPerSample > 0)) {
          assert(Date.now() < deadline, `no uplink figures: ${JSON.stringify(info)}`)
          await new Promise((r) => setTimeout(r, 500))
          info = await figures()
        }
        await page.goto(`${baseUrl}/archives?id=${live.station}`)
        await page
          .getByTestId('archive-tabs')
          .getByRole('tab', { name: '网关', exact: true })
          .first()
          .click()
        const shown = page.locator(
          `[data-testid="gateway-uplink"][data-encoding="${info.uplinkEncoding}"]`,
        )
        await shown.waitFor({ timeout })
        const text = await shown.innerText()
        const label = info.uplinkEncoding === 'binary' ? '二进制批量' : 'JSON'
        assert(text.includes(label), `gateway panel shows "${text}", expected ${label}`)
        const figure = /每个样本 ([\d.]+) 字节/.exec(text)
        assert(figure && Number(figure[1]) > 0, `no bytes per sample in "${text}"`)
        await shown.scrollIntoViewIfNeeded()
        await page.screenshot({ path: join(screenshotDir, 'live-gateway-uplink.png') })
      },
    )

    await check('the home map lists the live station', async () => {
      assert(live.station, 'no live station')
      await page.goto(`${baseUrl}/basicFacts/equipmentMap`)
      await page.getByTestId('home-map').waitFor({ timeout })
      await page.getByTestId(`home-station-${live.station}`).waitFor({ timeout })
      await page.waitForTimeout(1500) // let the map chunk draw before the picture
      await page.screenshot({ path: join(screenshotDir, 'live-home-map.png'), fullPage: true })
    })
  } finally {
    for (const c of children) c.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
}
