/**
 * Workflow in the browser (issue 27): the admin opens the seeded repair approval in the modeler
 * (bpmn-js, its watermark visible; the palette offers only the subset), adds a second approver by
 * dropping a user task from the palette onto the flow after the first approval, names the
 * reviewer in the properties panel and deploys. Two repair orders from a simulated inverter's
 * fault alarm (one through `alarmId`, one by hand; both critical, the maintainer named) wait in
 * the admin's 待签 list (the station's dispatchers are the first candidates); the admin claims
 * them and approves both from 待办; the diagram in 流程跟踪 then shows the first approval green
 * and the reviewer's task primary. The reviewer, signed in in a second browser, approves the
 * first (the maintainer gets it) and rejects the second with a comment, which its order page
 * shows.
 *
 * The station, simulated inverter (`pv-edge simulate`) and edge agent are provisioned as in
 * `om.mjs`; the fault bit is set before the agent starts, so the alarm is raised on its first
 * reading while the modeler is worked.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium } from 'playwright-core'
import { writeAgentFiles } from './agent-config.mjs'
import {
  FAULT_BIT,
  REG,
  registerWriter,
  startHuaweiSimulator,
  writeHealthyInverter,
} from './huawei-sim.mjs'

const repo = resolve(import.meta.dirname, '..', '..')
const edgeBinary = join(repo, 'target', 'debug', 'pv-edge')
const maps = join(repo, 'firmware-configs')
const defaults = join(repo, 'cloud', 'src', 'flow', 'defaults')
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium'
const PASSWORD = 'Flow2026pass'

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

export async function flowChecks(t) {
  const { page, baseUrl, check, assert, signIn, storedToken, timeout } = t
  const stamp = Date.now().toString(36)
  const sn = `FL${stamp}`.toUpperCase()
  const dir = mkdtempSync(join(tmpdir(), 'pv-e2e-flow-'))
  const children = { sim: null, agent: null }
  const second = { browser: null, page: null }
  const live = {
    station: '',
    simPort: 0,
    rule: null,
    alarm: '',
    approved: '',
    rejected: '',
    instance: '',
    maintainer: { account: `fl${stamp}m`.slice(0, 16), id: '' },
    reviewer: { account: `fl${stamp}r`.slice(0, 16), id: '' },
  }

  /** A JSON call as the console's admin; rejects unless HTTP and body 200. */
  const api = async (method, path, body) => {
    const r = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        'Blade-Auth': `bearer ${await storedToken()}`,
        'Content-Type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await r.text()
    if (!r.ok) throw new Error(`${method} ${path}: HTTP ${r.status} ${text.slice(0, 300)}`)
    if (path.includes('/gateway/config')) return text
    const json = JSON.parse(text)
    if (json?.code !== 200) throw new Error(`${method} ${path}: ${text.slice(0, 300)}`)
    return json
  }
  const writeRegisters = registerWriter(edgeBinary, () => live.simPort, timeout)
  const until = async (probe, limitMs, message) => {
    const end = Date.now() + limitMs
    for (;;) {
      const value = await probe()
      if (value) return value
      if (Date.now() > end) throw new Error(message())
      await sleep(300)
    }
  }
  const order = async (id) => (await api('GET', `/api/repair/${id}`)).data

  /**
   * On page `p`'s 我的事务: claims the tasks of the orders titled in `work` that are offered, then
   * completes each from 待办 with its comment, approving or rejecting.
   */
  const handle = async (p, work) => {
    const listed = (name) =>
      p.waitForResponse((r) => new URL(r.url()).pathname === `/api/blade-flow/work/${name}`)
    const lists = [listed('todo-list'), listed('claim-list')]
    await p.goto(`${baseUrl}/work`)
    const [todos] = await Promise.all(lists)
    const mine = (await todos.json()).data.records.map((w) => w.title)
    const offered = work.filter(([title]) => !mine.includes(title))
    if (offered.length > 0) {
      await p.getByRole('tab', { name: '待签事务' }).click()
      for (const [title] of offered) {
        const row = p.locator('[data-testid="work-claim"] tr', { hasText: title })
        await row.getByRole('button', { name: /签\s*收/ }).click()
        await row.waitFor({ state: 'detached', timeout })
      }
      await p.getByRole('tab', { name: '待办事务' }).click()
    }
    for (const [title, comment, approve] of work) {
      const row = p.locator('[data-testid="work-todo"] tr', { hasText: title })
      await row.getByRole('button', { name: /办\s*理/ }).click()
      await p.getByPlaceholder('审批意见').fill(comment)
      const done = p.waitForResponse((r) => r.url().includes('/api/blade-flow/work/complete-task'))
      await p.getByRole('button', { name: approve ? /同\s*意/ : /驳\s*回/ }).click()
      const body = await (await done).json()
      assert(body.code === 200, `complete-task: ${JSON.stringify(body).slice(0, 300)}`)
      await row.waitFor({ state: 'detached', timeout })
    }
  }

  try {
    await check(
      'flow: a station whose simulated inverter is faulted, a maintainer and a reviewer',
      async () => {
        if (!(await storedToken().catch(() => null))) await signIn('admin', 'admin')
        assert(existsSync(edgeBinary), `${edgeBinary} missing (cargo build -p pv-edge)`)
        live.rule = (await api('GET', '/api/alarmRule')).data
        await api('PUT', '/api/alarmRule', {
          ...live.rule,
          raiseAfterSamples: 1,
          deviceSilenceSeconds: Math.max(live.rule.deviceSilenceSeconds, 60),
        })
        live.simPort = await freePort()
        live.station = String(
          (
            await api('POST', '/api/station', {
              name: `流程电站${stamp}`,
              gatewayId: `gw-flow-${stamp}`,
              latitude: 30.5,
              longitude: 114.3,
            })
          ).data,
        )
        await api('POST', '/api/inverter', {
          stationId: live.station,
          name: 'INV-FLOW',
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
        await writeRegisters(REG.faultWord1, [1 << FAULT_BIT, 0, 0])
        children.agent = spawn(edgeBinary, ['run', '--config', join(dir, 'pv-edge.toml')], {
          stdio: 'ignore',
        })

        const admin = (
          await api('GET', '/api/blade-user/page?current=1&size=10&account=admin')
        ).data.records.find((u) => u.account === 'admin')
        const deptId = String(admin.deptId).split(',')[0]
        const flat = (nodes) => (nodes ?? []).flatMap((n) => [n, ...flat(n.children)])
        let roles = flat((await api('GET', '/api/blade-system/role/list?tenantId=000000')).data)
        const roleOf = (alias) =>
          roles.find((r) => r.roleAlias === alias && (r.tenantId ?? '000000') === '000000')
        if (!roleOf('maintenance')) {
          // Being assignable takes only the role (alias `maintenance`) and the station.
          await api('POST', '/api/blade-system/role/submit', {
            tenantId: '000000',
            roleName: '运维人员',
            roleAlias: 'maintenance',
            parentId: '0',
            sort: 90,
          })
          roles = flat((await api('GET', '/api/blade-system/role/list?tenantId=000000')).data)
        }
        const maintenance = roleOf('maintenance')
        assert(maintenance, 'no maintenance role')
        // The reviewer: another administrator of the tenant (the 我的事务 page is in their menu).
        for (const [who, role] of [
          [live.maintainer, maintenance],
          [live.reviewer, roleOf('administrator') ?? roleOf('admin')],
        ]) {
          assert(role, `no role for ${who.account}`)
          await api('POST', '/api/blade-user/submit', {
            account: who.account,
            password: PASSWORD,
            password2: PASSWORD,
            realName: who.account,
            roleId: String(role.id),
            deptId,
          })
          const found = (
            await api('GET', `/api/blade-user/page?current=1&size=10&account=${who.account}`)
          ).data.records.find((u) => u.account === who.account)
          who.id = String(found.id)
          await api('POST', '/api/station/updateUserStation', {
            userId: who.id,
            stationIds: [live.station],
          })
        }
      },
    )

    await check(
      '流程模型: the modeler offers only the subset; a second approver is added and deployed',
      async () => {
        assert(live.reviewer.id, 'no reviewer')
        // From the seeded default (a rerun on the same hub finds the previous run's change).
        const models = (await api('GET', '/api/blade-flow/model/list?modelKey=repair_approval'))
          .data.records
        const model = models.find((m) => m.modelKey === 'repair_approval')
        assert(model, 'repair_approval is not seeded')
        const seeded = readFileSync(join(defaults, 'repair_approval.bpmn'), 'utf8')
        if (model.xml !== seeded)
          await api('POST', '/api/blade-flow/model/submit', { ...model, xml: seeded })
        await page.goto(`${baseUrl}/flow/model`)
        const row = page.locator('[data-testid="flow-models"] tr', { hasText: 'repair_approval' })
        await row.waitFor({ timeout })
        await row.getByRole('button', { name: /设\s*计/ }).click()
        const modeler = page.getByTestId('flow-modeler')
        await modeler.locator('[data-element-id="manager_approval"]').waitFor({ timeout })
        assert(await page.locator('.bjs-powered-by').isVisible(), 'the bpmn-js watermark is hidden')
        const palette = modeler.locator('.djs-palette .entry')
        const offered = await palette.evaluateAll((els) => els.map((e) => e.dataset.action))
        for (const gone of ['create.task', 'create.subprocess-expanded', 'create.data-object'])
          assert(!offered.includes(gone), `the palette offers ${gone}`)
        // The new user task dropped on the flow first approval → verdict splits it in two.
        // The dialog zooms in as it opens: measure once the diagram has stopped moving.
        const box = () => modeler.locator('[data-element-id="manager_approval"]').boundingBox()
        let first = await box()
        for (let still = 0; still < 2;) {
          await sleep(100)
          const now = await box()
          still = now.x === first.x && now.width === first.width ? still + 1 : 0
          first = now
        }
        const verdict = await modeler.locator('[data-element-id="verdict"]').boundingBox()
        await modeler.locator('.djs-palette [data-action="create.user-task"]').click()
        const x = (first.x + first.width + verdict.x) / 2
        const y = first.y + first.height / 2
        await page.mouse.move(x - 40, y + 30)
        await page.mouse.move(x, y, { steps: 5 })
        await page.mouse.click(x, y)
        const props = page.getByTestId('flow-props')
        await props.getByText(/^UserTask · /).waitFor({ timeout })
        await props.getByLabel('名称').fill('站长复核')
        await page.getByTestId('prop-assignee').fill(live.reviewer.id)
        await props.getByText(/^UserTask · /).click()
        const deployed = page.waitForResponse((r) =>
          r.url().includes('/api/blade-flow/model/deploy'),
        )
        await page.getByRole('button', { name: '保存并部署' }).click()
        const body = await (await deployed).json()
        assert(body.code === 200, `deploy: ${JSON.stringify(body).slice(0, 300)}`)
        await page.getByText('部署成功').waitFor({ timeout })
        const defs = (await api('GET', '/api/blade-flow/manager/list?keyword=repair_approval')).data
          .records
        const def = defs.find((d) => d.key === 'repair_approval' && d.version >= 1)
        assert(def, 'not deployed')
        const { xml } = (
          await api('GET', `/api/blade-flow/process/model-view?processDefinitionId=${def.id}`)
        ).data
        const task = xml.match(/<bpmn:userTask id="([^"]+)" name="站长复核"[^>]*>/)
        assert(task?.[0].includes(`assignee="${live.reviewer.id}"`), `no second approver: ${xml}`)
        live.secondTask = task[1]
        assert(
          new RegExp(`sourceRef="manager_approval" targetRef="${task[1]}"`).test(xml) &&
            new RegExp(`sourceRef="${task[1]}" targetRef="verdict"`).test(xml),
          'the second approver is not between the first and the verdict',
        )
      },
    )

    await check(
      'orders from the fault alarm wait for the first approver; approved in 待办 they reach the second',
      async () => {
        assert(live.secondTask, 'no deployed process')
        const raised = await until(
          async () =>
            (
              await api(
                'GET',
                `/api/alarmData/page?current=1&size=10&stationId=${live.station}&category=fault`,
              )
            ).data.records.find((r) => Number(r.status) === 0),
          30_000,
          () => 'no fault alarm',
        )
        live.alarm = String(raised.id)
        const create = async (body) =>
          (
            await api('POST', '/api/repair', {
              level: 4,
              assigneeId: live.maintainer.id,
              ...body,
            })
          ).data
        const a = await create({ alarmId: live.alarm, title: `批准${stamp}` })
        const b = await create({
          stationId: live.station,
          title: `驳回${stamp}`,
          description: 'e2e',
        })
        assert(String(a.source) === '2', `not from the alarm: source ${a.source}`)
        for (const o of [a, b]) {
          assert(o.approval === 1 && o.status === 1, `${o.title}: ${o.approval}/${o.status}`)
          assert(!o.assigneeId, `${o.title} assigned before approval`)
        }
        live.approved = String(a.id)
        live.rejected = String(b.id)
        live.instance = String(a.approvalInstance)
        await handle(page, [
          [`批准${stamp}`, '同意派工', true],
          [`驳回${stamp}`, '同意派工', true],
        ])
        const history = (
          await api(
            'GET',
            `/api/blade-flow/process/history-flow-list?processInstanceId=${live.instance}`,
          )
        ).data
        const open = history.filter((h) => !h.endTime).map((h) => h.historyActivityId)
        assert(open.length === 1 && open[0] === live.secondTask, `open: ${JSON.stringify(open)}`)
        assert((await order(live.approved)).approval === 1, 'approved before the second')
      },
    )

    await check(
      '流程跟踪 lists the instance; its diagram marks finished nodes green, the open one primary',
      async () => {
        assert(live.instance, 'no instance')
        await page.goto(`${baseUrl}/flow/follow`)
        const row = page.locator('[data-testid="flow-instances"] tr', { hasText: `批准${stamp}` })
        await row.waitFor({ timeout })
        await row.getByRole('button', { name: '流程图' }).click()
        const chart = page.getByTestId('flow-chart')
        await chart.locator('.flow-active').first().waitFor({ timeout })
        for (const id of ['start', 'level', 'manager_approval']) {
          const marked = await chart.locator(`[data-element-id="${id}"].flow-done`).count()
          assert(marked === 1, `${id} not marked finished`)
        }
        const active = chart.locator(`[data-element-id="${live.secondTask}"].flow-active`)
        assert((await active.count()) === 1, 'the second approval is not marked open')
        const stroke = await active
          .locator('.djs-visual > :first-child')
          .evaluate((e) => getComputedStyle(e).stroke)
        assert(stroke === 'rgb(64, 158, 255)', `open node drawn ${stroke}`)
        assert((await chart.locator('[data-element-id="verdict"].flow-done').count()) === 0, '')
        assert((await chart.locator('.flow-taken').count()) >= 3, 'taken flows not drawn')
        await page.keyboard.press('Escape')
      },
    )

    await check(
      'the reviewer approves one order (assigned to the maintainer) and rejects the other',
      async () => {
        assert(live.approved && live.rejected, 'no orders')
        second.browser = await chromium.launch({
          executablePath,
          headless: true,
          args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
        })
        const context = await second.browser.newContext({
          viewport: { width: 1280, height: 800 },
          locale: 'zh-CN',
        })
        const p = (second.page = await context.newPage())
        p.setDefaultTimeout(timeout)
        await p.goto(`${baseUrl}/login`)
        const captcha = p.waitForResponse((r) => r.url().includes('/api/blade-auth/oauth/captcha'))
        await p.reload()
        const answer = (await (await captcha).json()).answer
        await p.waitForFunction(
          () => !document.querySelector('[data-testid="login-submit"]')?.hasAttribute('disabled'),
        )
        const tenant = p.getByTestId('login-tenant')
        if (await tenant.isVisible()) await tenant.fill('000000')
        await p.getByTestId('login-account').fill(live.reviewer.account)
        await p.getByTestId('login-password').fill(PASSWORD)
        await p.getByTestId('login-captcha').fill(answer)
        await p.getByTestId('login-submit').click()
        await p.waitForURL((url) => url.pathname === '/basicFacts/equipmentMap', { timeout })

        await handle(p, [
          [`批准${stamp}`, '复核通过', true],
          [`驳回${stamp}`, '缺少备件，下周再派', false],
        ])
        const a = await until(
          async () => {
            const o = await order(live.approved)
            return o.approval === 2 ? o : null
          },
          5000,
          () => 'the order was not approved',
        )
        assert(String(a.assigneeId) === live.maintainer.id, `assignee ${a.assigneeId}`)
        assert(a.status === 2, `status after approval ${a.status}`)
        const b = await order(live.rejected)
        assert(b.approval === 3, `approval ${b.approval}`)
        assert(b.approvalComment === '缺少备件，下周再派', `comment ${b.approvalComment}`)
        assert(!b.assigneeId && b.status === 1, `rejected order ${b.status}/${b.assigneeId}`)
        await page.goto(`${baseUrl}/intelligentOperation/repair-detail?id=${live.rejected}`)
        await page.getByTestId('approval-comment').getByText('缺少备件，下周再派').waitFor()
        await page.getByTestId('approval-tag').getByText('已驳回').waitFor()
      },
    )
  } finally {
    // The tenant's repair orders work as before for the groups after this one (and a rerun).
    const defs = await api('GET', '/api/blade-flow/manager/list?keyword=repair_approval&size=100')
      .then((r) => r.data.records.filter((d) => d.key === 'repair_approval'))
      .catch(() => [])
    if (defs.length > 0) {
      const ids = defs.map((d) => d.deploymentId).join(',')
      await api('POST', `/api/blade-flow/manager/delete-deployment?deploymentIds=${ids}`).catch(
        () => {},
      )
    }
    children.agent?.kill('SIGTERM')
    children.sim?.kill('SIGTERM')
    if (live.rule) await api('PUT', '/api/alarmRule', live.rule).catch(() => {})
    await second.browser?.close().catch(() => {})
    rmSync(dir, { recursive: true, force: true })
  }
}
