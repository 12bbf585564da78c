/**
 * Operations and maintenance end to end (issue 16, contract `om-contract.md` "Repair"): a fault
 * alarm from a simulated inverter becomes a repair order in one click in the console, is assigned
 * to a maintenance user, who — signed in on a 390×844 phone viewport — accepts, starts and finishes
 * it with a photo (a real PNG through the camera file input); the fault clears in the simulator
 * (the order moves on to "to be evaluated"), the station's owner evaluates it on the phone, the
 * order completes and the alarm is closed. Every phone page is checked for horizontal overflow
 * (document width ≤ 390 px) and photographed (om-phone-*.png).
 *
 * The station, its simulated Huawei inverter (`pv-edge simulate`) and a real edge agent
 * (`pv-edge run`) are provisioned as in `alarm.mjs`; the maintenance user (role alias
 * `maintenance`) and the owner (`saveOwner`, role `owner`) are created through the API with the
 * station assigned, and their roles are granted the repair menu's buttons they need (added to
 * whatever those roles already hold).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { deflateSync } from 'node:zlib'
import { chromium } from 'playwright-core'
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
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium'

const PHONE = { width: 390, height: 844 }
const PASSWORD = 'Om2026pass'

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

const freePort = () =>
  new Promise((ok, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => ok(port))
    })
  })

/** A real 16×16 PNG (an orange square): signature, IHDR, IDAT, IEND with their CRCs. */
function samplePng() {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  const crc = (buf) => {
    let c = 0xffffffff
    for (const b of buf) c = table[(c ^ b) & 0xff] ^ (c >>> 8)
    return (c ^ 0xffffffff) >>> 0
  }
  const chunk = (type, data) => {
    const head = Buffer.alloc(4)
    head.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
    const tail = Buffer.alloc(4)
    tail.writeUInt32BE(crc(body))
    return Buffer.concat([head, body, tail])
  }
  const size = 16
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(size, 0)
  ihdr.writeUInt32BE(size, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 2 // RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(size * 3, Buffer.from([250, 140, 22]))])
  const raw = Buffer.concat(Array.from({ length: size }, () => row))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

export async function omChecks(t) {
  const { page, baseUrl, screenshotDir, check, assert, waitForPath, timeout } = t
  const { signIn, storedToken } = t
  const stamp = Date.now().toString(36)
  const sn = `OM${stamp}`.toUpperCase()
  const stationName = `运维电站${stamp}`
  const dir = mkdtempSync(join(tmpdir(), 'pv-e2e-om-'))
  const photo = join(dir, 'repair-photo.png')
  writeFileSync(photo, samplePng())
  const children = { sim: null, agent: null }
  const phone = { browser: null, context: null, page: null }
  const live = {
    station: '',
    inverter: '',
    simPort: 0,
    alarm: '',
    order: '',
    rule: null,
    maintenance: { account: `om${stamp}m`.slice(0, 16), id: '', name: `维修工${stamp}` },
    owner: { account: `om${stamp}o`.slice(0, 16), id: '', name: `业主${stamp}` },
  }

  /** A JSON call as `token` (default: the console's admin); rejects unless HTTP and body 200. */
  const api = async (method, path, body, token) => {
    const bearer = token ?? (await storedToken())
    const r = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'Blade-Auth': `bearer ${bearer}`, 'Content-Type': 'application/json' },
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

  const writeRegisters = registerWriter(edgeBinary, () => live.simPort, timeout)

  /** Waits until `probe` answers something truthy (checked every `everyMs`). */
  const until = async (probe, limitMs, message, everyMs = 500) => {
    const end = Date.now() + limitMs
    for (;;) {
      const value = await probe()
      if (value) return value
      if (Date.now() > end) throw new Error(message())
      await sleep(everyMs)
    }
  }

  const order = async () => (await api('GET', `/api/repair/${live.order}`)).data
  const alarm = async () => (await api('GET', `/api/alarmData/${live.alarm}`)).data

  /** Every menu id under (and including) the node titled `title` in the grant tree. */
  const grantTree = async () => (await api('GET', '/api/blade-system/menu/grant-tree')).data.menu
  const findNode = (nodes, title) => {
    for (const n of nodes ?? []) {
      if (n.title === title) return n
      const found = findNode(n.children, title)
      if (found) return found
    }
    return null
  }
  /**
   * Adds the repair menu (its group, the menu, the named buttons) and the other menus of the group
   * named in `menus` to the role's menus.
   */
  const grantRepair = async (roleId, buttons, menus = []) => {
    const tree = await grantTree()
    const group = findNode(tree, '智能运维')
    const repair = findNode(group?.children, '维修工单')
    assert(group && repair, 'no 智能运维 / 维修工单 in the grant tree')
    const wanted = [group.id, repair.id]
    for (const title of menus) {
      const menu = findNode(group.children, title)
      assert(menu, `no menu ${title} under 智能运维`)
      wanted.push(menu.id)
    }
    for (const title of buttons) {
      const button = (repair.children ?? []).find((c) => c.title === title)
      assert(button, `no button ${title} under 维修工单`)
      wanted.push(button.id)
    }
    const held = (await api('GET', `/api/blade-system/menu/role-tree-keys?roleIds=${roleId}`)).data
    const menuIds = [...new Set([...(held?.menu ?? []), ...wanted].map(String))]
    await api('POST', '/api/blade-system/role/grant', { roleIds: [String(roleId)], menuIds })
  }
  /** The tenant's role with `alias` (created when missing). */
  const roleByAlias = async (alias, name) => {
    const flat = (nodes) => (nodes ?? []).flatMap((n) => [n, ...flat(n.children)])
    const find = async () =>
      flat((await api('GET', '/api/blade-system/role/list?tenantId=000000')).data).find(
        (r) => r.roleAlias === alias && (r.tenantId ?? '000000') === '000000',
      )
    let role = await find()
    if (!role) {
      await api('POST', '/api/blade-system/role/submit', {
        tenantId: '000000',
        roleName: name,
        roleAlias: alias,
        parentId: '0',
        sort: 90,
      })
      role = await find()
    }
    assert(role, `role ${alias} not found after creating it`)
    return String(role.id)
  }

  /** The document is no wider than the phone's screen. */
  const noOverflow = async (p, where) => {
    const width = await p.evaluate(() => document.documentElement.scrollWidth)
    assert(
      width <= PHONE.width,
      `${where}: the page is ${width} px wide on a ${PHONE.width} px screen`,
    )
  }
  const shoot = (p, name) => p.screenshot({ path: join(screenshotDir, name) })

  /** Signs `account` in on the phone page (a context of its own, zh). */
  const phoneSignIn = async (account) => {
    const p = phone.page
    await p.goto(`${baseUrl}/login`)
    await p.evaluate(() => localStorage.clear())
    const captcha = p.waitForResponse((r) => r.url().includes('/api/blade-auth/oauth/captcha'))
    await p.reload()
    const answer = (await (await captcha).json()).answer
    assert(typeof answer === 'string', 'the e2e hub does not expose the captcha answer')
    await p.getByTestId('login-submit').waitFor()
    await p.waitForFunction(
      () => !document.querySelector('[data-testid="login-submit"]')?.hasAttribute('disabled'),
    )
    const tenant = p.getByTestId('login-tenant')
    if (await tenant.isVisible()) await tenant.fill('000000')
    await p.getByTestId('login-account').fill(account)
    await p.getByTestId('login-password').fill(PASSWORD)
    await p.getByTestId('login-captcha').fill(answer)
    const token = p.waitForResponse((r) => r.url().includes('/api/blade-auth/oauth/token'))
    await p.getByTestId('login-submit').click()
    const response = await token
    assert(response.status() === 200, `sign-in of ${account}: HTTP ${response.status()}`)
    await p.waitForURL((url) => url.pathname === '/basicFacts/equipmentMap', { timeout })
    await p.getByTestId('menu-drawer-toggle').waitFor()
  }

  /** Clicks the phone's action button, confirms its dialog (after `fill`), waits for the status. */
  const phoneAct = async (action, status, fill) => {
    const p = phone.page
    const bar = p.getByTestId('repair-actions')
    await bar.getByTestId(`repair-do-${action}`).click()
    const dialog = p.getByTestId(`repair-action-${action}-dialog`)
    await p.getByTestId('repair-action-ok').waitFor()
    if (fill) await fill(p)
    const call = p.waitForResponse(
      (r) =>
        new URL(r.url()).pathname === `/api/repair/${action}` && r.request().method() === 'POST',
    )
    await p.getByTestId('repair-action-ok').click()
    const body = await (await call).json()
    assert(body.code === 200, `POST /api/repair/${action}: ${JSON.stringify(body).slice(0, 300)}`)
    await p
      .locator(`[data-testid="repair-detail-${live.order}"][data-status="${status}"]`)
      .waitFor({ timeout })
    await dialog.waitFor({ state: 'hidden' }).catch(() => {})
    return body.data
  }

  try {
    await check(
      'O&M: a station with a simulated inverter, a maintenance user and an owner',
      async () => {
        if (!(await storedToken().catch(() => null))) await signIn('admin', 'admin')
        assert(existsSync(edgeBinary), `${edgeBinary} missing (cargo build -p pv-edge)`)
        live.rule = (await api('GET', '/api/alarmRule')).data
        await api('PUT', '/api/alarmRule', {
          ...live.rule,
          clearHoldSeconds: 2,
          raiseAfterSamples: 1,
          deviceSilenceSeconds: Math.max(live.rule.deviceSilenceSeconds, 60),
        })
        live.simPort = await freePort()
        live.station = String(
          (
            await api('POST', '/api/station', {
              name: stationName,
              gatewayId: `gw-om-${stamp}`,
              latitude: 30.59,
              longitude: 114.31,
            })
          ).data,
        )
        await api('POST', '/api/inverter', {
          stationId: live.station,
          name: 'INV-OM',
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
        children.sim = startHuaweiSimulator(edgeBinary, maps, live.simPort)
        await writeHealthyInverter(writeRegisters)
        children.agent = spawn(edgeBinary, ['run', '--config', join(dir, 'pv-edge.toml')], {
          stdio: 'ignore',
        })
        live.inverter = await until(
          async () => {
            const row = (await api('POST', '/api/inverterReal/list', { sn })).data.records[0]
            return row?.online && row.acPowerKw === 42.5 ? String(row.id) : null
          },
          60_000,
          () => 'the simulated inverter never showed live',
        )

        // People: a maintenance user and an owner, both given the station.
        const admin = (
          await api('GET', '/api/blade-user/page?current=1&size=10&account=admin')
        ).data.records.find((u) => u.account === 'admin')
        assert(admin?.deptId, `admin's department: ${JSON.stringify(admin)}`)
        const maintenanceRole = await roleByAlias('maintenance', '运维人员')
        await grantRepair(
          maintenanceRole,
          ['查看', '受理', '转派', '开始维修', '完成维修'],
          ['告警数据'],
        )
        await api('POST', '/api/blade-user/submit', {
          account: live.maintenance.account,
          password: PASSWORD,
          password2: PASSWORD,
          realName: live.maintenance.name,
          roleId: maintenanceRole,
          deptId: String(admin.deptId).split(',')[0],
        })
        const staff = (await api('GET', '/api/blade-user/listMaintenance')).data
        const staffList = Array.isArray(staff) ? staff : (staff?.records ?? [])
        const m = staffList.find((u) => u.account === live.maintenance.account)
        assert(m, `${live.maintenance.account} is not listed as maintenance staff`)
        live.maintenance.id = String(m.id)
        live.owner.id = String(
          (
            await api('POST', '/api/blade-user/saveOwner', {
              account: live.owner.account,
              realName: live.owner.name,
              phone: `139${String(Date.now()).slice(-8)}`,
              password: PASSWORD,
            })
          ).data,
        )
        await grantRepair(await roleByAlias('owner', '业主'), ['查看', '评价'])
        for (const userId of [live.maintenance.id, live.owner.id]) {
          await api('POST', '/api/station/updateUserStation', {
            userId,
            stationIds: [live.station],
          })
        }
      },
    )

    await check(
      'a fault raises an alarm; one click on its detail creates the repair order',
      async () => {
        assert(live.inverter && live.maintenance.id, 'no site')
        await writeRegisters(REG.faultWord1, [1 << FAULT_BIT, 0, 0])
        const raised = await until(
          async () =>
            (
              await api(
                'GET',
                `/api/alarmData/page?current=1&size=10&stationId=${live.station}&category=fault`,
              )
            ).data.records.find((r) => Number(r.status) === 0),
          60_000,
          () => 'no fault alarm',
        )
        live.alarm = String(raised.id)
        assert(raised.warningName === FAULT_NAME_ZH, `alarm ${raised.warningName}`)
        assert(!raised.repairId, `a new alarm has an order: ${raised.repairId}`)
        await page.goto(`${baseUrl}/intelligentOperation/alarmData?id=${live.alarm}`)
        const detail = page.getByTestId(`alarm-detail-${live.alarm}`)
        await detail.waitFor({ timeout })
        const create = page.waitForResponse(
          (r) => new URL(r.url()).pathname === '/api/repair' && r.request().method() === 'POST',
        )
        await page.getByTestId('alarm-create-order').click()
        const created = await (await create).json()
        assert(created.code === 200, `POST /api/repair: ${JSON.stringify(created).slice(0, 300)}`)
        assert(
          JSON.parse((await create).request().postData() ?? '{}').alarmId === live.alarm,
          'the order was not created from the alarm',
        )
        live.order = String(created.data.id)
        await waitForPath(page, '/intelligentOperation/repair-detail')
        assert(new URL(page.url()).searchParams.get('id') === live.order, `opened ${page.url()}`)
        await page.locator(`[data-testid="repair-detail-${live.order}"][data-status="1"]`).waitFor()
        const o = await order()
        assert(String(o.alarmId) === live.alarm, `order alarmId ${o.alarmId}`)
        assert(String(o.stationId) === live.station, `order station ${o.stationId}`)
        assert(String(o.deviceId) === live.inverter, `order device ${o.deviceId}`)
        assert(String(o.source) === '2', `order source ${o.source}`)
        const linked = await alarm()
        assert(String(linked.repairId) === live.order, `alarm repairId ${linked.repairId}`)
        await page.screenshot({ path: join(screenshotDir, 'om-order-created.png') })
        // A second click on the alarm opens the same order (one open order per alarm).
        await page.goto(`${baseUrl}/intelligentOperation/alarmData?id=${live.alarm}`)
        const link = page.getByTestId(`alarm-detail-${live.alarm}`).getByTestId('alarm-order-link')
        await link.waitFor({ timeout })
        await page
          .getByTestId(`alarm-detail-${live.alarm}`)
          .getByTestId('alarm-order-status')
          .getByText('已提交')
          .waitFor()
      },
    )

    await check('the dispatcher assigns it to the maintenance user in the console', async () => {
      assert(live.order, 'no order')
      await page.goto(`${baseUrl}/intelligentOperation/repair-detail?id=${live.order}`)
      await page.getByTestId('repair-do-assign').click()
      const select = page.getByTestId('repair-action-user')
      await select.click()
      const option = page
        .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
        .filter({ hasText: live.maintenance.account })
        .first()
      await option.click()
      const call = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/repair/assign')
      await page.getByTestId('repair-action-ok').click()
      const body = await (await call).json()
      assert(body.code === 200, `assign: ${JSON.stringify(body).slice(0, 300)}`)
      await page.locator(`[data-testid="repair-detail-${live.order}"][data-status="2"]`).waitFor()
      await page.getByTestId('repair-assignee').getByText(live.maintenance.name).waitFor()
      assert(String((await order()).assigneeId) === live.maintenance.id, 'assignee not stored')
    })

    await check(
      'the maintenance user, on a 390×844 phone, sees the work in the bell and accepts',
      async () => {
        assert(live.order, 'no order')
        phone.browser = await chromium.launch({
          executablePath,
          headless: true,
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        })
        phone.context = await phone.browser.newContext({
          viewport: PHONE,
          deviceScaleFactor: 2,
          isMobile: true,
          hasTouch: true,
          locale: 'zh-CN',
        })
        phone.page = await phone.context.newPage()
        phone.page.setDefaultTimeout(timeout)
        const p = phone.page
        await phoneSignIn(live.maintenance.account)
        await p.getByTestId('repair-kpis').waitFor()
        await noOverflow(p, 'home')
        await shoot(p, 'om-phone-home.png')
        // The assignment is a work message in the bell; tapping it opens the order.
        const bell = p.getByTestId('alarm-bell')
        await until(
          async () => Number(await bell.getAttribute('data-work-count')) > 0,
          timeout,
          () => 'no work item in the bell',
          300,
        )
        await bell.click()
        await p.getByTestId('bell-tab-work').click()
        const item = p.locator(`[data-testid="work-item"][data-biz-id="${live.order}"]`).first()
        await item.waitFor({ timeout })
        await shoot(p, 'om-phone-bell.png')
        await noOverflow(p, 'bell')
        await item.click()
        await p.waitForURL((url) => url.pathname === '/intelligentOperation/repair-detail', {
          timeout,
        })
        await p.locator(`[data-testid="repair-detail-${live.order}"][data-status="2"]`).waitFor()
        await noOverflow(p, 'repair detail')
        const bar = p.getByTestId('repair-actions')
        const position = await bar.evaluate((el) => getComputedStyle(el).position)
        assert(position === 'sticky', `action bar position ${position}`)
        const box = await bar.getByTestId('repair-do-accept').boundingBox()
        assert(box && box.height >= 44, `accept button ${box?.height} px high`)
        await phoneAct('accept', 3)
        await shoot(p, 'om-phone-accept.png')
      },
    )

    await check('on the phone: start, then finish with the work done and a photo', async () => {
      const p = phone.page
      assert(p, 'no phone')
      await phoneAct('start', 4)
      await shoot(p, 'om-phone-start.png')
      const finished = await phoneAct('finish', 5, async () => {
        await p.getByTestId('repair-action-work').fill(`更换直流保险丝 ${stamp}`)
        await p.getByTestId('repair-action-parts').fill('保险丝 15A ×2')
        const upload = p.waitForResponse((r) =>
          r.url().includes('/api/blade-resource/oss/endpoint/put-image'),
        )
        await p.getByTestId('repair-finish-photos-input').setInputFiles(photo)
        const uploaded = await (await upload).json()
        assert(uploaded.code === 200, `put-image: ${JSON.stringify(uploaded).slice(0, 300)}`)
        await p.locator('[data-testid="repair-finish-photos"][data-count="1"]').waitFor()
        await noOverflow(p, 'finish dialog')
        await shoot(p, 'om-phone-finish-form.png')
      })
      assert(
        finished.finishPhotos?.length === 1,
        `finishPhotos ${JSON.stringify(finished.finishPhotos)}`,
      )
      assert(finished.workDone.includes(stamp), `workDone ${finished.workDone}`)
      // The alarm's fault is still there: the order waits at "repaired".
      assert(Number(finished.status) === 5, `status after finish ${finished.status}`)
      await p.getByTestId('repair-finish-photos-view').waitFor()
      await noOverflow(p, 'repair detail (finished)')
      await shoot(p, 'om-phone-finish.png')
      // The repair list and the alarm list fit the phone too.
      await p.goto(`${baseUrl}/intelligentOperation/repair`)
      await p.locator(`[data-testid="repair-card"][data-repair-id="${live.order}"]`).waitFor()
      await noOverflow(p, 'repair list')
      await shoot(p, 'om-phone-repair-list.png')
      await p.goto(`${baseUrl}/intelligentOperation/alarmData`)
      await p.getByTestId('alarm-table').waitFor()
      await noOverflow(p, 'alarm list')
      await shoot(p, 'om-phone-alarm-list.png')
      await p.getByTestId('menu-drawer-toggle').click()
      await p.getByTestId('menu-drawer').getByTestId('side-menu').waitFor()
      await shoot(p, 'om-phone-menu.png')
      await noOverflow(p, 'menu drawer')
    })

    await check(
      'the fault clears in the simulator: the order awaits evaluation, the alarm stays open',
      async () => {
        assert(live.order, 'no order')
        await writeRegisters(REG.faultWord1, [0, 0, 0])
        const o = await until(
          async () => {
            const now = await order()
            return Number(now.status) === 6 ? now : null
          },
          60_000,
          () => 'the order did not move to "to be evaluated" after the fault cleared',
        )
        assert(
          o.logs.some((l) => l.action === 'verify'),
          `timeline: ${JSON.stringify(o.logs)}`,
        )
        const a = await alarm()
        assert(Number(a.status) !== 2, 'the alarm closed before the order completed')
      },
    )

    await check(
      'the owner evaluates on the phone: the order completes and the alarm is closed',
      async () => {
        const p = phone.page
        assert(p && live.order, 'no phone or order')
        await phoneSignIn(live.owner.account)
        await p.goto(`${baseUrl}/intelligentOperation/repair-detail?id=${live.order}`)
        await p.locator(`[data-testid="repair-detail-${live.order}"][data-status="6"]`).waitFor()
        await noOverflow(p, 'repair detail (owner)')
        await phoneAct('evaluate', 7, async () => {
          // Five stars, read back: a click while the dialog was still zooming in set none.
          const rating = p.getByTestId('repair-action-rating')
          for (let tries = 0; ; tries++) {
            await rating.locator('.ant-rate-star').nth(4).click()
            const full = await rating
              .locator('.ant-rate-star-full')
              .nth(4)
              .waitFor({ timeout: 1500 })
              .then(() => true)
              .catch(() => false)
            if (full) break
            assert(tries < 2, 'the fifth star does not stay chosen')
          }
          await p.getByTestId('repair-action-comment').fill('处理及时')
          await shoot(p, 'om-phone-evaluate-form.png')
        })
        await p.getByTestId('repair-rating').waitFor()
        await shoot(p, 'om-phone-evaluate.png')
        const o = await order()
        assert(
          Number(o.status) === 7 && Number(o.rating) === 5,
          `order ${o.status} rating ${o.rating}`,
        )
        const closed = await until(
          async () => {
            const a = await alarm()
            return Number(a.status) === 2 ? a : null
          },
          timeout,
          () => 'the alarm was not closed when the order completed',
        )
        assert(String(closed.clearNote ?? '').includes(o.code), `clear note "${closed.clearNote}"`)
        await page.goto(`${baseUrl}/intelligentOperation/alarmData?id=${live.alarm}`)
        const detail = page.locator(`[data-testid="alarm-detail-${live.alarm}"][data-status="2"]`)
        await detail.waitFor({ timeout })
        await detail.getByTestId('alarm-order-status').getByText('已完成').waitFor()
        await page.screenshot({ path: join(screenshotDir, 'om-alarm-closed.png') })
      },
    )
  } finally {
    children.sim?.kill('SIGTERM')
    children.agent?.kill('SIGTERM')
    if (live.rule) await api('PUT', '/api/alarmRule', live.rule).catch(() => {})
    await phone.browser?.close().catch(() => {})
    rmSync(dir, { recursive: true, force: true })
  }
}
