/**
 * Alarms end to end (contract `contracts/alarms.md`): a station provisioned through the API, its
 * gateway config run by a real edge agent (`target/debug/pv-edge run`) polling a simulated Huawei
 * inverter (`pv-edge simulate`) over Modbus TCP, as in `datapath.mjs`.
 *
 * (a) A fault bit written into the inverter's `fault_word1` register (32008; `[[fault]]` table of
 *     `firmware-configs/huawei-sun2000-ktl.toml`: bit 7 = 2032 "Grid loss" / 电网掉电) raises
 *     exactly one alarm, which reaches the signed-in console's bell within 2 s of the API first
 *     listing it (and within a generous bound of the write); clicking it in the bell opens the
 *     alarm data page with its detail; it is acknowledged with a note through the console; writing
 *     the register back to 0 clears it automatically (rule `clearHoldSeconds`, set low here).
 * (b) Stopping the simulator (the device stops answering) raises a communication alarm
 *     (category "comm"; rule `deviceSilenceSeconds`, set low here).
 *
 * The tenant's alarm rules are changed through `PUT /api/alarmRule` and put back afterwards.
 * The simulator listens on `E2E_SIM_PORT` when set (a runner's own port range), else a free port.
 * The simulator's expected-values mode starts with fault codes in every fault register, so they are
 * zeroed (and the points the threshold rules watch set to sane values) before the agent starts.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { writeAgentFiles } from './agent-config.mjs'
import {
  FAULT_BIT,
  FAULT_NAME_ZH,
  REG,
  registerWriter,
  startHuaweiSimulator,
  writeHealthyInverter,
} from './huawei-sim.mjs'

const repo = resolve(import.meta.dirname, '..', '..')
const edgeBinary = join(repo, 'target', 'debug', 'pv-edge')
const maps = join(repo, 'firmware-configs')

/** The bell must show a new alarm within this long of the API listing it. */
const BELL_WITHIN_MS = 2000
/** Write → bell, generously: agent poll interval, upload, raise, feed, render on a loaded machine. */
const WRITE_TO_BELL_MS = 30_000

const freePort = () =>
  new Promise((ok, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => ok(port))
    })
  })

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/**
 * Calls `probe` every `everyMs` until it answers something truthy, which it returns; throws
 * `message()` once `limitMs` have passed since `since`.
 */
async function poll(probe, { since = Date.now(), limitMs, everyMs = 100, message }) {
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() - since >= limitMs) throw new Error(message())
    await sleep(everyMs)
  }
}

