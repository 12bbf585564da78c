/**
 * Dispersion end to end: a station whose two 12-string inverters are simulated over Modbus TCP
 * (`pv-edge simulate --spec`, realistic physics, clear sky at the simulated solar noon), one with
 * string 7 delivering a quarter of its neighbours' current; a real edge agent (`pv-edge run`)
 * publishes to the hub, ingest stores and rolls up, and `discreteRate/list` must grade the weak
 * inverter poor and the healthy one not, which the console's heat-map shows.
 *
 * The analytics window is 10:00-14:00 of the station's clock: the station is created with the
 * UTC offset that makes "now" 11:00 there, so the check runs at any hour.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { writeAgentFiles } from './agent-config.mjs'

const repo = resolve(import.meta.dirname, '..', '..')
const edgeBinary = join(repo, 'target', 'debug', 'pv-edge')
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
    headers: { 'Blade-Auth': `bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await r.text()
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`)
  return path.includes('/gateway/config') ? text : JSON.parse(text)
}

/** Minutes east of UTC that make the current instant read `hour`:00 (within -12 h .. +14 h). */
export function offsetForLocalHour(nowMs, hour) {
  const utcMinutes = Math.floor(nowMs / 60_000) % 1440
  let offset = hour * 60 - utcMinutes
  while (offset < -720) offset += 1440
  while (offset > 840) offset -= 1440
  return offset
}

/** Whole hours to add to the real clock so a site at `longitude` is at solar noon. */
export function simulatorNoonOffset(nowMs, longitude) {
  const utcH = (nowMs % 86_400_000) / 3_600_000
  let h = Math.round(12 - (utcH + longitude / 15))
  while (h <= -12) h += 24
  while (h > 12) h -= 24
  return h
}

/**
 * Starts the site (station, two inverters, simulator, edge agent). Analytics read closed
 * 5-minute rollups, so figures exist only once the first bucket has ended (up to 5 minutes):
 * the runner starts the site early and verifies it (`dispersionChecks`) after other groups.
 */
export async function startDispersionSite(t) {
  const { check, assert, signIn, storedToken, baseUrl } = t
  const stamp = Date.now().toString(36)
  const dir = mkdtempSync(join(tmpdir(), 'pv-e2e-disp-'))
  const children = []
  const ids = { station: '', weak: '', healthy: '', started: 0 }
  const longitude = 121.47
  const api = apiOf(baseUrl, storedToken)
  await check(
    'a station with one weak string starts: simulator and edge agent running',
    async () => {
      assert(existsSync(edgeBinary), `${edgeBinary} missing (cargo build -p pv-edge)`)
      // Signed in by the earlier groups, unless run alone (E2E_ONLY) on a blank page.
      if (!(await storedToken().catch(() => null))) await signIn('admin', 'admin')
      const port = await freePort()
      const now = Date.now()
      const created = await api('POST', '/api/station', {
        name: `离散率电站${stamp}`,
        gatewayId: `gw-disp-${stamp}`,
        latitude: 31.23,
        longitude,
        utcOffsetMinutes: offsetForLocalHour(now, 11),
      })
      ids.station = created.data
      for (const [unit, name] of [
        [1, 'INV-WEAK'],
        [2, 'INV-HEALTHY'],
      ]) {
        await api('POST', '/api/inverter', {
          stationId: ids.station,
          name,
          sn: `DISP${unit}${stamp}`.toUpperCase(),
          mapModel: 'sungrow-sg-cx',
          unitId: unit,
          stringsCount: 12,
          ratedPower: 50,
          modbusAddress: `tcp://127.0.0.1:${port}`,
        })
      }
      writeFileSync(
        join(dir, 'simulator.toml'),
        [
          `maps_dir = ${JSON.stringify(maps)}`,
          '[site]',
          'latitude = 31.23',
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
          'weak_string = { string = 7, share = 0.25 }',
          '[[bus.device]]',
          'unit = 2',
          'map = "sungrow-sg-cx"',
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
  return { dir, children, ids }
}

/** Verifies the grading of the site `startDispersionSite` started, then stops it. */
export async function dispersionChecks(t, site) {
  const { page, baseUrl, screenshotDir, check, assert, timeout, storedToken } = t
  const { dir, children, ids } = site
  const api = apiOf(baseUrl, storedToken)
  try {
    await check('the weak string grades its inverter poor, and only it', async () => {
      assert(ids.started > 0, 'the site did not start')
      // Samples → closed 5-minute rollups (a bucket is rolled up shortly after it ends) → figures.
      const deadline = ids.started + 7 * 60_000
      let records
      for (;;) {
        const list = await api('GET', `/api/discreteRate/list?stationId=${ids.station}`)
        records = list.data.records
        if (records.length === 2 && records.every((r) => r.rate !== null && r.instants > 0)) break
        assert(Date.now() < deadline, `no dispersion figures: ${JSON.stringify(records)}`)
        await page.waitForTimeout(1000)
      }
      const weak = records.find((r) => r.inverterName === 'INV-WEAK')
      const healthy = records.find((r) => r.inverterName === 'INV-HEALTHY')
      assert(weak && healthy, JSON.stringify(records))
      ids.weak = weak.inverterId
      ids.healthy = healthy.inverterId
      // One string of 12 at 25 %: σ/μ = √11 · 0.75 / 11.25 = 22.1 %.
      assert(weak.level === 'poor', `weak inverter: ${weak.rate} % ${weak.level}`)
      assert(Math.abs(weak.rate - 22.11) < 1.5, `weak inverter rate ${weak.rate}`)
      assert(
        healthy.level !== 'poor' && healthy.rate < 5,
        `healthy: ${healthy.rate} % ${healthy.level}`,
      )
      const worst = [...weak.strings].sort((a, b) => a.deviationPct - b.deviationPct)[0]
      assert(worst.index === 7, `weakest string ${JSON.stringify(worst)}`)
    })

    await check(
      'the dispersion heat-map shows the weak inverter poor and points at string 7',
      async () => {
        assert(ids.weak, 'no figures')
        await page.goto(`${baseUrl}/intelligentOperation/discreteRate?stationId=${ids.station}`)
        const weakCell = page.getByTestId(`dispersion-cell-${ids.weak}`)
        await weakCell.waitFor({ timeout })
        assert((await weakCell.getAttribute('data-level')) === 'poor', 'weak cell not poor')
        const healthyLevel = await page
          .getByTestId(`dispersion-cell-${ids.healthy}`)
          .getAttribute('data-level')
        assert(healthyLevel !== 'poor', `healthy cell ${healthyLevel}`)
        await weakCell.click()
        const row = page.getByTestId('dispersion-string-7')
        await row.waitFor({ timeout })
        assert((await row.getAttribute('data-weak')) === 'true', 'string 7 not marked weak')
        await page.waitForTimeout(1500) // the bars grow in; picture them grown
        await page.screenshot({ path: join(screenshotDir, 'dispersion.png'), fullPage: true })
      },
    )
  } finally {
    for (const c of children) c.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
}