export async function alarmChecks(t) {
  const { page, baseUrl, screenshotDir, check, assert, waitForPath, timeout } = t
  const { signIn, storedToken } = t
  const stamp = Date.now().toString(36)
  const sn = `ALRM${stamp}`.toUpperCase()
  const stationName = `告警电站${stamp}`
  const note = `e2e 已通知运维 ${stamp}`
  const dir = mkdtempSync(join(tmpdir(), 'pv-e2e-alarm-'))
  const children = { sim: null, agent: null }
  const live = { station: '', inverter: '', simPort: 0, alarm: '', rule: null }

  /** A JSON call with the console's token; rejects unless HTTP 200 and body code 200. */
  const api = async (method, path, body) => {
    const token = await storedToken()
    const r = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'Blade-Auth': `bearer ${token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await r.text()
    if (path.includes('/gateway/config')) {
      if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`)
      return text
    }
    let json = null
    try {
      json = JSON.parse(text)
    } catch {
      // reported below
    }
    if (!r.ok || json?.code !== 200) {
      throw new Error(`${method} ${path}: HTTP ${r.status} ${text.slice(0, 300)}`)
    }
    return json
  }
  /** The same call, answering {status, json} whatever the outcome (for refusals). */
  const rawApi = async (method, path, body) => {
    const token = await storedToken()
    const r = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'Blade-Auth': `bearer ${token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await r.text()
    let json = null
    try {
      json = JSON.parse(text)
    } catch {
      // not JSON
    }
    return { status: r.status, json, text }
  }

  /** Writes holding registers of the simulated inverter (retrying until it listens). */
  const writeRegisters = registerWriter(edgeBinary, () => live.simPort, timeout)

  const startSimulator = () => {
    children.sim = startHuaweiSimulator(edgeBinary, maps, live.simPort)
  }

  /** Alarms (type 1) of the test station, by query. */
  const alarmsOf = async (query = '') =>
    (await api('GET', `/api/alarmData/page?current=1&size=50&stationId=${live.station}${query}`))
      .data
  /** Ids of every alarm of the test station (any category or status). */
  const alarmIds = async () => (await alarmsOf()).records.map((r) => String(r.id))

  /** Starts recording, in the page, when each alarm of the station first shows in the bell. */
  const watchBell = () =>
    page.evaluate((name) => {
      window.__bellSeen = {}
      window.clearInterval(window.__bellWatch)
      window.__bellWatch = window.setInterval(() => {
        let list
        try {
          list = JSON.parse(localStorage.getItem('pv-alarmList') ?? '{}').content ?? []
        } catch {
          return
        }
        const bell = document.querySelector('[data-testid="alarm-bell"]')
        for (const a of list) {
          if (a.stationName !== name || String(a.id) in window.__bellSeen) continue
          // The bell renders from the same store entry; record its count as shown.
          window.__bellSeen[String(a.id)] = {
            at: Date.now(),
            shownCount: bell?.getAttribute('data-count') ?? null,
          }
        }
      }, 20)
    }, stationName)
  const bellSeen = (id) => page.evaluate((key) => window.__bellSeen?.[key] ?? null, String(id))
  const inBell = (id) =>
    page.evaluate((key) => {
      try {
        const list = JSON.parse(localStorage.getItem('pv-alarmList') ?? '{}').content ?? []
        return list.some((a) => String(a.id) === key)
      } catch {
        return false
      }
    }, String(id))

  try {
    await check('alarm rules: a bad rule is refused; short hold and silence are set', async () => {
      if (!(await storedToken().catch(() => null))) await signIn('admin', 'admin')
      const current = (await api('GET', '/api/alarmRule')).data
      for (const field of [
        'temperatureMaxC',
        'gridVoltageMinV',
        'gridVoltageMaxV',
        'gridFrequencyMinHz',
        'gridFrequencyMaxHz',
        'zeroOutputIrradianceWm2',
        'deviceSilenceSeconds',
        'clearHoldSeconds',
        'raiseAfterSamples',
      ]) {
        assert(typeof current[field] === 'number', `GET /api/alarmRule: no ${field}`)
      }
      live.rule = current
      const bad = await rawApi('PUT', '/api/alarmRule', {
        ...current,
        gridVoltageMinV: current.gridVoltageMaxV,
      })
      assert(
        bad.status === 400 && typeof bad.json?.msg === 'string' && bad.json.msg !== '',
        `min = max was not refused with a message: HTTP ${bad.status} ${bad.text.slice(0, 200)}`,
      )
      const zero = await rawApi('PUT', '/api/alarmRule', { ...current, clearHoldSeconds: 0 })
      assert(zero.status === 400, `clearHoldSeconds 0 answered HTTP ${zero.status}`)
      await api('PUT', '/api/alarmRule', {
        ...current,
        clearHoldSeconds: 2,
        deviceSilenceSeconds: 8,
        raiseAfterSamples: 1,
      })
      const after = (await api('GET', '/api/alarmRule')).data
      assert(
        after.clearHoldSeconds === 2 &&
          after.deviceSilenceSeconds === 8 &&
          after.raiseAfterSamples === 1,
        `rules after PUT: ${JSON.stringify(after)}`,
      )
    })

    await check('a simulated inverter without faults feeds a new station', async () => {
      assert(existsSync(edgeBinary), `${edgeBinary} missing (cargo build -p pv-edge)`)
      assert(live.rule, 'the alarm rules were not set')
      live.simPort = Number(process.env.E2E_SIM_PORT) || (await freePort())
      live.station = (
        await api('POST', '/api/station', {
          name: stationName,
          gatewayId: `gw-alarm-${stamp}`,
          latitude: 30.59,
          longitude: 114.31,
        })
      ).data
      await api('POST', '/api/inverter', {
        stationId: live.station,
        name: 'INV-ALARM',
        sn,
        mapModel: 'huawei-sun2000-ktl',
        unitId: 1,
        stringsCount: 8,
        modbusAddress: `tcp://127.0.0.1:${live.simPort}`,
      })
      const issued = await api(
        'POST',
        `/api/station/gateway/credentials?stationId=${live.station}`,
        {},
      )
      writeAgentFiles(
        dir,
        await api('GET', `/api/station/gateway/config?stationId=${live.station}`),
        issued.data.password,
        maps,
      )
      startSimulator()
      // Before the agent reads anything: no faults, sane grid, temperature and status.
      await writeHealthyInverter(writeRegisters)
      children.agent = spawn(edgeBinary, ['run', '--config', join(dir, 'pv-edge.toml')], {
        stdio: 'ignore',
      })
      const shown = Date.now() + 60_000
      for (;;) {
        const list = await api('POST', '/api/inverterReal/list', { sn })
        const row = list.data.records[0]
        if (row?.acPowerKw === 42.5 && row.online) {
          live.inverter = String(row.id)
          break
        }
        assert(Date.now() < shown, `no live value: ${JSON.stringify(row)}`)
        await sleep(500)
      }
      // A few more samples: still no fault alarm for the device.
      await sleep(3000)
      const faults = (await alarmsOf('&category=fault')).records
      assert(faults.length === 0, `fault alarms before any fault: ${JSON.stringify(faults)}`)
    })

    await check(
      `a fault bit raises exactly one alarm, in the bell within ${BELL_WITHIN_MS / 1000} s of the API`,
      async () => {
        assert(live.inverter, 'no live inverter')
        await page.goto(`${baseUrl}/basicFacts/equipmentMap`)
        await page.getByTestId('alarm-bell').waitFor()
        // The feed's first message has arrived (the stored list is the socket's).
        await page.waitForFunction(() => localStorage.getItem('pv-alarmList') !== null, null, {
          timeout,
        })
        // Whatever the station has so far (none expected): the write must add exactly one.
        const before = new Set(await alarmIds())
        await watchBell()
        const written = Date.now()
        await writeRegisters(REG.faultWord1, [1 << FAULT_BIT, 0, 0])
        const added = async () =>
          (await alarmsOf()).records.filter((r) => !before.has(String(r.id)))
        const fresh = await poll(
          async () => {
            const records = await added()
            return records.length > 0 ? records : null
          },
          {
            since: written,
            limitMs: WRITE_TO_BELL_MS,
            message: () => 'no alarm listed by the API',
          },
        )
        const listed = Date.now()
        assert(fresh.length === 1, `${fresh.length} alarms raised: ${JSON.stringify(fresh)}`)
        const record = fresh[0]
        live.alarm = String(record.id)
        const seen = await poll(() => bellSeen(live.alarm), {
          since: listed,
          limitMs: BELL_WITHIN_MS + 3000,
          everyMs: 50,
          message: () =>
            `alarm ${live.alarm} not in the bell ${Date.now() - listed} ms after the API listed it`,
        })
        const lag = seen.at - listed
        assert(lag <= BELL_WITHIN_MS, `the bell showed the alarm ${lag} ms after the API listed it`)
        assert(seen.at - written <= WRITE_TO_BELL_MS, `write → bell took ${seen.at - written} ms`)
        const count = await page.getByTestId('alarm-bell').getAttribute('data-count')
        assert(Number(count) > 0, `bell count ${count}`)
        assert(
          (await page.getByTestId('alarm-bell').getAttribute('data-ringing')) === 'true',
          'the bell does not ring',
        )
        console.log(
          `  # write → API ${listed - written} ms, API → bell ${lag} ms, write → bell ${seen.at - written} ms (bell count ${seen.shownCount})`,
        )
        // The contract's record.
        assert(
          record.type === 1 && record.category === 'fault',
          `record: ${JSON.stringify(record)}`,
        )
        assert(Number(record.status) === 0, `status ${record.status}`)
        assert(record.warningName === FAULT_NAME_ZH, `warningName "${record.warningName}"`)
        assert(record.stationName === stationName, `stationName "${record.stationName}"`)
        assert(
          String(record.deviceId) === live.inverter,
          `deviceId ${record.deviceId}, the inverter is ${live.inverter}`,
        )
        assert(String(record.kind).startsWith('fault:'), `kind "${record.kind}"`)
        // More samples with the same fault touch the open alarm: still one.
        await sleep(3000)
        const again = await added()
        assert(again.length === 1, `${again.length} alarms after more samples`)
        assert(String(again[0].id) === live.alarm, 'a second alarm replaced the first')
        assert(again[0].occurrences >= 1, `occurrences ${again[0].occurrences}`)
      },
    )

    await check(
      'clicking the alarm in the bell opens the alarm data page with its detail',
      async () => {
        assert(live.alarm, 'no alarm')
        await page.getByTestId('alarm-bell').hover()
        const item = page.locator(`[data-testid="alarm-item"][data-alarm-id="${live.alarm}"]`)
        await item.waitFor({ timeout })
        await item.getByText(FAULT_NAME_ZH).first().waitFor()
        const box = await item.boundingBox()
        await item.click()
        // A hand keeps moving after the click: the fading list must not open again over the detail.
        for (let i = 1; i <= 6; i++) {
          await page.mouse.move(box.x + 20 + i * 4, box.y + 10 + i)
          await sleep(30)
        }
        await waitForPath(page, '/intelligentOperation/alarmData')
        const id = new URL(page.url()).searchParams.get('id')
        assert(id === live.alarm, `opened with ?id=${id}`)
        const detail = page.getByTestId(`alarm-detail-${live.alarm}`)
        await detail.waitFor({ timeout })
        await detail.getByText(stationName).first().waitFor()
        await detail.getByText(FAULT_NAME_ZH).first().waitFor()
        await sleep(600)
        assert(
          !(await page.getByTestId('alarm-list').isVisible()),
          'the bell list stays open over the alarm detail',
        )
        await page.screenshot({ path: join(screenshotDir, 'alarm-detail.png') })
      },
    )

    await check(
      'a click in the bell list closes it for good: the hand moving on over where it was leaves the detail uncovered (desktop and 390×844)',
      async () => {
        assert(live.alarm, 'no alarm')
        const size = page.viewportSize() ?? { width: 1280, height: 800 }
        const list = page.getByTestId('alarm-list')
        const detail = page.getByTestId(`alarm-detail-${live.alarm}`)
        // Shown = laid out, not transparent and on screen (a closed drawer keeps its box off screen).
        const listShown = () =>
          list.evaluateAll((els) =>
            els.some((el) => {
              const r = el.getBoundingClientRect()
              return (
                el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) &&
                r.width > 0 &&
                r.height > 0 &&
                r.right > 0 &&
                r.bottom > 0 &&
                r.left < window.innerWidth &&
                r.top < window.innerHeight
              )
            }),
          )
        try {
          for (const viewport of [size, { width: 390, height: 844 }]) {
            const phone = viewport.width < 768
            await page.setViewportSize(viewport)
            await page.goto(`${baseUrl}/`)
            const bell = page.getByTestId('alarm-bell')
            await bell.waitFor({ timeout })
            // A tap opens it on a phone, the pointer resting on the bell elsewhere.
            if (phone) await bell.click()
            else await bell.hover()
            const item = page.locator(`[data-testid="alarm-item"][data-alarm-id="${live.alarm}"]`)
            await item.waitFor({ timeout })
            const area = await list.boundingBox()
            const box = await item.boundingBox()
            const anchor = await bell.boundingBox()
            assert(area && box && anchor, 'no box for the bell, its list or its alarm')
            // The title, left of the item's repair-order action.
            await page.mouse.click(box.x + Math.min(40, box.width / 4), box.y + box.height / 2)
            const clicked = Date.now()
            let closed = 0
            let detailShown = 0
            let reopened = -1
            // At once, the hand keeps moving: up over the fading list to the bell it hangs from
            // (the way back that re-opened it), then inside where the list was, for a second
            // after the list has gone and the detail is up. (Inside the fading list alone no
            // longer re-opens it: antd stops pointer events on a closing popover.)
            for (let i = 1; Date.now() - clicked < 8000; i++) {
              const up = i === 2
              const x = up
                ? anchor.x + anchor.width / 2
                : area.x + 8 + ((i * 37) % Math.max(1, area.width - 16))
              const y = up
                ? anchor.y + anchor.height / 2
                : area.y + 8 + ((i * 23) % Math.max(1, area.height - 16))
              await page.mouse.move(x, y, { steps: 2 })
              const shown = await listShown()
              if (!shown && !closed) closed = Date.now()
              if (shown && closed) {
                reopened = Date.now() - closed
                break
              }
              if (!detailShown && (await detail.isVisible())) detailShown = Date.now()
              if (closed && detailShown && Date.now() - Math.max(closed, detailShown) >= 1000) break
              await sleep(25)
            }
            const label = `${viewport.width}×${viewport.height}`
            assert(
              closed && closed - clicked <= 1500,
              `${label}: the bell list still covers the page ${Date.now() - clicked} ms after the click`,
            )
            assert(
              reopened < 0,
              `${label}: the bell list opened again over the alarm detail ${reopened} ms after it closed`,
            )
            assert(detailShown, `${label}: the alarm detail did not show`)
            assert(!(await listShown()), `${label}: the bell list is open over the alarm detail`)
            await page.screenshot({
              path: join(screenshotDir, `alarm-detail-after-bell-${viewport.width}.png`),
            })
          }
        } finally {
          await page.setViewportSize(size)
        }
      },
    )

    await check('the big screen lists the open alarm live and opens its detail', async () => {
      assert(live.alarm, 'no alarm')
      // A browser that prefers English showing the Chinese console: the big screen's feed names
      // the console's language, not the browser's (its titles were English here). The browser's
      // language is what its websocket handshake carries (extra headers do not reach it).
      const cdp = await page.context().newCDPSession(page)
      const userAgent = await page.evaluate(() => navigator.userAgent)
      const language = (acceptLanguage) =>
        cdp.send('Network.setUserAgentOverride', { userAgent, acceptLanguage })
      const row = page.locator(`[data-testid="bigscreen-alarm"][data-alarm-id="${live.alarm}"]`)
      try {
        await language('en-US,en;q=0.9')
        await page.goto(`${baseUrl}/bigScreen/index`)
        await row.waitFor({ timeout })
        await row.getByText(FAULT_NAME_ZH).first().waitFor()
      } finally {
        await language('zh-CN,zh;q=0.9').catch(() => {})
        await cdp.detach().catch(() => {})
      }
      await page.screenshot({ path: join(screenshotDir, 'bigscreen-alarm.png') })
      await row.click()
      await waitForPath(page, '/intelligentOperation/alarmData')
      await page.getByTestId(`alarm-detail-${live.alarm}`).waitFor({ timeout })
    })

    await check(
      'on a phone (390×844) the alarm list shows name, level and status without a sideways swipe; the serial finds it',
      async () => {
        assert(live.alarm, 'no alarm')
        const size = page.viewportSize() ?? { width: 1280, height: 800 }
        await page.setViewportSize({ width: 390, height: 844 })
        try {
          await page.goto(`${baseUrl}/intelligentOperation/alarmData`)
          // The filters fold behind one button; the serial (any case) finds the alarm.
          await page.getByTestId('alarm-filters-toggle').click()
          await page.getByTestId('alarm-search-keyword').fill(sn.toLowerCase())
          await page.getByTestId('alarm-search').click()
          const row = page.locator(`tr[data-alarm-id="${live.alarm}"]`)
          await row.waitFor({ timeout })
          const rows = await page.locator('[data-testid="alarm-table"] tr[data-alarm-id]').count()
          assert(rows === 1, `${rows} alarms found by the serial ${sn}`)
          await row.getByText(sn).waitFor()
          for (const id of ['alarm-row-name', 'alarm-row-level', 'alarm-row-status']) {
            const box = await row.getByTestId(id).boundingBox()
            assert(
              box && box.x >= 0 && box.x + box.width <= 390,
              `${id} outside the screen: ${JSON.stringify(box)}`,
            )
          }
          const wide = await page.evaluate(() =>
            Math.max(
              document.documentElement.scrollWidth,
              ...[...document.querySelectorAll('.ant-table-content, .ant-table-body')].map(
                (el) => el.scrollWidth - el.clientWidth + 390,
              ),
            ),
          )
          assert(wide <= 390, `the page or table scrolls sideways (${wide} px)`)
          await page.screenshot({ path: join(screenshotDir, 'alarm-list-390.png') })
        } finally {
          await page.setViewportSize(size)
        }
        // Back where the next check starts: the alarm's detail open.
        await page.goto(`${baseUrl}/intelligentOperation/alarmData?id=${live.alarm}`)
        await page.getByTestId(`alarm-detail-${live.alarm}`).waitFor({ timeout })
      },
    )

    await check(
      'acknowledging it with a note in the console records who, when and why',
      async () => {
        assert(live.alarm, 'no alarm')
        await page.getByTestId('alarm-detail-ack').click()
        await page.getByTestId('alarm-handle-note').fill(note)
        const put = page.waitForResponse(
          (r) => new URL(r.url()).pathname === '/api/alarmData' && r.request().method() === 'PUT',
        )
        await page.getByTestId('alarm-handle-ok').click()
        const response = await put
        const sent = JSON.parse(response.request().postData() ?? '{}')
        assert(
          String(sent.id) === live.alarm && sent.action === 'ack' && sent.note === note,
          `sent ${JSON.stringify(sent)}`,
        )
        const body = await response.json()
        assert(body.code === 200, `PUT /api/alarmData: ${JSON.stringify(body)}`)
        await page.getByText('告警已确认').first().waitFor()
        const detail = page.getByTestId(`alarm-detail-${live.alarm}`)
        await page
          .locator(`[data-testid="alarm-detail-${live.alarm}"][data-status="1"]`)
          .waitFor({ timeout })
        await detail.getByTestId('alarm-detail-ack-note').getByText(note).waitFor()
        const stored = (await api('GET', `/api/alarmData/${live.alarm}`)).data
        assert(Number(stored.status) === 1, `status ${stored.status}`)
        assert(stored.ackNote === note, `ackNote "${stored.ackNote}"`)
        assert(stored.ackUserName && stored.ackTime, `ack user/time: ${JSON.stringify(stored)}`)
        // Acknowledged alarms leave the bell (it lists open, status 0, alarms).
        const gone = Date.now() + timeout
        while (await inBell(live.alarm)) {
          assert(Date.now() < gone, 'the acknowledged alarm is still in the bell')
          await sleep(200)
        }
        await page.screenshot({ path: join(screenshotDir, 'alarm-acknowledged.png') })
      },
    )

    await check('writing the fault register back to 0 clears the alarm automatically', async () => {
      assert(live.alarm, 'no alarm')
      const written = Date.now()
      await writeRegisters(REG.faultWord1, [0, 0, 0])
      let stored
      for (;;) {
        stored = (await api('GET', `/api/alarmData/${live.alarm}`)).data
        if (Number(stored.status) === 2) break
        assert(Date.now() - written < 60_000, `not cleared: ${JSON.stringify(stored)}`)
        await sleep(500)
      }
      assert(stored.clearTime, 'no clearTime')
      assert(stored.clearUserName === '系统', `clearUserName "${stored.clearUserName}"`)
      assert(stored.ackNote === note, 'clearing lost the acknowledgement note')
      // The console shows it cleared, by the system.
      await page.goto(`${baseUrl}/intelligentOperation/alarmData?id=${live.alarm}`)
      await page
        .locator(`[data-testid="alarm-detail-${live.alarm}"][data-status="2"]`)
        .waitFor({ timeout })
      await page.getByTestId('alarm-detail-clear-user').getByText('系统').waitFor()
      const open = await alarmsOf('&category=fault&status=0')
      assert(open.total === 0, `open fault alarms after clearing: ${open.total}`)
    })

    await check('a device that stops answering raises a communication alarm', async () => {
      assert(live.inverter, 'no live inverter')
      const silence = 8
      children.sim?.kill('SIGTERM')
      children.sim = null
      const stopped = Date.now()
      const comm = await poll(
        async () =>
          (await alarmsOf('&category=comm')).records.find((r) => Number(r.status) === 0) ?? null,
        {
          since: stopped,
          limitMs: (silence + 60) * 1000,
          everyMs: 1000,
          message: () =>
            `no communication alarm ${Math.round((Date.now() - stopped) / 1000)} s after the simulator stopped`,
        },
      )
      console.log(`  # communication alarm ${Date.now() - stopped} ms after the simulator stopped`)
      assert(
        String(comm.deviceId) === live.inverter,
        `comm alarm names device ${comm.deviceId} (${comm.deviceKind}), not the inverter`,
      )
      assert(comm.type === 1, `type ${comm.type}`)
      // Listed on the alarm data page and opened by id.
      await page.goto(`${baseUrl}/intelligentOperation/alarmData?id=${comm.id}`)
      const detail = page.getByTestId(`alarm-detail-${comm.id}`)
      await detail.waitFor({ timeout })
      await detail.getByText('通信中断').first().waitFor()
      await page.screenshot({ path: join(screenshotDir, 'alarm-comm.png') })
    })
  } finally {
    children.sim?.kill('SIGTERM')
    children.agent?.kill('SIGTERM')
    if (live.rule) await api('PUT', '/api/alarmRule', live.rule).catch(() => {})
    await page.evaluate(() => window.clearInterval(window.__bellWatch)).catch(() => {})
    rmSync(dir, { recursive: true, force: true })
  }
}
